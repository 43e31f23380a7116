// A tensor-parallel MLP (Megatron style) on a 1-D "tp" mesh of 4 devices,
// written with local regions:
//   h = relu(x @ w1)   column-parallel: w1 sharded on its output dim
//   y = h @ w2         row-parallel:    w2 sharded on its input dim
// The row-parallel region yields per-rank partial sums; one redistribute
// (an all_reduce once lowered) makes y replicated.
//
// @main builds the inputs, lays them out on the mesh, runs @tp_mlp on every
// rank and compares the result with the same MLP computed on one device:
//   hp-runner -np 4 examples/tp_mlp.mlir -e main --entry-point-result=void

dtensor.mesh @tp shape = [4] names = ["tp"]

func.func @tp_mlp(%x: !dtensor.tensor<8x16xf32, @tp, [replicate]>,
                  %w1: !dtensor.tensor<16x32xf32, @tp, [shard<1>]>,
                  %w2: !dtensor.tensor<32x16xf32, @tp, [shard<0>]>)
    -> !dtensor.tensor<8x16xf32, @tp, [replicate]> {
  %h = dtensor.local_region on @tp
      args(%x as "input", %w1 as "weight")
      in_placements = {input = [replicate], weight = [shard<1>]}
      out_placements = [shard<1>]
      : (!dtensor.tensor<8x16xf32, @tp, [replicate]>,
         !dtensor.tensor<16x32xf32, @tp, [shard<1>]>)
     -> !dtensor.tensor<8x32xf32, @tp, [shard<1>]> {
  ^bb0(%xl: tensor<8x16xf32>, %wl: tensor<16x8xf32>):
    %zero = arith.constant 0.0 : f32
    %init = tensor.empty() : tensor<8x8xf32>
    %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<8x8xf32>) -> tensor<8x8xf32>
    %mm = linalg.matmul ins(%xl, %wl : tensor<8x16xf32>, tensor<16x8xf32>)
                        outs(%acc : tensor<8x8xf32>) -> tensor<8x8xf32>
    %relu = linalg.map { arith.maximumf } ins(%mm, %acc : tensor<8x8xf32>, tensor<8x8xf32>)
                                          outs(%init : tensor<8x8xf32>)
    dtensor.yield %relu : tensor<8x8xf32>
  }

  %y = dtensor.local_region on @tp
      args(%h as "hidden", %w2 as "weight")
      in_placements = {hidden = [shard<1>], weight = [shard<0>]}
      out_placements = [partial<sum>]
      : (!dtensor.tensor<8x32xf32, @tp, [shard<1>]>,
         !dtensor.tensor<32x16xf32, @tp, [shard<0>]>)
     -> !dtensor.tensor<8x16xf32, @tp, [partial<sum>]> {
  ^bb0(%hl: tensor<8x8xf32>, %wl: tensor<8x16xf32>):
    %zero = arith.constant 0.0 : f32
    %init = tensor.empty() : tensor<8x16xf32>
    %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<8x16xf32>) -> tensor<8x16xf32>
    %mm = linalg.matmul ins(%hl, %wl : tensor<8x8xf32>, tensor<8x16xf32>)
                        outs(%acc : tensor<8x16xf32>) -> tensor<8x16xf32>
    dtensor.yield %mm : tensor<8x16xf32>
  }

  %r = dtensor.redistribute %y : !dtensor.tensor<8x16xf32, @tp, [partial<sum>]>
                               -> !dtensor.tensor<8x16xf32, @tp, [replicate]>
  return %r : !dtensor.tensor<8x16xf32, @tp, [replicate]>
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %x = func.call @pattern(%c8, %c16, %c1, %c2, %c5, %c2) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %w1 = func.call @pattern(%c16, %c32, %c3, %c1, %c4, %c1) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %w2 = func.call @pattern(%c32, %c16, %c2, %c3, %c7, %c3) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %want = func.call @reference(%x, %w1, %w2) : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>

  // Every rank holds the full inputs; redistribute keeps its shard.
  %xs = tensor.cast %x : tensor<?x?xf32> to tensor<8x16xf32>
  %w1s = tensor.cast %w1 : tensor<?x?xf32> to tensor<16x32xf32>
  %w2s = tensor.cast %w2 : tensor<?x?xf32> to tensor<32x16xf32>
  %dx = dtensor.from_local %xs : tensor<8x16xf32> -> !dtensor.tensor<8x16xf32, @tp, [replicate]>
  %rw1 = dtensor.from_local %w1s : tensor<16x32xf32> -> !dtensor.tensor<16x32xf32, @tp, [replicate]>
  %dw1 = dtensor.redistribute %rw1 : !dtensor.tensor<16x32xf32, @tp, [replicate]> -> !dtensor.tensor<16x32xf32, @tp, [shard<1>]>
  %rw2 = dtensor.from_local %w2s : tensor<32x16xf32> -> !dtensor.tensor<32x16xf32, @tp, [replicate]>
  %dw2 = dtensor.redistribute %rw2 : !dtensor.tensor<32x16xf32, @tp, [replicate]> -> !dtensor.tensor<32x16xf32, @tp, [shard<0>]>
  %dy = func.call @tp_mlp(%dx, %dw1, %dw2)
      : (!dtensor.tensor<8x16xf32, @tp, [replicate]>, !dtensor.tensor<16x32xf32, @tp, [shard<1>]>,
         !dtensor.tensor<32x16xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8x16xf32, @tp, [replicate]>
  %y = dtensor.to_local %dy : !dtensor.tensor<8x16xf32, @tp, [replicate]> -> tensor<8x16xf32>
  %yd = tensor.cast %y : tensor<8x16xf32> to tensor<?x?xf32>
  %diff = func.call @max_abs_diff(%yd, %want) : (tensor<?x?xf32>, tensor<?x?xf32>) -> f32
  func.call @report(%diff) : (f32) -> ()
  return
}

