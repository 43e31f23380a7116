// The program on 4 ranks: every rank prints its block of an all_gather.
// REQUIRES: mpi
// RUN: %hp-runner -np 4 %s -e main --entry-point-result=void | %FileCheck %s
// CHECK-COUNT-4: ( 0, 1, 2, 3, 4, 5, 6, 7 )

dtensor.mesh @tp shape = [4] names = ["tp"]

func.func @main() {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %all = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]> : tensor<8xf32>
  %d = dtensor.from_local %all : tensor<8xf32> -> !dtensor.tensor<8xf32, @tp, [replicate]>
  %s = dtensor.redistribute %d : !dtensor.tensor<8xf32, @tp, [replicate]> -> !dtensor.tensor<8xf32, @tp, [shard<0>]>
  %g = dtensor.redistribute %s : !dtensor.tensor<8xf32, @tp, [shard<0>]> -> !dtensor.tensor<8xf32, @tp, [replicate]>
  %l = dtensor.to_local %g : !dtensor.tensor<8xf32, @tp, [replicate]> -> tensor<8xf32>
  %v = vector.transfer_read %l[%c0], %f0 : tensor<8xf32>, vector<8xf32>
  vector.print %v : vector<8xf32>
  return
}
