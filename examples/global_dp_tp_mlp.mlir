// The data- and tensor-parallel MLP of examples/dp_tp_mlp.mlir written in
// GLOBAL view, on a 2-D mesh: "dp" (2) x "tp" (2), four ranks. One
// dtensor.global_region holds the single-device ops on global tensors; only
// the boundary layouts are written down:
//   x  [shard<0>, shard<0>]   the batch split over all 4 ranks, as a data
//                             loader hands it out (10 rows: 3,2 in each dp
//                             half, torch.chunk rules)
//   w1 [replicate, shard<1>]  column-parallel over tp, replicated over dp
//   w2 [replicate, shard<0>]  row-parallel over tp, replicated over dp
//   y  [shard<0>, replicate]  batch-sharded over dp
// dtensor-propagate places every value in between.
//
//   h = relu(x @ w1)
//   y = h @ w2
//
//   hp-runner -np 4 examples/global_dp_tp_mlp.mlir -e main --entry-point-result=void

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]

func.func @global_dp_tp_mlp(%x: !dtensor.tensor<10x16xf32, @mesh, [shard<0>, shard<0>]>,
                            %w1: !dtensor.tensor<16x32xf32, @mesh, [replicate, shard<1>]>,
                            %w2: !dtensor.tensor<32x16xf32, @mesh, [replicate, shard<0>]>)
    -> !dtensor.tensor<10x16xf32, @mesh, [shard<0>, replicate]> {
  %y = dtensor.global_region on @mesh args(%x, %w1, %w2)
      : (!dtensor.tensor<10x16xf32, @mesh, [shard<0>, shard<0>]>,
         !dtensor.tensor<16x32xf32, @mesh, [replicate, shard<1>]>,
         !dtensor.tensor<32x16xf32, @mesh, [replicate, shard<0>]>)
     -> !dtensor.tensor<10x16xf32, @mesh, [shard<0>, replicate]> {
  ^bb0(%gx: tensor<10x16xf32>, %gw1: tensor<16x32xf32>, %gw2: tensor<32x16xf32>):
    %zero = arith.constant 0.0 : f32
    %e1 = tensor.empty() : tensor<10x32xf32>
    %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<10x32xf32>) -> tensor<10x32xf32>
    %h = linalg.matmul ins(%gx, %gw1 : tensor<10x16xf32>, tensor<16x32xf32>)
                       outs(%z1 : tensor<10x32xf32>) -> tensor<10x32xf32>
    %relu = linalg.map { arith.maximumf } ins(%h, %z1 : tensor<10x32xf32>, tensor<10x32xf32>)
                                          outs(%e1 : tensor<10x32xf32>)
    %e2 = tensor.empty() : tensor<10x16xf32>
    %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<10x16xf32>) -> tensor<10x16xf32>
    %out = linalg.matmul ins(%relu, %gw2 : tensor<10x32xf32>, tensor<32x16xf32>)
                         outs(%z2 : tensor<10x16xf32>) -> tensor<10x16xf32>
    dtensor.yield %out : tensor<10x16xf32>
  }
  return %y : !dtensor.tensor<10x16xf32, @mesh, [shard<0>, replicate]>
}

//===----------------------------------------------------------------------===//
// @main: the same ops on one device, and the check.
//===----------------------------------------------------------------------===//

// The body of the global_region above, on plain tensors.
func.func @reference(%x: tensor<10x16xf32>, %w1: tensor<16x32xf32>, %w2: tensor<32x16xf32>) -> tensor<10x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<10x32xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<10x32xf32>) -> tensor<10x32xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<10x16xf32>, tensor<16x32xf32>)
                     outs(%z1 : tensor<10x32xf32>) -> tensor<10x32xf32>
  %relu = linalg.map { arith.maximumf } ins(%h, %z1 : tensor<10x32xf32>, tensor<10x32xf32>)
                                        outs(%e1 : tensor<10x32xf32>)
  %e2 = tensor.empty() : tensor<10x16xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<10x16xf32>) -> tensor<10x16xf32>
  %out = linalg.matmul ins(%relu, %w2 : tensor<10x32xf32>, tensor<32x16xf32>)
                       outs(%z2 : tensor<10x16xf32>) -> tensor<10x16xf32>
  return %out : tensor<10x16xf32>
}

// value[i, j] = ((a i + b j) mod m) - off: small integers, so every product
// and sum is exact in f32 whatever the summation order or sharding.
func.func @pattern(%rows: index, %cols: index, %a: index, %b: index, %m: index, %off: index) -> tensor<?x?xf32> {
  %e = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<?x?xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ai = arith.muli %i, %a : index
    %bj = arith.muli %j, %b : index
    %s = arith.addi %ai, %bj : index
    %r = arith.remui %s, %m : index
    %v = arith.subi %r, %off : index
    %v64 = arith.index_cast %v : index to i64
    %f = arith.sitofp %v64 : i64 to f32
    linalg.yield %f : f32
  } -> tensor<?x?xf32>
  return %t : tensor<?x?xf32>
}

