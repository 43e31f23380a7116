// One local function, two call sites: dtensor.local_call is the decorator
// form of local_region (hyper_parallel's `local_region(fn, ...)`, torch's
// `local_map(fn, ...)`). The function names its arguments like a Python
// signature; the first call site passes a shard as it is, the second passes
// a replicated tensor and redistributes it at entry. Runs on 4 ranks and
// compares with the same computation on one device.
//
//   hp-runner -np 4 examples/shared_local_fn.mlir -e main --entry-point-result=void

dtensor.mesh @tp shape = [4] names = ["tp"]

// y = x * scale + bias on this rank's rows: plain local code.
func.func @scale_add(%x: tensor<2x8xf32> {dtensor.arg_name = "x"},
                     %scale: f32 {dtensor.arg_name = "scale"},
                     %bias: tensor<8xf32> {dtensor.arg_name = "bias"}) -> tensor<2x8xf32> {
  %e = tensor.empty() : tensor<2x8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %bias : tensor<2x8xf32>, tensor<8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%v: f32, %b: f32, %out: f32):
    %m = arith.mulf %v, %scale : f32
    %s = arith.addf %m, %b : f32
    linalg.yield %s : f32
  } -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// scale_add(a) + scale_add(r), gathered.
func.func @layer(%a: !dtensor.tensor<8x8xf32, @tp, [shard<0>]>,
                 %r: !dtensor.tensor<8x8xf32, @tp, [replicate]>,
                 %scale: f32, %bias: tensor<8xf32>) -> !dtensor.tensor<8x8xf32, @tp, [replicate]> {
  %y1 = dtensor.local_call @scale_add(%a, %scale, %bias) on @tp out_placements = [shard<0>]
      : (!dtensor.tensor<8x8xf32, @tp, [shard<0>]>, f32, tensor<8xf32>) -> !dtensor.tensor<8x8xf32, @tp, [shard<0>]>
  %y2 = dtensor.local_call @scale_add(%r, %scale, %bias) on @tp
      in_placements = {x = [shard<0>]} out_placements = [shard<0>] redistribute_inputs
      : (!dtensor.tensor<8x8xf32, @tp, [replicate]>, f32, tensor<8xf32>) -> !dtensor.tensor<8x8xf32, @tp, [shard<0>]>
  %sum = dtensor.local_region on @tp args(%y1 as "a", %y2 as "b") out_placements = [shard<0>]
      : (!dtensor.tensor<8x8xf32, @tp, [shard<0>]>, !dtensor.tensor<8x8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8x8xf32, @tp, [shard<0>]> {
  ^bb0(%la: tensor<2x8xf32>, %lb: tensor<2x8xf32>):
    %s = arith.addf %la, %lb : tensor<2x8xf32>
    dtensor.yield %s : tensor<2x8xf32>
  }
  %out = dtensor.redistribute %sum : !dtensor.tensor<8x8xf32, @tp, [shard<0>]> -> !dtensor.tensor<8x8xf32, @tp, [replicate]>
  return %out : !dtensor.tensor<8x8xf32, @tp, [replicate]>
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %scale = arith.constant 2.0 : f32
  %bias = arith.constant dense<[1.0, -1.0, 2.0, 0.0, 3.0, -2.0, 1.0, 4.0]> : tensor<8xf32>
  %x1 = func.call @pattern(%c1, %c2, %c5) : (index, index, index) -> tensor<8x8xf32>
  %x2 = func.call @pattern(%c3, %c1, %c7) : (index, index, index) -> tensor<8x8xf32>

  // The single-device result.
  %e = tensor.empty() : tensor<8x8xf32>
  %want = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                          iterator_types = ["parallel", "parallel"]}
      ins(%x1, %x2, %bias : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%u: f32, %v: f32, %b: f32, %out: f32):
    %su = arith.mulf %u, %scale : f32
    %sv = arith.mulf %v, %scale : f32
    %p = arith.addf %su, %b : f32
    %q = arith.addf %sv, %b : f32
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>

  // Every rank holds x1 and x2; x1 enters sharded, x2 replicated.
  %d1 = dtensor.from_local %x1 : tensor<8x8xf32> -> !dtensor.tensor<8x8xf32, @tp, [replicate]>
  %a = dtensor.redistribute %d1 : !dtensor.tensor<8x8xf32, @tp, [replicate]> -> !dtensor.tensor<8x8xf32, @tp, [shard<0>]>
  %r = dtensor.from_local %x2 : tensor<8x8xf32> -> !dtensor.tensor<8x8xf32, @tp, [replicate]>
  %dy = func.call @layer(%a, %r, %scale, %bias)
      : (!dtensor.tensor<8x8xf32, @tp, [shard<0>]>, !dtensor.tensor<8x8xf32, @tp, [replicate]>, f32, tensor<8xf32>)
     -> !dtensor.tensor<8x8xf32, @tp, [replicate]>
  %y = dtensor.to_local %dy : !dtensor.tensor<8x8xf32, @tp, [replicate]> -> tensor<8x8xf32>

  %zero = arith.constant 0.0 : f32
  %init = tensor.from_elements %zero : tensor<f32>
  %d = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                       iterator_types = ["reduction", "reduction"]}
      ins(%y, %want : tensor<8x8xf32>, tensor<8x8xf32>) outs(%init : tensor<f32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %s = arith.subf %p, %q : f32
    %abs = math.absf %s : f32
    %m = arith.maximumf %acc, %abs : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %diff = tensor.extract %d[] : tensor<f32>
  %ok = arith.cmpf oeq, %diff, %zero : f32
  scf.if %ok {
    vector.print str "shared_local_fn: this rank matches the single-device result\n"
  } else {
    vector.print str "shared_local_fn: MISMATCH with the single-device result, max |diff| = "
    vector.print %diff : f32
  }
  return
}

// value[i, j] = (a i + b j) mod m: small integers, exact in f32.
func.func @pattern(%a: index, %b: index, %m: index) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<8x8xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ai = arith.muli %i, %a : index
    %bj = arith.muli %j, %b : index
    %s = arith.addi %ai, %bj : index
    %r = arith.remui %s, %m : index
    %v = arith.index_cast %r : index to i64
    %f = arith.sitofp %v : i64 to f32
    linalg.yield %f : f32
  } -> tensor<8x8xf32>
  return %t : tensor<8x8xf32>
}
