// A linalg.generic computing a sum and a max over the same loop, run with
// that loop split: each result leaves the partial its own combiner makes
// (partial<sum> and partial<max>, the results' placements, so nothing
// moves), then every rank reduces them and compares with the same op on one
// device.
// REQUIRES: mpi
// RUN: hp-opt %s --dtensor-propagate=print-strategies --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRAT
// RUN: %hp-runner -np 4 %s -e main --entry-point-result=void | FileCheck %s
// STRAT: remark: strategy [S(1)], [P(sum)], [P(max)] -> [P(sum)], [P(max)]; linalg.generic, loop 1 on tp
// CHECK-COUNT-4: two_reductions: this rank matches the single-device result
// CHECK-NOT: MISMATCH

dtensor.mesh @tp shape = [4] names = ["tp"]

func.func @program(%x: !dtensor.tensor<6x10xf32, @tp, [shard<1>]>)
    -> (!dtensor.tensor<6xf32, @tp, [partial<sum>]>, !dtensor.tensor<6xf32, @tp, [partial<max>]>) {
  %a, %b = dtensor.global_region on @tp args(%x)
      : (!dtensor.tensor<6x10xf32, @tp, [shard<1>]>)
     -> (!dtensor.tensor<6xf32, @tp, [partial<sum>]>, !dtensor.tensor<6xf32, @tp, [partial<max>]>) {
  ^bb0(%g: tensor<6x10xf32>):
    %zero = arith.constant 0.0 : f32
    %ninf = arith.constant 0xFF800000 : f32
    %e = tensor.empty() : tensor<6xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<6xf32>) -> tensor<6xf32>
    %n = linalg.fill ins(%ninf : f32) outs(%e : tensor<6xf32>) -> tensor<6xf32>
    %s, %m = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>],
                             iterator_types = ["parallel", "reduction"]}
        ins(%g : tensor<6x10xf32>) outs(%z, %n : tensor<6xf32>, tensor<6xf32>) {
    ^bb0(%in: f32, %acc: f32, %mx: f32):
      %r1 = arith.addf %in, %acc : f32
      %r2 = arith.maximumf %in, %mx : f32
      linalg.yield %r1, %r2 : f32, f32
    } -> (tensor<6xf32>, tensor<6xf32>)
    dtensor.yield %s, %m : tensor<6xf32>, tensor<6xf32>
  }
  return %a, %b : !dtensor.tensor<6xf32, @tp, [partial<sum>]>, !dtensor.tensor<6xf32, @tp, [partial<max>]>
}

// The same op on one device.
func.func @reference(%x: tensor<6x10xf32>) -> (tensor<6xf32>, tensor<6xf32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<6xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<6xf32>) -> tensor<6xf32>
  %n = linalg.fill ins(%ninf : f32) outs(%e : tensor<6xf32>) -> tensor<6xf32>
  %s, %m = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>],
                           iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<6x10xf32>) outs(%z, %n : tensor<6xf32>, tensor<6xf32>) {
  ^bb0(%in: f32, %acc: f32, %mx: f32):
    %r1 = arith.addf %in, %acc : f32
    %r2 = arith.maximumf %in, %mx : f32
    linalg.yield %r1, %r2 : f32, f32
  } -> (tensor<6xf32>, tensor<6xf32>)
  return %s, %m : tensor<6xf32>, tensor<6xf32>
}

// value[i, j] = ((a i + b j) mod m) - off: small integers, exact in f32.
func.func @pattern(%rows: index, %cols: index, %a: index, %b: index, %m: index, %off: index) -> tensor<?x?xf32> {
  %e = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<?x?xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ai = arith.muli %i, %a : index
    %bj = arith.muli %j, %b : index
    %sum = arith.addi %ai, %bj : index
    %r = arith.remui %sum, %m : index
    %v = arith.subi %r, %off : index
    %v64 = arith.index_cast %v : index to i64
    %f = arith.sitofp %v64 : i64 to f32
    linalg.yield %f : f32
  } -> tensor<?x?xf32>
  return %t : tensor<?x?xf32>
}

