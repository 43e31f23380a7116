// RUN: hp-opt %s -split-input-file -dtensor-add-driver="session-inputs=1 state-args=1 state-results=1 extra-entries=prefill" -verify-diagnostics | FileCheck %s

// extra-entries=prefill: a call asks hp_session_entry which function runs
// (with the number of entries); an scf.index_switch runs @prefill for 1
// and @forward otherwise, each reading its own per-call arguments, calling
// with the shared state and yielding the updated state.
dtensor.mesh @tp shape = [2]

func.func @forward(%x: !dtensor.tensor<4xf32, @tp, [replicate]>,
                   %s: !dtensor.tensor<4xf32, @tp, [shard<0>]>)
    -> (!dtensor.tensor<4xf32, @tp, [replicate]>, !dtensor.tensor<4xf32, @tp, [shard<0>]>) {
  return %x, %s : !dtensor.tensor<4xf32, @tp, [replicate]>, !dtensor.tensor<4xf32, @tp, [shard<0>]>
}
func.func @prefill(%a: tensor<2xi64>, %b: !dtensor.tensor<8xf32, @tp, [replicate]>,
                   %s: !dtensor.tensor<4xf32, @tp, [shard<0>]>)
    -> (!dtensor.tensor<8xf32, @tp, [replicate]>, !dtensor.tensor<4xf32, @tp, [shard<0>]>) {
  return %b, %s : !dtensor.tensor<8xf32, @tp, [replicate]>, !dtensor.tensor<4xf32, @tp, [shard<0>]>
}

// CHECK-DAG:     func.func private @hp_session_entry(i64) -> i64
// CHECK-LABEL:   func.func @main() {
// CHECK:           scf.while
// CHECK:           } else {
// CHECK:             %[[COUNT:.*]] = arith.constant 2 : i64
// CHECK:             %[[E:.*]] = func.call @hp_session_entry(%[[COUNT]]) : (i64) -> i64
// CHECK:             %[[I:.*]] = arith.index_cast %[[E]] : i64 to index
// CHECK:             %[[NEXT:.*]] = scf.index_switch %[[I]] -> !dtensor.tensor<4xf32, @tp, [shard<0>]>
// CHECK:             case 1 {
// CHECK:               %[[A:.*]] = bufferization.to_tensor {{.*}} : memref<2xi64> to tensor<2xi64>
// CHECK:               %[[B:.*]] = dtensor.from_local {{.*}} -> !dtensor.tensor<8xf32, @tp, [replicate]>
// CHECK:               %[[P:.*]]:2 = func.call @prefill(%[[A]], %[[B]], %{{.*}})
// CHECK:               func.call @hp_write_tensor
// CHECK:               scf.yield %[[P]]#1
// CHECK:             default {
// CHECK:               %[[F:.*]]:2 = func.call @forward(
// CHECK:               scf.yield %[[F]]#1
// CHECK:             scf.yield %[[NEXT]]

// -----

dtensor.mesh @tp shape = [2]
func.func @forward(%x: !dtensor.tensor<4xf32, @tp, [replicate]>,
                   %s: !dtensor.tensor<4xf32, @tp, [shard<0>]>)
    -> (!dtensor.tensor<4xf32, @tp, [replicate]>, !dtensor.tensor<4xf32, @tp, [shard<0>]>) {
  return %x, %s : !dtensor.tensor<4xf32, @tp, [replicate]>, !dtensor.tensor<4xf32, @tp, [shard<0>]>
}
// The shared arguments (here the state) must end every entry.
// expected-error @below {{dtensor-add-driver: extra entry @prefill must end with @forward's 1 shared arguments ('!dtensor.tensor<4xf32, @tp, [shard<0>]>'), which every entry reads once}}
func.func @prefill(%s: !dtensor.tensor<4xf32, @tp, [replicate]>)
    -> (!dtensor.tensor<4xf32, @tp, [replicate]>, !dtensor.tensor<4xf32, @tp, [shard<0>]>) {
  %r = dtensor.redistribute %s : !dtensor.tensor<4xf32, @tp, [replicate]> -> !dtensor.tensor<4xf32, @tp, [shard<0>]>
  return %s, %r : !dtensor.tensor<4xf32, @tp, [replicate]>, !dtensor.tensor<4xf32, @tp, [shard<0>]>
}

// -----

dtensor.mesh @tp shape = [2]
func.func @forward(%x: !dtensor.tensor<4xf32, @tp, [replicate]>,
                   %s: !dtensor.tensor<4xf32, @tp, [shard<0>]>)
    -> (!dtensor.tensor<4xf32, @tp, [replicate]>, !dtensor.tensor<4xf32, @tp, [shard<0>]>) {
  return %x, %s : !dtensor.tensor<4xf32, @tp, [replicate]>, !dtensor.tensor<4xf32, @tp, [shard<0>]>
}
// Its state results have the entry's types.
// expected-error @below {{dtensor-add-driver: extra entry @prefill's result 1 must update state argument 1 as @forward's does ('!dtensor.tensor<4xf32, @tp, [shard<0>]>')}}
func.func @prefill(%s: !dtensor.tensor<4xf32, @tp, [shard<0>]>)
    -> !dtensor.tensor<4xf32, @tp, [shard<0>]> {
  return %s : !dtensor.tensor<4xf32, @tp, [shard<0>]>
}

// -----

dtensor.mesh @tp shape = [2]
// expected-error @below {{dtensor-add-driver: extra entry @prefill is not a function with a body in the module}}
func.func @forward(%x: !dtensor.tensor<4xf32, @tp, [replicate]>,
                   %s: !dtensor.tensor<4xf32, @tp, [shard<0>]>)
    -> (!dtensor.tensor<4xf32, @tp, [replicate]>, !dtensor.tensor<4xf32, @tp, [shard<0>]>) {
  return %x, %s : !dtensor.tensor<4xf32, @tp, [replicate]>, !dtensor.tensor<4xf32, @tp, [shard<0>]>
}
