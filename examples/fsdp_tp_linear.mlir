// FSDP over tensor parallelism, as torch's FSDP2 lays out a TP module: a
// row-parallel linear layer on a 2-D mesh, "dp" (2) x "tp" (2). Its weight
// (in x out = 16x8) is split on the input features by tp and each tp shard
// again by dp: torch's [_StridedShard(0, split_factor=2), Shard(0)], hp's
// [strided_shard<0, 2>, shard<0>]. Device (i, j) holds rows 4(i + 2j) ..
// 4(i + 2j) + 3: the 4-row chunks sit tp-major, not in rank order.
//
// The region asks for the weight unsharded over dp, [replicate, shard<0>]:
// one all_gather over dp (the innermost split of the strided layout), where
// torch gathers and then reorders chunks locally. The input is batch-sharded
// on dp and feature-sharded on tp; the product is a partial sum over tp,
// reduced at the end.
//
// @main compares the result of every rank with a single-device run:
//   hp-runner -np 4 examples/fsdp_tp_linear.mlir -e main --entry-point-result=void

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]

func.func @fsdp_tp_linear(%x: !dtensor.tensor<8x16xf32, @mesh, [shard<0>, shard<1>]>,
                          %w: !dtensor.tensor<16x8xf32, @mesh, [strided_shard<0, 2>, shard<0>]>)
    -> !dtensor.tensor<8x8xf32, @mesh, [shard<0>, replicate]> {
  %y = dtensor.local_region on @mesh
      args(%x as "input", %w as "weight")
      in_placements = {weight = [replicate, shard<0>]}
      out_placements = [shard<0>, partial<sum>]
      redistribute_inputs
      : (!dtensor.tensor<8x16xf32, @mesh, [shard<0>, shard<1>]>,
         !dtensor.tensor<16x8xf32, @mesh, [strided_shard<0, 2>, shard<0>]>)
     -> !dtensor.tensor<8x8xf32, @mesh, [shard<0>, partial<sum>]> {
  ^bb0(%xl: tensor<4x8xf32>, %wl: tensor<8x8xf32>):
    %zero = arith.constant 0.0 : f32
    %init = tensor.empty() : tensor<4x8xf32>
    %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
    %mm = linalg.matmul ins(%xl, %wl : tensor<4x8xf32>, tensor<8x8xf32>)
                        outs(%acc : tensor<4x8xf32>) -> tensor<4x8xf32>
    dtensor.yield %mm : tensor<4x8xf32>
  }
  %r = dtensor.redistribute %y : !dtensor.tensor<8x8xf32, @mesh, [shard<0>, partial<sum>]>
                               -> !dtensor.tensor<8x8xf32, @mesh, [shard<0>, replicate]>
  return %r : !dtensor.tensor<8x8xf32, @mesh, [shard<0>, replicate]>
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %x = func.call @pattern(%c8, %c16, %c1, %c2, %c5, %c2) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %w = func.call @pattern(%c16, %c8, %c3, %c1, %c7, %c3) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %want = func.call @reference(%x, %w) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>

  %xs = tensor.cast %x : tensor<?x?xf32> to tensor<8x16xf32>
  %ws = tensor.cast %w : tensor<?x?xf32> to tensor<16x8xf32>
  %rx = dtensor.from_local %xs : tensor<8x16xf32> -> !dtensor.tensor<8x16xf32, @mesh, [replicate, replicate]>
  %dx = dtensor.redistribute %rx : !dtensor.tensor<8x16xf32, @mesh, [replicate, replicate]> -> !dtensor.tensor<8x16xf32, @mesh, [shard<0>, shard<1>]>
  // The weight enters in the FSDP-over-TP layout the way FSDP hands it
  // over: rank (i, j) passes rows 4(i + 2j) .. 4(i + 2j) + 3 (torch's
  // definition, computed here, not by hp).
  %i = dtensor.axis_index @mesh "dp" : index
  %j = dtensor.axis_index @mesh "tp" : index
  %c4 = arith.constant 4 : index
  %j2 = arith.muli %j, %c2 : index
  %chunk = arith.addi %i, %j2 : index
  %row = arith.muli %chunk, %c4 : index
  %wl = tensor.extract_slice %ws[%row, 0] [4, 8] [1, 1] : tensor<16x8xf32> to tensor<4x8xf32>
  %dw = dtensor.from_local %wl : tensor<4x8xf32> -> !dtensor.tensor<16x8xf32, @mesh, [strided_shard<0, 2>, shard<0>]>
  %dy = func.call @fsdp_tp_linear(%dx, %dw)
      : (!dtensor.tensor<8x16xf32, @mesh, [shard<0>, shard<1>]>,
         !dtensor.tensor<16x8xf32, @mesh, [strided_shard<0, 2>, shard<0>]>) -> !dtensor.tensor<8x8xf32, @mesh, [shard<0>, replicate]>
  %ry = dtensor.redistribute %dy : !dtensor.tensor<8x8xf32, @mesh, [shard<0>, replicate]> -> !dtensor.tensor<8x8xf32, @mesh, [replicate, replicate]>
  %y = dtensor.to_local %ry : !dtensor.tensor<8x8xf32, @mesh, [replicate, replicate]> -> tensor<8x8xf32>
  %yd = tensor.cast %y : tensor<8x8xf32> to tensor<?x?xf32>
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

// x @ w on one device.
func.func @reference(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %w, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %y = linalg.matmul ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>) outs(%z : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// max |a - b| over all elements.
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

func.func @report(%diff: f32) {
  %zero = arith.constant 0.0 : f32
  %ok = arith.cmpf oeq, %diff, %zero : f32
  scf.if %ok {
    vector.print str "fsdp_tp_linear: this rank matches the single-device result\n"
  } else {
    vector.print str "fsdp_tp_linear: MISMATCH with the single-device result, max |diff| = "
    vector.print %diff : f32
  }
  return
}
