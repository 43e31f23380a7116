// hp-lower-to-cpu ends in the LLVM dialect with NCCL calls and nothing else.
// RUN: hp-opt --hp-lower-to-cpu %hp_src_root/examples/tp_mlp.mlir | FileCheck %s
// The output is pure LLVM dialect: upstream mlir-translate takes it as is.
// RUN: hp-opt --hp-lower-to-cpu %hp_src_root/examples/tp_mlp.mlir | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVMIR
// keep-layout-attrs keeps the boundary layouts for launchers.
// RUN: hp-opt --hp-lower-to-cpu=keep-layout-attrs %hp_src_root/examples/tp_mlp.mlir | FileCheck %s --check-prefix=KEEP
// KEEP: llvm.func @tp_mlp({{.*}}dtensor.sharding = #dtensor.sharding<@tp, [replicate], global = [8, 16]>

// CHECK-NOT: dtensor.
// CHECK-NOT: shard.
// CHECK-NOT: nccl.
// CHECK-DAG: llvm.func @ncclAllReduce(!llvm.ptr, !llvm.ptr, i64, i32, i32, !llvm.ptr, !llvm.ptr) -> i32
// CHECK-DAG: llvm.func @hpNcclComm(
// CHECK-LABEL: llvm.func @tp_mlp
// CHECK: llvm.call @hpNcclComm
// CHECK: llvm.call @ncclAllReduce
// CHECK: llvm.call @hpNcclCheck
// CHECK-LABEL: llvm.func @main

// LLVMIR: declare i32 @ncclAllReduce(ptr, ptr, i64, i32, i32, ptr, ptr)
// LLVMIR: define {{.*}} @tp_mlp(
