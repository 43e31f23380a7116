// A top-1 mixture-of-experts layer with expert parallelism, on a 2-D mesh:
// "dp" (2) x "ep" (2), four ranks. Each rank holds its own tokens, already
// bucketed per expert with a fixed capacity: hidden_states is
// [ranks * experts, capacity, hidden], split over dp and then ep. Expert
// weights are split on the expert dim over "ep" and replicated over "dp".
//
// The region's boundary is a checked DTensor contract; inside, the body is
// free SPMD code: an all_to_all over "ep" sends each expert's bucket to the
// rank owning that expert (dispatch), the local experts run their MLP
// relu(x @ w1) @ w2, and a second all_to_all brings every token back
// (combine), so the output keeps the declared placement.
//
// Experts E = 4, capacity C = 3, hidden H = 2, FFN F = 5. Per rank: tokens
// [E, C, H] = 4x3x2; after dispatch [E/ep, ep*C, H] = 2x6x2.
//
//   hp-runner -np 4 examples/moe_ep.mlir -e main --entry-point-result=void

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "ep"]

func.func @moe(%tokens: !dtensor.tensor<16x3x2xf32, @mesh, [shard<0>, shard<0>]>,
               %w1: !dtensor.tensor<4x2x5xf32, @mesh, [replicate, shard<0>]>,
               %w2: !dtensor.tensor<4x5x2xf32, @mesh, [replicate, shard<0>]>)
    -> !dtensor.tensor<16x3x2xf32, @mesh, [shard<0>, shard<0>]> {
  %out = dtensor.local_region on @mesh
      args(%tokens as "hidden_states", %w1 as "w1", %w2 as "w2")
      in_placements = {hidden_states = [shard<0>, shard<0>],
                       w1 = [replicate, shard<0>], w2 = [replicate, shard<0>]}
      out_placements = [shard<0>, shard<0>]
      : (!dtensor.tensor<16x3x2xf32, @mesh, [shard<0>, shard<0>]>,
         !dtensor.tensor<4x2x5xf32, @mesh, [replicate, shard<0>]>,
         !dtensor.tensor<4x5x2xf32, @mesh, [replicate, shard<0>]>)
     -> !dtensor.tensor<16x3x2xf32, @mesh, [shard<0>, shard<0>]> {
  ^bb0(%x: tensor<4x3x2xf32>, %a: tensor<2x2x5xf32>, %b: tensor<2x5x2xf32>):
    // Dispatch: expert block j goes to ep rank j; buckets arrive by source.
    %d = dtensor.all_to_all %x on @mesh axes = ["ep"] split_axis = 0 concat_axis = 1
        : tensor<4x3x2xf32> -> tensor<2x6x2xf32>
    %zero = arith.constant 0.0 : f32
    %e1 = tensor.empty() : tensor<2x6x5xf32>
    %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<2x6x5xf32>) -> tensor<2x6x5xf32>
    %h = linalg.batch_matmul ins(%d, %a : tensor<2x6x2xf32>, tensor<2x2x5xf32>)
                             outs(%z1 : tensor<2x6x5xf32>) -> tensor<2x6x5xf32>
    %relu = linalg.map { arith.maximumf } ins(%h, %z1 : tensor<2x6x5xf32>, tensor<2x6x5xf32>)
                                          outs(%e1 : tensor<2x6x5xf32>)
    %e2 = tensor.empty() : tensor<2x6x2xf32>
    %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<2x6x2xf32>) -> tensor<2x6x2xf32>
    %y = linalg.batch_matmul ins(%relu, %b : tensor<2x6x5xf32>, tensor<2x5x2xf32>)
                             outs(%z2 : tensor<2x6x2xf32>) -> tensor<2x6x2xf32>
    // Combine: each source's block goes back to it, experts in order.
    %c = dtensor.all_to_all %y on @mesh axes = ["ep"] split_axis = 1 concat_axis = 0
        : tensor<2x6x2xf32> -> tensor<4x3x2xf32>
    dtensor.yield %c : tensor<4x3x2xf32>
  }
  return %out : !dtensor.tensor<16x3x2xf32, @mesh, [shard<0>, shard<0>]>
}

//===----------------------------------------------------------------------===//
// @main: the same layer on one device, and the check.
//===----------------------------------------------------------------------===//

// value[i, j, k] = ((a i + b j + c k) mod m) - off, small integers.
func.func @pattern3(%d0: index, %d1: index, %d2: index, %a: index, %b: index, %c: index,
                    %m: index, %off: index) -> tensor<?x?x?xf32> {
  %e = tensor.empty(%d0, %d1, %d2) : tensor<?x?x?xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      outs(%e : tensor<?x?x?xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %k = linalg.index 2 : index
    %ai = arith.muli %i, %a : index
    %bj = arith.muli %j, %b : index
    %ck = arith.muli %k, %c : index
    %s0 = arith.addi %ai, %bj : index
    %s = arith.addi %s0, %ck : index
    %r = arith.remui %s, %m : index
    %v = arith.subi %r, %off : index
    %v64 = arith.index_cast %v : index to i64
    %f = arith.sitofp %v64 : i64 to f32
    linalg.yield %f : f32
  } -> tensor<?x?x?xf32>
  return %t : tensor<?x?x?xf32>
}

