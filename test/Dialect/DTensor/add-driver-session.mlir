// RUN: hp-opt %s -dtensor-add-driver=session-inputs=1 | FileCheck %s
// RUN: hp-opt %s -dtensor-add-driver="session-inputs=1 state-args=1 state-results=0" | FileCheck %s --check-prefix=STATE
// RUN: not hp-opt %s -dtensor-add-driver=session-inputs=4 2>&1 | FileCheck %s --check-prefix=TOO-MANY
// RUN: not hp-opt %s -dtensor-add-driver=session-inputs=-2 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not hp-opt %s -dtensor-add-driver="session-inputs=1 repeat=2" 2>&1 | FileCheck %s --check-prefix=REPEAT
// RUN: not hp-opt %s -dtensor-add-driver="state-args=1 state-results=0" 2>&1 | FileCheck %s --check-prefix=NO-SESSION
// RUN: not hp-opt %s -dtensor-add-driver="session-inputs=1 state-args=1" 2>&1 | FileCheck %s --check-prefix=UNPAIRED
// RUN: not hp-opt %s -dtensor-add-driver="session-inputs=1 state-args=0 state-results=0" 2>&1 | FileCheck %s --check-prefix=PER-CALL
// RUN: not hp-opt %s -dtensor-add-driver="session-inputs=1 state-args=1 state-results=1" 2>&1 | FileCheck %s --check-prefix=NO-RESULT
// RUN: not hp-opt %s -dtensor-add-driver="session-inputs=0 state-args=0,1 state-results=0,0" 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not hp-opt %s -dtensor-add-driver="session-inputs=0 state-args=2 state-results=0" 2>&1 | FileCheck %s --check-prefix=OTHER
// RUN: not hp-opt %s -dtensor-add-driver="extra-entries=forward" 2>&1 | FileCheck %s --check-prefix=ENTRY-NO-SESSION
// RUN: not hp-opt %s -dtensor-add-driver="session-inputs=1 extra-entries=forward" 2>&1 | FileCheck %s --check-prefix=ENTRY-TWICE

// session-inputs=1: argument 1 (the weight) is read once, each rank its
// block, in front of the
// loop; hp_session_next = -1 ends it; a call (>= 0) reads argument 0,
// calls @forward, writes the result and reports done; -2 (the state) has
// nothing to write without state-args.

dtensor.mesh @tp shape = [2]

func.func @forward(%x: !dtensor.tensor<4xf32, @tp, [replicate]>,
                   %w: !dtensor.tensor<4xf32, @tp, [shard<0>]>,
                   %c: tensor<3xi64>)
    -> !dtensor.tensor<4xf32, @tp, [shard<0>]> {
  return %w : !dtensor.tensor<4xf32, @tp, [shard<0>]>
}

// CHECK-DAG:   func.func private @hp_session_next() -> i64
// CHECK-DAG:   func.func private @hp_session_done()
// CHECK-LABEL: func.func @main() {
// CHECK:         %[[S1:.*]] = arith.constant 1 : i64
// CHECK:         call @hp_read_tensor_block(%[[S1]],
// CHECK:         %[[W:.*]] = dtensor.from_local {{.*}} -> !dtensor.tensor<4xf32, @tp, [shard<0>]>
// CHECK:         %[[S2:.*]] = arith.constant 2 : i64
// CHECK:         call @hp_read_tensor(%[[S2]],
// CHECK:         %[[C:.*]] = bufferization.to_tensor {{.*}} : memref<3xi64> to tensor<3xi64>
// CHECK:         scf.while : () -> i64 {
// CHECK-NEXT:      %[[N:.*]] = func.call @hp_session_next() : () -> i64
// CHECK-NEXT:      %[[STOP:.*]] = arith.constant -1 : i64
// CHECK-NEXT:      %[[GO:.*]] = arith.cmpi ne, %[[N]], %[[STOP]] : i64
// CHECK-NEXT:      scf.condition(%[[GO]]) %[[N]] : i64
// CHECK-NEXT:    } do {
// CHECK-NEXT:    ^bb0(%[[CALL:.*]]: i64):
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0 : i64
// CHECK-NEXT:      %[[FETCH:.*]] = arith.cmpi slt, %[[CALL]], %[[Z]] : i64
// CHECK-NEXT:      scf.if %[[FETCH]] {
// CHECK-NEXT:      } else {
// One entry: asked all the same, so that the runtime refuses a request
// naming another before anything is read.
// CHECK-NEXT:        %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-NEXT:        func.call @hp_session_entry(%[[ONE]]) : (i64) -> i64
// CHECK:             %[[S0:.*]] = arith.constant 0 : i64
// CHECK:             func.call @hp_read_tensor(%[[S0]],
// CHECK:             %[[X:.*]] = dtensor.from_local
// CHECK-NEXT:        %[[Y:.*]] = func.call @forward(%[[X]], %[[W]], %[[C]])
// CHECK:             dtensor.redistribute %[[Y]]
// CHECK:             func.call @hp_write_tensor
// CHECK-NEXT:      }
// CHECK-NEXT:      func.call @hp_session_done() : () -> ()
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return

