// RUN: hp-opt %s -dtensor-add-driver="entry=step repeat=3" | FileCheck %s --check-prefixes=CHECK,REPEAT
// RUN: hp-opt %s -dtensor-add-driver="entry=step" | FileCheck %s --check-prefixes=CHECK,ONCE

// Runtime functions already declared with the runtime's types are reused.
// With repeat=3: a warm-up call, two timed calls (one in the loop, the
// last), the seconds per call written as result 1 (8 bytes).

dtensor.mesh @tp shape = [2]
func.func private @hp_read_tensor(i64, i64, i64)

func.func @step(%x: !dtensor.tensor<4xf32, @tp, [shard<0>]>) -> !dtensor.tensor<4xf32, @tp, [shard<0>]> {
  return %x : !dtensor.tensor<4xf32, @tp, [shard<0>]>
}

// CHECK:     func.func private @hp_read_tensor(
// CHECK-NOT: func.func private @hp_read_tensor(
// CHECK:     func.func private @hp_read_tensor_block(
// CHECK:     func.func private @hp_write_tensor
// CHECK-NOT: func.func private @hp_read_tensor(
// REPEAT:    func.func private @rtclock() -> f64
// ONCE-NOT:  rtclock

// ONCE-LABEL: func.func @main()
// ONCE:         call @hp_read_tensor_block
// ONCE-NEXT:    bufferization.to_tensor
// ONCE-NEXT:    dtensor.from_local
// ONCE-NEXT:    call @step(
// ONCE-NOT:     call @step(

// REPEAT-LABEL: func.func @main()
// REPEAT:         call @hp_read_tensor
// REPEAT:         call @step(
// REPEAT-NEXT:    %[[T0:.*]] = call @rtclock() : () -> f64
// REPEAT:         scf.for
// REPEAT-NEXT:      call @step(
// REPEAT-NEXT:    }
// REPEAT-NEXT:    %[[Y:.*]] = call @step(
// REPEAT-NEXT:    %[[T1:.*]] = call @rtclock() : () -> f64
// REPEAT:         %[[DT:.*]] = arith.subf %[[T1]], %[[T0]] : f64
// REPEAT:         %[[S:.*]] = arith.divf %[[DT]], %{{.*}} : f64
// REPEAT:         memref.store %[[S]], %[[BUF:.*]][%{{.*}}] : memref<1xf64>
// REPEAT-DAG:     arith.constant 1 : i64
// REPEAT-DAG:     arith.constant 8 : i64
// REPEAT:         call @hp_write_tensor
// REPEAT:         dtensor.redistribute %[[Y]]
// REPEAT:         call @hp_write_tensor