//===----------------------------------------------------------------------===//
// Single-device reference and checking, used by @main only.
//===----------------------------------------------------------------------===//

// value[i, j] = ((a i + b j) mod m) - off: small integers, so every product
// and sum below is exact in f32 whatever the summation order.
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

// relu(x @ w1) @ w2 on one device.
func.func @reference(%x: tensor<?x?xf32>, %w1: tensor<?x?xf32>, %w2: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %h = tensor.dim %w1, %c1 : tensor<?x?xf32>
  %n = tensor.dim %w2, %c1 : tensor<?x?xf32>
  %e1 = tensor.empty(%m, %h) : tensor<?x?xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm1 = linalg.matmul ins(%x, %w1 : tensor<?x?xf32>, tensor<?x?xf32>) outs(%z1 : tensor<?x?xf32>) -> tensor<?x?xf32>
  %relu = linalg.map { arith.maximumf } ins(%mm1, %z1 : tensor<?x?xf32>, tensor<?x?xf32>) outs(%e1 : tensor<?x?xf32>)
  %e2 = tensor.empty(%m, %n) : tensor<?x?xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<?x?xf32>) -> tensor<?x?xf32>
  %y = linalg.matmul ins(%relu, %w2 : tensor<?x?xf32>, tensor<?x?xf32>) outs(%z2 : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// max |a - b| over all elements.
func.func @max_abs_diff(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> f32 {
  %zero = arith.constant 0.0 : f32
  %init = tensor.from_elements %zero : tensor<f32>
  %d = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                       iterator_types = ["reduction", "reduction"]}
      ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%init : tensor<f32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %s = arith.subf %x, %y : f32
    %abs = math.absf %s : f32
    %m = arith.maximumf %acc, %abs : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %v = tensor.extract %d[] : tensor<f32>
  return %v : f32
}

func.func @report(%diff: f32) {
  %zero = arith.constant 0.0 : f32
  %ok = arith.cmpf oeq, %diff, %zero : f32
  scf.if %ok {
    vector.print str "tp_mlp: this rank matches the single-device result\n"
  } else {
    vector.print str "tp_mlp: MISMATCH with the single-device result, max |diff| = "
    vector.print %diff : f32
  }
  return
}
