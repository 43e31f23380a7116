// RUN: hp-opt %s -convert-dtensor-to-shard -split-input-file -allow-unregistered-dialect | FileCheck %s

// CHECK: shard.grid @m(shape = 4) {dtensor.axis_names = ["tp"]}
// CHECK-NOT: dtensor.mesh
dtensor.mesh @m shape = [4] names = ["tp"]

// Boundaries become local tensors annotated with their global layout;
// to_local / from_local disappear.
// CHECK-LABEL: func.func @boundaries
// CHECK-SAME: (%[[X:.*]]: tensor<2x6xf32> {dtensor.sharding = #dtensor.sharding<@m, [shard<0>], global = [8, 6]>},
// CHECK-SAME: %[[B:.*]]: tensor<6xf32>)
// CHECK-SAME: -> (tensor<?x6xf32> {dtensor.sharding = #dtensor.sharding<@m, [shard<0>], global = [10, 6]>}, i64)
// CHECK: %[[A:.*]] = arith.addf %[[X]], %[[X]] : tensor<2x6xf32>
// CHECK: %[[D:.*]] = "test.make"(%[[A]]) : (tensor<2x6xf32>) -> tensor<?x6xf32>
// CHECK: return %[[D]], %{{.*}} : tensor<?x6xf32>, i64
func.func @boundaries(%x: !dtensor.tensor<8x6xf32, @m, [shard<0>]>, %b: tensor<6xf32>)
    -> (!dtensor.tensor<10x6xf32, @m, [shard<0>]>, i64) {
  %l = dtensor.to_local %x : !dtensor.tensor<8x6xf32, @m, [shard<0>]> -> tensor<2x6xf32>
  %a = arith.addf %l, %l : tensor<2x6xf32>
  %u = "test.make"(%a) : (tensor<2x6xf32>) -> tensor<?x6xf32>
  %d = dtensor.from_local %u : tensor<?x6xf32> -> !dtensor.tensor<10x6xf32, @m, [shard<0>]>
  %c = arith.constant 1 : i64
  return %d, %c : !dtensor.tensor<10x6xf32, @m, [shard<0>]>, i64
}

// Calls and declarations are converted with their callees.
// CHECK-LABEL: func.func private @external(tensor<8xf32> {dtensor.sharding = #dtensor.sharding<@m, [partial<sum>], global = [8]>}) -> (tensor<2xf32> {dtensor.sharding = #dtensor.sharding<@m, [shard<0>], global = [8]>})
func.func private @external(!dtensor.tensor<8xf32, @m, [partial<sum>]>) -> !dtensor.tensor<8xf32, @m, [shard<0>]>

// CHECK-LABEL: func.func @caller
// CHECK-SAME: (%[[P:.*]]: tensor<8xf32> {dtensor.sharding
// CHECK: %[[R:.*]] = call @external(%[[P]]) : (tensor<8xf32>) -> tensor<2xf32>
// CHECK: return %[[R]] : tensor<2xf32>
func.func @caller(%p: !dtensor.tensor<8xf32, @m, [partial<sum>]>) -> !dtensor.tensor<8xf32, @m, [shard<0>]> {
  %r = call @external(%p) : (!dtensor.tensor<8xf32, @m, [partial<sum>]>) -> !dtensor.tensor<8xf32, @m, [shard<0>]>
  return %r : !dtensor.tensor<8xf32, @m, [shard<0>]>
}

// DTensors may flow through scf control flow.
// CHECK-LABEL: func.func @control_flow
// CHECK: %[[IF:.*]] = scf.if %{{.*}} -> (tensor<2xf32>)
// CHECK: scf.yield %{{.*}} : tensor<2xf32>
// CHECK: return %[[IF]] : tensor<2xf32>
func.func @control_flow(%c: i1, %a: !dtensor.tensor<8xf32, @m, [shard<0>]>, %b: !dtensor.tensor<8xf32, @m, [shard<0>]>)
    -> !dtensor.tensor<8xf32, @m, [shard<0>]> {
  %r = scf.if %c -> !dtensor.tensor<8xf32, @m, [shard<0>]> {
    scf.yield %a : !dtensor.tensor<8xf32, @m, [shard<0>]>
  } else {
    scf.yield %b : !dtensor.tensor<8xf32, @m, [shard<0>]>
  }
  return %r : !dtensor.tensor<8xf32, @m, [shard<0>]>
}

// -----

// llvm.func declarations next to dtensor code are left alone.
// CHECK-LABEL: llvm.func @getenv(!llvm.ptr) -> !llvm.ptr
// CHECK-LABEL: func.func @with_llvm_func
// CHECK-SAME: tensor<4xf32>
dtensor.mesh @m shape = [2]
llvm.func @getenv(!llvm.ptr) -> !llvm.ptr
func.func @with_llvm_func(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>) -> !dtensor.tensor<8xf32, @m, [shard<0>]> {
  return %x : !dtensor.tensor<8xf32, @m, [shard<0>]>
}