// max |got - want| and max |want| over all elements.
func.func @diff_and_scale(%got: tensor<?x?xf32>, %want: tensor<?x?xf32>) -> (f32, f32) {
  %zero = arith.constant 0.0 : f32
  %init = tensor.from_elements %zero, %zero : tensor<2xf32>
  %d = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (i, j)>, affine_map<(i, j, k) -> (k)>],
                       iterator_types = ["reduction", "reduction", "parallel"]}
      ins(%got, %want : tensor<?x?xf32>, tensor<?x?xf32>) outs(%init : tensor<2xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %k = linalg.index 2 : index
    %s = arith.subf %p, %q : f32
    %k0 = arith.constant 0 : index
    %is0 = arith.cmpi eq, %k, %k0 : index
    %v = arith.select %is0, %s, %q : f32
    %abs = math.absf %v : f32
    %m = arith.maximumf %acc, %abs : f32
    linalg.yield %m : f32
  } -> tensor<2xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %diff = tensor.extract %d[%c0] : tensor<2xf32>
  %scale = tensor.extract %d[%c1] : tensor<2xf32>
  return %diff, %scale : f32, f32
}

// Matches when max |got - want| <= 1e-4 * max(1, max |want|).
func.func @report(%got: tensor<?x?xf32>, %want: tensor<?x?xf32>) {
  %diff, %scale = func.call @diff_and_scale(%got, %want) : (tensor<?x?xf32>, tensor<?x?xf32>) -> (f32, f32)
  %one = arith.constant 1.0 : f32
  %rtol = arith.constant 1.0e-4 : f32
  %s = arith.maximumf %scale, %one : f32
  %tol = arith.mulf %s, %rtol : f32
  %ok = arith.cmpf ole, %diff, %tol : f32
  scf.if %ok {
    vector.print str "global_dp_tp_mlp: this rank matches the single-device result\n"
  } else {
    vector.print str "global_dp_tp_mlp: MISMATCH with the single-device result, max |diff| = "
    vector.print %diff : f32
  }
  return
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c10 = arith.constant 10 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %xd = func.call @pattern(%c10, %c16, %c1, %c2, %c5, %c2) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %w1d = func.call @pattern(%c16, %c32, %c3, %c1, %c4, %c1) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %w2d = func.call @pattern(%c32, %c16, %c2, %c3, %c7, %c3) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<10x16xf32>
  %w1 = tensor.cast %w1d : tensor<?x?xf32> to tensor<16x32xf32>
  %w2 = tensor.cast %w2d : tensor<?x?xf32> to tensor<32x16xf32>
  %want = func.call @reference(%x, %w1, %w2) : (tensor<10x16xf32>, tensor<16x32xf32>, tensor<32x16xf32>) -> tensor<10x16xf32>

  // Every rank holds the full inputs; redistribute keeps its blocks.
  %rx = dtensor.from_local %x : tensor<10x16xf32> -> !dtensor.tensor<10x16xf32, @mesh, [replicate, replicate]>
  %dx = dtensor.redistribute %rx : !dtensor.tensor<10x16xf32, @mesh, [replicate, replicate]> -> !dtensor.tensor<10x16xf32, @mesh, [shard<0>, shard<0>]>
  %rw1 = dtensor.from_local %w1 : tensor<16x32xf32> -> !dtensor.tensor<16x32xf32, @mesh, [replicate, replicate]>
  %dw1 = dtensor.redistribute %rw1 : !dtensor.tensor<16x32xf32, @mesh, [replicate, replicate]> -> !dtensor.tensor<16x32xf32, @mesh, [replicate, shard<1>]>
  %rw2 = dtensor.from_local %w2 : tensor<32x16xf32> -> !dtensor.tensor<32x16xf32, @mesh, [replicate, replicate]>
  %dw2 = dtensor.redistribute %rw2 : !dtensor.tensor<32x16xf32, @mesh, [replicate, replicate]> -> !dtensor.tensor<32x16xf32, @mesh, [replicate, shard<0>]>
  %dy = func.call @global_dp_tp_mlp(%dx, %dw1, %dw2)
      : (!dtensor.tensor<10x16xf32, @mesh, [shard<0>, shard<0>]>, !dtensor.tensor<16x32xf32, @mesh, [replicate, shard<1>]>,
         !dtensor.tensor<32x16xf32, @mesh, [replicate, shard<0>]>) -> !dtensor.tensor<10x16xf32, @mesh, [shard<0>, replicate]>
  // Bring the dp-sharded result to every rank to compare all of it.
  %ry = dtensor.redistribute %dy : !dtensor.tensor<10x16xf32, @mesh, [shard<0>, replicate]> -> !dtensor.tensor<10x16xf32, @mesh, [replicate, replicate]>
  %y = dtensor.to_local %ry : !dtensor.tensor<10x16xf32, @mesh, [replicate, replicate]> -> tensor<10x16xf32>

  %yd = tensor.cast %y : tensor<10x16xf32> to tensor<?x?xf32>
  %wd = tensor.cast %want : tensor<10x16xf32> to tensor<?x?xf32>
  func.call @report(%yd, %wd) : (tensor<?x?xf32>, tensor<?x?xf32>) -> ()
  return
}