// state-args=1 state-results=0: the loop carries argument 1; a call yields
// its result 0 (not written) as the next call's argument 1; -2 writes the
// carried value, gathered, as result file 0.
// STATE:         %[[W:.*]] = dtensor.from_local {{.*}} -> !dtensor.tensor<4xf32, @tp, [shard<0>]>
// STATE:         scf.while (%[[CUR:.*]] = %[[W]]) : (!dtensor.tensor<4xf32, @tp, [shard<0>]>) -> (i64, !dtensor.tensor<4xf32, @tp, [shard<0>]>) {
// STATE:           scf.condition(%{{.*}}) %{{.*}}, %[[CUR]] : i64, !dtensor.tensor<4xf32, @tp, [shard<0>]>
// STATE-NEXT:    } do {
// STATE-NEXT:    ^bb0(%{{.*}}: i64, %[[NOW:.*]]: !dtensor.tensor<4xf32, @tp, [shard<0>]>):
// STATE:           %[[NEXT:.*]] = scf.if %{{.*}} -> (!dtensor.tensor<4xf32, @tp, [shard<0>]>) {
// STATE-NEXT:        %[[G:.*]] = dtensor.redistribute %[[NOW]] : {{.*}} -> !dtensor.tensor<4xf32, @tp, [replicate]>
// STATE:             %[[SLOT:.*]] = arith.constant 0 : i64
// STATE:             func.call @hp_write_tensor(%[[SLOT]],
// STATE-NEXT:        scf.yield %[[NOW]]
// STATE-NEXT:      } else {
// STATE:             %[[Y:.*]] = func.call @forward(%{{.*}}, %[[NOW]], %{{.*}})
// STATE-NOT:         func.call @hp_write_tensor
// STATE:             scf.yield %[[Y]] : !dtensor.tensor<4xf32, @tp, [shard<0>]>
// STATE-NEXT:      }
// STATE-NEXT:      func.call @hp_session_done() : () -> ()
// STATE-NEXT:      scf.yield %[[NEXT]]

// TOO-MANY: error: dtensor-add-driver: session-inputs=4 but @forward has 3 arguments
// NEGATIVE: error: dtensor-add-driver: session-inputs must be -1 (no session) or at least 0, got -2
// REPEAT: error: dtensor-add-driver: session-inputs and repeat do not combine (a session is timed by its client)
// NO-SESSION: error: dtensor-add-driver: state-args and state-results need a session (session-inputs)
// UNPAIRED: error: dtensor-add-driver: state-args names 1 arguments but state-results 0 results: each state argument needs the result that updates it
// PER-CALL: error: dtensor-add-driver: state argument 0 is not one of @forward's arguments read once (1 to 2)
// NO-RESULT: error: dtensor-add-driver: state result 1 is not a result of @forward (it has 1)
// TWICE: error: dtensor-add-driver: state argument 0 or result 0 is named twice
// OTHER: error: dtensor-add-driver: state result 0 ('!dtensor.tensor<4xf32, @tp, [shard<0>]>') cannot update argument 2 ('tensor<3xi64>'): another tensor
// ENTRY-NO-SESSION: error: dtensor-add-driver: extra-entries need a session (session-inputs)
// ENTRY-TWICE: error: dtensor-add-driver: @forward is named twice among the entries
