// linalg.softmax placed by its own strategy model (LinalgModels.cpp: any
// dim but the one it normalises may be split) and run on 2 ranks: every
// rank compares both results with the same ops on one device. Along dim 1
// the rows stay split as they come; along dim 0 the rows cannot be split,
// so the columns are.
// REQUIRES: mpi
// RUN: hp-opt %s --dtensor-propagate=print-strategies --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRAT
// RUN: %hp-runner -np 2 %s -e main --entry-point-result=void | FileCheck %s
// STRAT: remark: strategy [S(0)], [S(0)] -> [S(0)]; linalg.softmax, loop 0 on tp; 320 flops per device
// STRAT: remark: strategy [S(1)], [S(1)] -> [S(1)]; linalg.softmax, loop 1 on tp; 320 flops per device
// CHECK-COUNT-4: softmax: this rank matches the single-device result
// CHECK-NOT: MISMATCH

dtensor.mesh @tp shape = [2] names = ["tp"]

func.func @program(%x: !dtensor.tensor<8x16xf32, @tp, [shard<0>]>)
    -> (!dtensor.tensor<8x16xf32, @tp, [shard<0>]>, !dtensor.tensor<8x16xf32, @tp, [shard<1>]>) {
  %rows, %cols = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8x16xf32, @tp, [shard<0>]>)
      -> (!dtensor.tensor<8x16xf32, @tp, [shard<0>]>, !dtensor.tensor<8x16xf32, @tp, [shard<1>]>) {
  ^bb0(%g: tensor<8x16xf32>):
    %e = tensor.empty() : tensor<8x16xf32>
    %a = linalg.softmax dimension(1) ins(%g : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
    %b = linalg.softmax dimension(0) ins(%g : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
    dtensor.yield %a, %b : tensor<8x16xf32>, tensor<8x16xf32>
  }
  return %rows, %cols : !dtensor.tensor<8x16xf32, @tp, [shard<0>]>, !dtensor.tensor<8x16xf32, @tp, [shard<1>]>
}

// The same ops on one device.
func.func @reference(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %e = tensor.empty() : tensor<8x16xf32>
  %a = linalg.softmax dimension(1) ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %b = linalg.softmax dimension(0) ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %a, %b : tensor<8x16xf32>, tensor<8x16xf32>
}

// value[i, j] = ((3 i + 5 j) mod 7) - 3: small integers, exact in f32.
func.func @pattern() -> tensor<8x16xf32> {
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %e = tensor.empty() : tensor<8x16xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<8x16xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ai = arith.muli %i, %c3 : index
    %bj = arith.muli %j, %c5 : index
    %sum = arith.addi %ai, %bj : index
    %r = arith.remui %sum, %c7 : index
    %v = arith.subi %r, %c3 : index
    %v64 = arith.index_cast %v : index to i64
    %f = arith.sitofp %v64 : i64 to f32
    linalg.yield %f : f32
  } -> tensor<8x16xf32>
  return %t : tensor<8x16xf32>
}

func.func @max_abs_diff(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>) -> f32 {
  %zero = arith.constant 0.0 : f32
  %init = tensor.from_elements %zero : tensor<f32>
  %d = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                       iterator_types = ["reduction", "reduction"]}
      ins(%a, %b : tensor<8x16xf32>, tensor<8x16xf32>) outs(%init : tensor<f32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %s = arith.subf %p, %q : f32
    %abs = math.absf %s : f32
    %m = arith.maximumf %acc, %abs : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %v = tensor.extract %d[] : tensor<f32>
  return %v : f32
}

func.func @check(%got: tensor<8x16xf32>, %want: tensor<8x16xf32>) {
  %diff = func.call @max_abs_diff(%got, %want) : (tensor<8x16xf32>, tensor<8x16xf32>) -> f32
  %zero = arith.constant 0.0 : f32
  %ok = arith.cmpf oeq, %diff, %zero : f32
  scf.if %ok {
    vector.print str "softmax: this rank matches the single-device result\n"
  } else {
    vector.print str "softmax: MISMATCH with the single-device result, max |diff| = "
    vector.print %diff : f32
  }
  return
}

func.func @main() {
  %x = func.call @pattern() : () -> tensor<8x16xf32>
  %want:2 = func.call @reference(%x) : (tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>)
  %rx = dtensor.from_local %x : tensor<8x16xf32> -> !dtensor.tensor<8x16xf32, @tp, [replicate]>
  %dx = dtensor.redistribute %rx : !dtensor.tensor<8x16xf32, @tp, [replicate]> -> !dtensor.tensor<8x16xf32, @tp, [shard<0>]>
  %rows, %cols = func.call @program(%dx)
      : (!dtensor.tensor<8x16xf32, @tp, [shard<0>]>) -> (!dtensor.tensor<8x16xf32, @tp, [shard<0>]>, !dtensor.tensor<8x16xf32, @tp, [shard<1>]>)
  %ra = dtensor.redistribute %rows : !dtensor.tensor<8x16xf32, @tp, [shard<0>]> -> !dtensor.tensor<8x16xf32, @tp, [replicate]>
  %a = dtensor.to_local %ra : !dtensor.tensor<8x16xf32, @tp, [replicate]> -> tensor<8x16xf32>
  %rb = dtensor.redistribute %cols : !dtensor.tensor<8x16xf32, @tp, [shard<1>]> -> !dtensor.tensor<8x16xf32, @tp, [replicate]>
  %b = dtensor.to_local %rb : !dtensor.tensor<8x16xf32, @tp, [replicate]> -> tensor<8x16xf32>
  func.call @check(%a, %want#0) : (tensor<8x16xf32>, tensor<8x16xf32>) -> ()
  func.call @check(%b, %want#1) : (tensor<8x16xf32>, tensor<8x16xf32>) -> ()
  return
}