func.func @max_abs_diff(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> f32 {
  %zero = arith.constant 0.0 : f32
  %init = tensor.from_elements %zero : tensor<f32>
  %d = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                       iterator_types = ["reduction", "reduction"]}
      ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%init : tensor<f32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %s = arith.subf %p, %q : f32
    %abs = math.absf %s : f32
    %m = arith.maximumf %acc, %abs : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %v = tensor.extract %d[] : tensor<f32>
  return %v : f32
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c10 = arith.constant 10 : index
  %xd = func.call @pattern(%c6, %c10, %c3, %c1, %c7, %c3) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<6x10xf32>
  %want:2 = func.call @reference(%x) : (tensor<6x10xf32>) -> (tensor<6xf32>, tensor<6xf32>)
  %rx = dtensor.from_local %x : tensor<6x10xf32> -> !dtensor.tensor<6x10xf32, @tp, [replicate]>
  %dx = dtensor.redistribute %rx : !dtensor.tensor<6x10xf32, @tp, [replicate]> -> !dtensor.tensor<6x10xf32, @tp, [shard<1>]>
  %ps, %pm = func.call @program(%dx) : (!dtensor.tensor<6x10xf32, @tp, [shard<1>]>)
      -> (!dtensor.tensor<6xf32, @tp, [partial<sum>]>, !dtensor.tensor<6xf32, @tp, [partial<max>]>)
  %ds = dtensor.redistribute %ps : !dtensor.tensor<6xf32, @tp, [partial<sum>]> -> !dtensor.tensor<6xf32, @tp, [replicate]>
  %dm = dtensor.redistribute %pm : !dtensor.tensor<6xf32, @tp, [partial<max>]> -> !dtensor.tensor<6xf32, @tp, [replicate]>
  %s = dtensor.to_local %ds : !dtensor.tensor<6xf32, @tp, [replicate]> -> tensor<6xf32>
  %m = dtensor.to_local %dm : !dtensor.tensor<6xf32, @tp, [replicate]> -> tensor<6xf32>
  %s2 = tensor.expand_shape %s [[0, 1]] output_shape [6, 1] : tensor<6xf32> into tensor<6x1xf32>
  %m2 = tensor.expand_shape %m [[0, 1]] output_shape [6, 1] : tensor<6xf32> into tensor<6x1xf32>
  %ws = tensor.expand_shape %want#0 [[0, 1]] output_shape [6, 1] : tensor<6xf32> into tensor<6x1xf32>
  %wm = tensor.expand_shape %want#1 [[0, 1]] output_shape [6, 1] : tensor<6xf32> into tensor<6x1xf32>
  %sd = tensor.cast %s2 : tensor<6x1xf32> to tensor<?x?xf32>
  %md = tensor.cast %m2 : tensor<6x1xf32> to tensor<?x?xf32>
  %wsd = tensor.cast %ws : tensor<6x1xf32> to tensor<?x?xf32>
  %wmd = tensor.cast %wm : tensor<6x1xf32> to tensor<?x?xf32>
  %d1 = func.call @max_abs_diff(%sd, %wsd) : (tensor<?x?xf32>, tensor<?x?xf32>) -> f32
  %d2 = func.call @max_abs_diff(%md, %wmd) : (tensor<?x?xf32>, tensor<?x?xf32>) -> f32
  %diff = arith.maximumf %d1, %d2 : f32
  %zero = arith.constant 0.0 : f32
  %ok = arith.cmpf oeq, %diff, %zero : f32
  scf.if %ok {
    vector.print str "two_reductions: this rank matches the single-device result\n"
  } else {
    vector.print str "two_reductions: MISMATCH with the single-device result, max |diff| = "
    vector.print %diff : f32
  }
  return
}
