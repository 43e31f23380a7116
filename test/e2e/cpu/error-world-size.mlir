// A launch whose rank count differs from the mesh size fails with a message
// that names the mesh and the fix, on every rank, instead of hanging.
// REQUIRES: mpi
// RUN: not %hp-runner -np 2 %s -e main --entry-point-result=void 2>&1 | FileCheck %s
// CHECK: hp: rank {{[01]}}: grid @m has 4 devices but the job has 2 ranks; launch with -np 4

dtensor.mesh @m shape = [4]
func.func @f(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>) -> !dtensor.tensor<8xf32, @m, [replicate]> {
  %r = dtensor.redistribute %x : !dtensor.tensor<8xf32, @m, [shard<0>]> -> !dtensor.tensor<8xf32, @m, [replicate]>
  return %r : !dtensor.tensor<8xf32, @m, [replicate]>
}
func.func @main() {
  %x = arith.constant dense<1.0> : tensor<2xf32>
  %d = dtensor.from_local %x : tensor<2xf32> -> !dtensor.tensor<8xf32, @m, [shard<0>]>
  %r = func.call @f(%d) : (!dtensor.tensor<8xf32, @m, [shard<0>]>) -> !dtensor.tensor<8xf32, @m, [replicate]>
  return
}
