// The same MLP on a 2-D mesh: data parallel over "dp" (2) and tensor
// parallel over "tp" (4). The batch is sharded on dp; the weights are
// replicated over dp and sharded over tp. The input arrives batch-sharded
// on both axes (as a data loader would hand it out), and the first region
// asks for it replicated over tp with redistribute_inputs. Split over all 8
// devices the 10 rows are uneven (torch.chunk: 2,2,1,0 within each dp half),
// so only the region's declared layout gives the body static shapes.

dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]

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
  ^bb0(%xl: tensor<5x16xf32>, %wl: tensor<16x8xf32>):
    %zero = arith.constant 0.0 : f32
    %init = tensor.empty() : tensor<5x8xf32>
    %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<5x8xf32>) -> tensor<5x8xf32>
    %mm = linalg.matmul ins(%xl, %wl : tensor<5x16xf32>, tensor<16x8xf32>)
                        outs(%acc : tensor<5x8xf32>) -> tensor<5x8xf32>
    %relu = linalg.map { arith.maximumf } ins(%mm, %acc : tensor<5x8xf32>, tensor<5x8xf32>)
                                          outs(%init : tensor<5x8xf32>)
    dtensor.yield %relu : tensor<5x8xf32>
  }

  %y = dtensor.local_region on @mesh
      args(%h as "hidden", %w2 as "weight")
      in_placements = {hidden = [shard<0>, shard<1>], weight = [replicate, shard<0>]}
      out_placements = [shard<0>, partial<sum>]
      : (!dtensor.tensor<10x32xf32, @mesh, [shard<0>, shard<1>]>,
         !dtensor.tensor<32x16xf32, @mesh, [replicate, shard<0>]>)
     -> !dtensor.tensor<10x16xf32, @mesh, [shard<0>, partial<sum>]> {
  ^bb0(%hl: tensor<5x8xf32>, %wl: tensor<8x16xf32>):
    %zero = arith.constant 0.0 : f32
    %init = tensor.empty() : tensor<5x16xf32>
    %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<5x16xf32>) -> tensor<5x16xf32>
    %mm = linalg.matmul ins(%hl, %wl : tensor<5x8xf32>, tensor<8x16xf32>)
                        outs(%acc : tensor<5x16xf32>) -> tensor<5x16xf32>
    dtensor.yield %mm : tensor<5x16xf32>
  }

  %r = dtensor.redistribute %y : !dtensor.tensor<10x16xf32, @mesh, [shard<0>, partial<sum>]>
                               -> !dtensor.tensor<10x16xf32, @mesh, [shard<0>, replicate]>
  return %r : !dtensor.tensor<10x16xf32, @mesh, [shard<0>, replicate]>
}
