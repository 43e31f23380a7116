// Resident state in a session on 2 ranks: argument 1 (an accumulator split
// by rows) is read once and carried by the loop; each call adds its input
// to it (result 1, which is not written) and returns twice its input
// (result 0). A "state <n>" request writes the accumulator, gathered, as
// result1.bin of request n's directory.
// REQUIRES: mpi
// RUN: rm -rf %t && mkdir -p %t
// RUN: hp-opt %s -dtensor-add-driver="session-inputs=1 state-args=1 state-results=1" -o %t/p.mlir
// RUN: %python %S/Inputs/session_client.py %hp-runner %t/p.mlir %t/s state | FileCheck %s
// CHECK: call 0: (0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0) result1 written: False
// CHECK: call 1: (20.0, 22.0, 24.0, 26.0, 28.0, 30.0, 32.0, 34.0) result1 written: False
// CHECK: call 2: (40.0, 42.0, 44.0, 46.0, 48.0, 50.0, 52.0, 54.0) result1 written: False
// The accumulator 1..8 plus (0..7) + (10..17) + (20..27):
// CHECK: state: (31.0, 35.0, 39.0, 43.0, 47.0, 51.0, 55.0, 59.0)
// CHECK: call 4: (2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0) result1 written: False
// CHECK: state: (32.0, 36.0, 40.0, 44.0, 48.0, 52.0, 56.0, 60.0)
// CHECK: exit 0

dtensor.mesh @tp shape = [2]

func.func @forward(%x: !dtensor.tensor<2x4xf32, @tp, [replicate]>,
                   %acc: !dtensor.tensor<2x4xf32, @tp, [shard<0>]>)
    -> (!dtensor.tensor<2x4xf32, @tp, [replicate]>, !dtensor.tensor<2x4xf32, @tp, [shard<0>]>) {
  %y:2 = dtensor.global_region on @tp args(%x, %acc)
      : (!dtensor.tensor<2x4xf32, @tp, [replicate]>, !dtensor.tensor<2x4xf32, @tp, [shard<0>]>)
     -> (!dtensor.tensor<2x4xf32, @tp, [replicate]>, !dtensor.tensor<2x4xf32, @tp, [shard<0>]>) {
  ^bb0(%gx: tensor<2x4xf32>, %ga: tensor<2x4xf32>):
    %d = arith.addf %gx, %gx : tensor<2x4xf32>
    %s = arith.addf %ga, %gx : tensor<2x4xf32>
    dtensor.yield %d, %s : tensor<2x4xf32>, tensor<2x4xf32>
  }
  return %y#0, %y#1 : !dtensor.tensor<2x4xf32, @tp, [replicate]>, !dtensor.tensor<2x4xf32, @tp, [shard<0>]>
}
