// Two entries on one session (dtensor-add-driver{extra-entries=scale}) on 2
// ranks: @forward adds its input to a resident accumulator split by rows
// (as session-state.mlir); @scale, on the same ranks and state, returns the
// accumulator as it is and multiplies it by its input. '<n> 1' calls
// @scale; an entry index past the entries ends the job naming it, and so
// does a nonzero index to a program with one entry.
// REQUIRES: mpi
// RUN: rm -rf %t && mkdir -p %t
// RUN: hp-opt %s -dtensor-add-driver="session-inputs=1 state-args=1 state-results=1 extra-entries=scale" -o %t/p.mlir
// RUN: %python %S/Inputs/session_client.py %hp-runner %t/p.mlir %t/s entries | FileCheck %s
// CHECK: call 2: (40.0, 42.0, 44.0, 46.0, 48.0, 50.0, 52.0, 54.0) result1 written: False
// The accumulator 1..8 plus (0..7) + (10..17) + (20..27), then doubled:
// CHECK: entry 1: (31.0, 35.0, 39.0, 43.0, 47.0, 51.0, 55.0, 59.0)
// CHECK: state: (62.0, 70.0, 78.0, 86.0, 94.0, 102.0, 110.0, 118.0)
// CHECK: hp_session_entry: request 5 names entry 7, but the program serves 2 (0 to 1)
// CHECK-NOT: exit 0
// RUN: hp-opt %s -dtensor-add-driver="session-inputs=1 state-args=1 state-results=1" -o %t/one.mlir
// RUN: %python %S/Inputs/session_client.py %hp-runner %t/one.mlir %t/o badentry | FileCheck %s --check-prefix=ONE
// ONE: request 0 names entry 1, but the program serves one entry (0)
// ONE-NOT: exit 0

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

func.func @scale(%f: !dtensor.tensor<2x4xf32, @tp, [replicate]>,
                 %acc: !dtensor.tensor<2x4xf32, @tp, [shard<0>]>)
    -> (!dtensor.tensor<2x4xf32, @tp, [replicate]>, !dtensor.tensor<2x4xf32, @tp, [shard<0>]>) {
  %y:2 = dtensor.global_region on @tp args(%f, %acc)
      : (!dtensor.tensor<2x4xf32, @tp, [replicate]>, !dtensor.tensor<2x4xf32, @tp, [shard<0>]>)
     -> (!dtensor.tensor<2x4xf32, @tp, [replicate]>, !dtensor.tensor<2x4xf32, @tp, [shard<0>]>) {
  ^bb0(%gf: tensor<2x4xf32>, %ga: tensor<2x4xf32>):
    %m = arith.mulf %ga, %gf : tensor<2x4xf32>
    dtensor.yield %ga, %m : tensor<2x4xf32>, tensor<2x4xf32>
  }
  return %y#0, %y#1 : !dtensor.tensor<2x4xf32, @tp, [replicate]>, !dtensor.tensor<2x4xf32, @tp, [shard<0>]>
}
