// An editor's view of a file with two mistakes: a typo in an in_placements
// key (a warning) and a block argument that is not the local type (an error).
dtensor.mesh @tp shape = [4] names = ["tp"]

func.func @f(%x: !dtensor.tensor<8xf32, @tp, [shard<0>]>) {
  dtensor.local_region on @tp args(%x as "hidden") in_placements = {hiden = [shard<0>]}
      : (!dtensor.tensor<8xf32, @tp, [shard<0>]>) -> () {
  ^bb0(%l: tensor<4xf32>):
    dtensor.yield
  }
  return
}
