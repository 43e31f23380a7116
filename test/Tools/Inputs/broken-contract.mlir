// Helper for hp-runner-compile-once.mlir: the region's result varies over
// the mesh axis its out_placements call replicate, an error that the
// contract check in hp's lowering pipeline reports.
dtensor.mesh @m shape = [2]

func.func @main() {
  %x = arith.constant dense<[0.0, 1.0, 2.0, 3.0]> : tensor<4xf32>
  %d = dtensor.from_local %x : tensor<4xf32> -> !dtensor.tensor<8xf32, @m, [shard<0>]>
  %r = dtensor.local_region on @m args(%d as "x") out_placements = [replicate]
      : (!dtensor.tensor<8xf32, @m, [shard<0>]>) -> !dtensor.tensor<8xf32, @m, [replicate]> {
  ^bb0(%l: tensor<4xf32>):
    %c = tensor.concat dim(0) %l, %l : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
    dtensor.yield %c : tensor<8xf32>
  }
  return
}
