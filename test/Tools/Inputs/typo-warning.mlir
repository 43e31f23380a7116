// Helper for hp-runner-compile-once.mlir: in_placements names 'hiden', a
// likely typo of the argument 'hidden' (a warning), and the program runs.
dtensor.mesh @m shape = [2]

func.func @main() {
  %x = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %d = dtensor.from_local %x : tensor<2xf32> -> !dtensor.tensor<2xf32, @m, [replicate]>
  %r = dtensor.local_region on @m args(%d as "hidden")
      in_placements = {hiden = [replicate]} out_placements = [replicate]
      : (!dtensor.tensor<2xf32, @m, [replicate]>) -> !dtensor.tensor<2xf32, @m, [replicate]> {
  ^bb0(%l: tensor<2xf32>):
    dtensor.yield %l : tensor<2xf32>
  }
  vector.print str "ran\n"
  return
}
