// Tensors with a zero-size dim go through every kind of redistribute on 4
// ranks: slices of an empty tensor are empty tensors (upstream's
// extract_slice verifier refuses any static offset into a zero-size dim),
// and the collectives move nothing.
// REQUIRES: mpi
// RUN: %hp-runner -np 4 %s | FileCheck %s
// CHECK-COUNT-4: rows 0 cols 8 sum 0

dtensor.mesh @m shape = [4]
!R = !dtensor.tensor<0x8xf32, @m, [replicate]>
!S0 = !dtensor.tensor<0x8xf32, @m, [shard<0>]>
!S1 = !dtensor.tensor<0x8xf32, @m, [shard<1>]>
!P = !dtensor.tensor<0x8xf32, @m, [partial<sum>]>

func.func @main() {
  %e = tensor.empty() : tensor<0x8xf32>
  %r = dtensor.from_local %e : tensor<0x8xf32> -> !R
  %s1 = dtensor.redistribute %r : !R -> !S1
  %s0 = dtensor.redistribute %s1 : !S1 -> !S0
  %p = dtensor.redistribute %s0 : !S0 -> !P
  %q = dtensor.redistribute %p : !P -> !S1
  %back = dtensor.redistribute %q : !S1 -> !R
  %l = dtensor.to_local %back : !R -> tensor<0x8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = tensor.dim %l, %c0 : tensor<0x8xf32>
  %cols = tensor.dim %l, %c1 : tensor<0x8xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.from_elements %zero : tensor<f32>
  %sum = linalg.reduce ins(%l : tensor<0x8xf32>) outs(%init : tensor<f32>) dimensions = [0, 1]
    (%a: f32, %acc: f32) {
      %t = arith.addf %a, %acc : f32
      linalg.yield %t : f32
    }
  %s = tensor.extract %sum[] : tensor<f32>
  vector.print str "rows "
  vector.print %rows : index punctuation <no_punctuation>
  vector.print str " cols "
  vector.print %cols : index punctuation <no_punctuation>
  vector.print str " sum "
  vector.print %s : f32
  return
}
