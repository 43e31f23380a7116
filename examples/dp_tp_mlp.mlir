// The same MLP on a 2-D mesh: data parallel over "dp" (2) and tensor
// parallel over "tp" (2), four ranks in all. The batch is sharded on dp; the weights are
// replicated over dp and sharded over tp. The input arrives batch-sharded
// on both axes (as a data loader would hand it out), and the first region
// asks for it replicated over tp with redistribute_inputs. Split over all 4
// devices the 10 rows are uneven (torch.chunk: 3,2 within each dp half), so
// only the region's declared layout gives the body static shapes.
//
// @main compares the result of every rank with a single-device run:
//   hp-runner -np 4 examples/dp_tp_mlp.mlir -e main --entry-point-result=void

dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]

func.func @dp_tp_mlp(%x: !dtensor.tensor<10x16xf32, @mesh, [shard<0>, shard<0>]>,
                     %w1: !dtensor.tensor<16x32xf32, @mesh, [replicate, shard<1>]>,
                     %w2: !dtensor.tensor<32x16xf32, @mesh, [replicate, shard<0>]>)
    -> !dtensor.tensor<10x16xf32, @mesh, [shard<0>, replicate]> {
  %h = dtensor.local_region on @mesh
      args(%x as "input", %w1 as "weight")
      in_placements = {input = [shard<0>, replicate], weight = [replicate, shard<1>]}
      out_placements = [shard<0>, shard<1>]
      redistribute_inputs
      : (!dtensor.tensor<10x16xf32, @mesh, [shard<0>, shard<0>]>,
         !dtensor.tensor<16x32xf32, @mesh, [replicate, shard<1>]>)
     -> !dtensor.tensor<10x32xf32, @mesh, [shard<0>, shard<1>]> {
  ^bb0(%xl: tensor<5x16xf32>, %wl: tensor<16x16xf32>):
    %zero = arith.constant 0.0 : f32
    %init = tensor.empty() : tensor<5x16xf32>
    %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<5x16xf32>) -> tensor<5x16xf32>
    %mm = linalg.matmul ins(%xl, %wl : tensor<5x16xf32>, tensor<16x16xf32>)
                        outs(%acc : tensor<5x16xf32>) -> tensor<5x16xf32>
    %relu = linalg.map { arith.maximumf } ins(%mm, %acc : tensor<5x16xf32>, tensor<5x16xf32>)
                                          outs(%init : tensor<5x16xf32>)
    dtensor.yield %relu : tensor<5x16xf32>
  }

  %y = dtensor.local_region on @mesh
      args(%h as "hidden", %w2 as "weight")
      in_placements = {hidden = [shard<0>, shard<1>], weight = [replicate, shard<0>]}
      out_placements = [shard<0>, partial<sum>]
      : (!dtensor.tensor<10x32xf32, @mesh, [shard<0>, shard<1>]>,
         !dtensor.tensor<32x16xf32, @mesh, [replicate, shard<0>]>)
     -> !dtensor.tensor<10x16xf32, @mesh, [shard<0>, partial<sum>]> {
  ^bb0(%hl: tensor<5x16xf32>, %wl: tensor<16x16xf32>):
    %zero = arith.constant 0.0 : f32
    %init = tensor.empty() : tensor<5x16xf32>
    %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<5x16xf32>) -> tensor<5x16xf32>
    %mm = linalg.matmul ins(%hl, %wl : tensor<5x16xf32>, tensor<16x16xf32>)
                        outs(%acc : tensor<5x16xf32>) -> tensor<5x16xf32>
    dtensor.yield %mm : tensor<5x16xf32>
  }

  %r = dtensor.redistribute %y : !dtensor.tensor<10x16xf32, @mesh, [shard<0>, partial<sum>]>
                               -> !dtensor.tensor<10x16xf32, @mesh, [shard<0>, replicate]>
  return %r : !dtensor.tensor<10x16xf32, @mesh, [shard<0>, replicate]>
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c10 = arith.constant 10 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %x = func.call @pattern(%c10, %c16, %c1, %c2, %c5, %c2) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %w1 = func.call @pattern(%c16, %c32, %c3, %c1, %c4, %c1) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %w2 = func.call @pattern(%c32, %c16, %c2, %c3, %c7, %c3) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %want = func.call @reference(%x, %w1, %w2) : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>

  %xs = tensor.cast %x : tensor<?x?xf32> to tensor<10x16xf32>
  %w1s = tensor.cast %w1 : tensor<?x?xf32> to tensor<16x32xf32>
  %w2s = tensor.cast %w2 : tensor<?x?xf32> to tensor<32x16xf32>
  %rx = dtensor.from_local %xs : tensor<10x16xf32> -> !dtensor.tensor<10x16xf32, @mesh, [replicate, replicate]>
  %dx = dtensor.redistribute %rx : !dtensor.tensor<10x16xf32, @mesh, [replicate, replicate]> -> !dtensor.tensor<10x16xf32, @mesh, [shard<0>, shard<0>]>
  %rw1 = dtensor.from_local %w1s : tensor<16x32xf32> -> !dtensor.tensor<16x32xf32, @mesh, [replicate, replicate]>
  %dw1 = dtensor.redistribute %rw1 : !dtensor.tensor<16x32xf32, @mesh, [replicate, replicate]> -> !dtensor.tensor<16x32xf32, @mesh, [replicate, shard<1>]>
  %rw2 = dtensor.from_local %w2s : tensor<32x16xf32> -> !dtensor.tensor<32x16xf32, @mesh, [replicate, replicate]>
  %dw2 = dtensor.redistribute %rw2 : !dtensor.tensor<32x16xf32, @mesh, [replicate, replicate]> -> !dtensor.tensor<32x16xf32, @mesh, [replicate, shard<0>]>
  %dy = func.call @dp_tp_mlp(%dx, %dw1, %dw2)
      : (!dtensor.tensor<10x16xf32, @mesh, [shard<0>, shard<0>]>, !dtensor.tensor<16x32xf32, @mesh, [replicate, shard<1>]>,
         !dtensor.tensor<32x16xf32, @mesh, [replicate, shard<0>]>) -> !dtensor.tensor<10x16xf32, @mesh, [shard<0>, replicate]>
  // Bring the dp-sharded result to every rank to compare all of it.
  %ry = dtensor.redistribute %dy : !dtensor.tensor<10x16xf32, @mesh, [shard<0>, replicate]> -> !dtensor.tensor<10x16xf32, @mesh, [replicate, replicate]>
  %y = dtensor.to_local %ry : !dtensor.tensor<10x16xf32, @mesh, [replicate, replicate]> -> tensor<10x16xf32>
  %yd = tensor.cast %y : tensor<10x16xf32> to tensor<?x?xf32>
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
    vector.print str "dp_tp_mlp: this rank matches the single-device result\n"
  } else {
    vector.print str "dp_tp_mlp: MISMATCH with the single-device result, max |diff| = "
    vector.print %diff : f32
  }
  return
}
