// Helper for hp-runner.mlir: an all_gather of 8 elements over 2 ranks.
dtensor.mesh @m shape = [2]
func.func @gather(%s: !dtensor.tensor<8xf32, @m, [shard<0>]>) -> !dtensor.tensor<8xf32, @m, [replicate]> {
  %r = dtensor.redistribute %s : !dtensor.tensor<8xf32, @m, [shard<0>]> -> !dtensor.tensor<8xf32, @m, [replicate]>
  return %r : !dtensor.tensor<8xf32, @m, [replicate]>
}
func.func @main() {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %x = arith.constant dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]> : tensor<8xf32>
  %d = dtensor.from_local %x : tensor<8xf32> -> !dtensor.tensor<8xf32, @m, [replicate]>
  %s = dtensor.redistribute %d : !dtensor.tensor<8xf32, @m, [replicate]> -> !dtensor.tensor<8xf32, @m, [shard<0>]>
  %g = func.call @gather(%s) : (!dtensor.tensor<8xf32, @m, [shard<0>]>) -> !dtensor.tensor<8xf32, @m, [replicate]>
  %l = dtensor.to_local %g : !dtensor.tensor<8xf32, @m, [replicate]> -> tensor<8xf32>
  %v = vector.transfer_read %l[%c0], %f0 : tensor<8xf32>, vector<8xf32>
  vector.print %v : vector<8xf32>
  return
}
