// RUN: hp-opt %s --mlir-very-unsafe-disable-verifier-on-parsing --mlir-print-assume-verified | FileCheck %s

// Printed without verification (a pass's debug dump of broken IR), a
// contract entry that is neither a placement list nor unit prints as itself,
// not as a valid-looking `none`.

dtensor.mesh @m shape = [2]
// CHECK: in_placements = {x = 3 : i64} out_placements = [#dtensor.shard<0>]
func.func @f(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>) {
  %r = "dtensor.local_region"(%x) <{mesh = @m, arg_names = ["x"], in_placements = {x = 3 : i64}, out_placements = [#dtensor.shard<0>]}> ({
  ^bb0(%l: tensor<4xf32>):
    dtensor.yield %l : tensor<4xf32>
  }) : (!dtensor.tensor<8xf32, @m, [shard<0>]>) -> !dtensor.tensor<8xf32, @m, [shard<0>]>
  return
}
