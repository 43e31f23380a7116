// RUN: hp-opt %s -dtensor-drop-layout-attrs | FileCheck %s

// Every dtensor.* discardable attribute goes; others stay.
// CHECK: shard.grid @m(shape = 2)
// CHECK-NOT: dtensor.
// CHECK: llvm.func @f(%{{.*}}: !llvm.ptr {llvm.noalias}) -> i64
// CHECK-NOT: dtensor.
shard.grid @m(shape = 2) {dtensor.axis_names = ["tp"], dtensor.devices = array<i64: 1, 0>}
llvm.func @f(%a: !llvm.ptr {dtensor.sharding = #dtensor.sharding<@m, [shard<0>], global = [8]>, llvm.noalias}) -> (i64 {dtensor.sharding = #dtensor.sharding<@m, [replicate], global = [?]>}) {
  %c = llvm.mlir.constant(1 : i64) : i64
  llvm.return %c : i64
}
