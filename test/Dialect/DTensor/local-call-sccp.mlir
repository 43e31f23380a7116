// RUN: hp-opt %s -sccp | FileCheck %s

// dtensor.local_call is a CallOpInterface op: the call graph and
// interprocedural analyses see it as the one call of @count, so SCCP carries
// the constant it passes into the private callee and the constant the callee
// returns back out. Were the call an opaque symbol use, SCCP would assume
// unknown callers and fold nothing.

dtensor.mesh @tp shape = [2] names = ["tp"]

// CHECK-LABEL: func.func private @count
// CHECK:         %[[SIX:.*]] = arith.constant 6 : i64
// CHECK:         return %{{.*}}, %[[SIX]] : tensor<4xf32>, i64
func.func private @count(%x: tensor<4xf32> {dtensor.arg_name = "x"},
                         %n: i64 {dtensor.arg_name = "n"})
    -> (tensor<4xf32>, i64) {
  %m = arith.addi %n, %n : i64
  return %x, %m : tensor<4xf32>, i64
}

// CHECK-LABEL: func.func @main
// CHECK:         %[[SIX:.*]] = arith.constant 6 : i64
// CHECK:         %[[R:.*]]:2 = dtensor.local_call @count
// CHECK:         return %[[R]]#0, %[[SIX]]
func.func @main(%d: !dtensor.tensor<8xf32, @tp, [shard<0>]>)
    -> (!dtensor.tensor<8xf32, @tp, [shard<0>]>, i64) {
  %c3 = arith.constant 3 : i64
  %y, %k = dtensor.local_call @count(%d, %c3) on @tp
      out_placements = [[shard<0>], none]
      : (!dtensor.tensor<8xf32, @tp, [shard<0>]>, i64)
     -> (!dtensor.tensor<8xf32, @tp, [shard<0>]>, i64)
  return %y, %k : !dtensor.tensor<8xf32, @tp, [shard<0>]>, i64
}