// Bucket g uses expert g mod 4: relu(X[g] @ W1[g mod 4]) @ W2[g mod 4].
func.func @reference(%x: tensor<16x3x2xf32>, %w1: tensor<4x2x5xf32>, %w2: tensor<4x5x2xf32>) -> tensor<16x3x2xf32> {
  %zero = arith.constant 0.0 : f32
  %b1e = tensor.empty() : tensor<16x2x5xf32>
  %b1 = linalg.generic {indexing_maps = [affine_map<(g, h, f) -> (g mod 4, h, f)>, affine_map<(g, h, f) -> (g, h, f)>],
                        iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%w1 : tensor<4x2x5xf32>) outs(%b1e : tensor<16x2x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<16x2x5xf32>
  %b2e = tensor.empty() : tensor<16x5x2xf32>
  %b2 = linalg.generic {indexing_maps = [affine_map<(g, f, h) -> (g mod 4, f, h)>, affine_map<(g, f, h) -> (g, f, h)>],
                        iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%w2 : tensor<4x5x2xf32>) outs(%b2e : tensor<16x5x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<16x5x2xf32>
  %e1 = tensor.empty() : tensor<16x3x5xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16x3x5xf32>) -> tensor<16x3x5xf32>
  %h = linalg.batch_matmul ins(%x, %b1 : tensor<16x3x2xf32>, tensor<16x2x5xf32>) outs(%z1 : tensor<16x3x5xf32>) -> tensor<16x3x5xf32>
  %relu = linalg.map { arith.maximumf } ins(%h, %z1 : tensor<16x3x5xf32>, tensor<16x3x5xf32>) outs(%e1 : tensor<16x3x5xf32>)
  %e2 = tensor.empty() : tensor<16x3x2xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<16x3x2xf32>) -> tensor<16x3x2xf32>
  %y = linalg.batch_matmul ins(%relu, %b2 : tensor<16x3x5xf32>, tensor<16x5x2xf32>) outs(%z2 : tensor<16x3x2xf32>) -> tensor<16x3x2xf32>
  return %y : tensor<16x3x2xf32>
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c16 = arith.constant 16 : index
  %xd = func.call @pattern3(%c16, %c3, %c2, %c3, %c1, %c2, %c7, %c3) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?xf32>
  %w1d = func.call @pattern3(%c4, %c2, %c5, %c2, %c3, %c1, %c5, %c2) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?xf32>
  %w2d = func.call @pattern3(%c4, %c5, %c2, %c1, %c2, %c3, %c4, %c1) : (index, index, index, index, index, index, index, index) -> tensor<?x?x?xf32>
  %x = tensor.cast %xd : tensor<?x?x?xf32> to tensor<16x3x2xf32>
  %w1 = tensor.cast %w1d : tensor<?x?x?xf32> to tensor<4x2x5xf32>
  %w2 = tensor.cast %w2d : tensor<?x?x?xf32> to tensor<4x5x2xf32>
  %want = func.call @reference(%x, %w1, %w2) : (tensor<16x3x2xf32>, tensor<4x2x5xf32>, tensor<4x5x2xf32>) -> tensor<16x3x2xf32>

  %rx = dtensor.from_local %x : tensor<16x3x2xf32> -> !dtensor.tensor<16x3x2xf32, @mesh, [replicate, replicate]>
  %dx = dtensor.redistribute %rx : !dtensor.tensor<16x3x2xf32, @mesh, [replicate, replicate]> -> !dtensor.tensor<16x3x2xf32, @mesh, [shard<0>, shard<0>]>
  %r1 = dtensor.from_local %w1 : tensor<4x2x5xf32> -> !dtensor.tensor<4x2x5xf32, @mesh, [replicate, replicate]>
  %d1 = dtensor.redistribute %r1 : !dtensor.tensor<4x2x5xf32, @mesh, [replicate, replicate]> -> !dtensor.tensor<4x2x5xf32, @mesh, [replicate, shard<0>]>
  %r2 = dtensor.from_local %w2 : tensor<4x5x2xf32> -> !dtensor.tensor<4x5x2xf32, @mesh, [replicate, replicate]>
  %d2 = dtensor.redistribute %r2 : !dtensor.tensor<4x5x2xf32, @mesh, [replicate, replicate]> -> !dtensor.tensor<4x5x2xf32, @mesh, [replicate, shard<0>]>
  %dy = func.call @moe(%dx, %d1, %d2)
      : (!dtensor.tensor<16x3x2xf32, @mesh, [shard<0>, shard<0>]>, !dtensor.tensor<4x2x5xf32, @mesh, [replicate, shard<0>]>,
         !dtensor.tensor<4x5x2xf32, @mesh, [replicate, shard<0>]>) -> !dtensor.tensor<16x3x2xf32, @mesh, [shard<0>, shard<0>]>
  %ry = dtensor.redistribute %dy : !dtensor.tensor<16x3x2xf32, @mesh, [shard<0>, shard<0>]> -> !dtensor.tensor<16x3x2xf32, @mesh, [replicate, replicate]>
  %y = dtensor.to_local %ry : !dtensor.tensor<16x3x2xf32, @mesh, [replicate, replicate]> -> tensor<16x3x2xf32>

  // Exact: small integers, no rounding anywhere.
  %zero = arith.constant 0.0 : f32
  %init = tensor.from_elements %zero : tensor<f32>
  %diff = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> (i, j, k)>, affine_map<(i, j, k) -> ()>],
                          iterator_types = ["reduction", "reduction", "reduction"]}
      ins(%y, %want : tensor<16x3x2xf32>, tensor<16x3x2xf32>) outs(%init : tensor<f32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %s = arith.subf %p, %q : f32
    %abs = math.absf %s : f32
    %m = arith.maximumf %acc, %abs : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %d = tensor.extract %diff[] : tensor<f32>
  %ok = arith.cmpf oeq, %d, %zero : f32
  scf.if %ok {
    vector.print str "moe_ep: this rank matches the single-device result\n"
  } else {
    vector.print str "moe_ep: MISMATCH with the single-device result, max |diff| = "
    vector.print %d : f32
  }
  return
}
