// RUN: hp-opt %s -dtensor-add-driver=session-inputs=1 | FileCheck %s
// RUN: not hp-opt %s -dtensor-add-driver=session-inputs=3 2>&1 | FileCheck %s --check-prefix=TOO-MANY
// RUN: not hp-opt %s -dtensor-add-driver="session-inputs=1 repeat=2" 2>&1 | FileCheck %s --check-prefix=REPEAT

// session-inputs=1: argument 1 (the weight) is read once in front of the
// loop; each call announced by hp_session_next reads argument 0, calls
// @forward, writes the result and reports done; a negative call number
// ends the loop.

dtensor.mesh @tp shape = [2]

func.func @forward(%x: !dtensor.tensor<4xf32, @tp, [replicate]>,
                   %w: !dtensor.tensor<4xf32, @tp, [shard<0>]>)
    -> !dtensor.tensor<4xf32, @tp, [shard<0>]> {
  return %w : !dtensor.tensor<4xf32, @tp, [shard<0>]>
}

// CHECK-DAG:   func.func private @hp_session_next() -> i64
// CHECK-DAG:   func.func private @hp_session_done()
// CHECK-LABEL: func.func @main() {
// CHECK:         %[[S1:.*]] = arith.constant 1 : i64
// CHECK:         call @hp_read_tensor(%[[S1]],
// CHECK:         %[[W:.*]] = dtensor.redistribute {{.*}} -> !dtensor.tensor<4xf32, @tp, [shard<0>]>
// CHECK:         scf.while : () -> () {
// CHECK-NEXT:      %[[N:.*]] = func.call @hp_session_next() : () -> i64
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0 : i64
// CHECK-NEXT:      %[[GO:.*]] = arith.cmpi sge, %[[N]], %[[Z]] : i64
// CHECK-NEXT:      scf.condition(%[[GO]])
// CHECK-NEXT:    } do {
// CHECK:           %[[S0:.*]] = arith.constant 0 : i64
// CHECK:           func.call @hp_read_tensor(%[[S0]],
// CHECK:           %[[X:.*]] = dtensor.from_local
// CHECK-NOT:       dtensor.redistribute %[[X]]
// CHECK:           %[[Y:.*]] = func.call @forward(%[[X]], %[[W]])
// CHECK:           dtensor.redistribute %[[Y]]
// CHECK:           func.call @hp_write_tensor
// CHECK-NEXT:      func.call @hp_session_done() : () -> ()
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    return

// TOO-MANY: error: dtensor-add-driver: session-inputs=3 but @forward has 2 arguments
// REPEAT: error: dtensor-add-driver: session-inputs and repeat do not combine (a session is timed by its client)
