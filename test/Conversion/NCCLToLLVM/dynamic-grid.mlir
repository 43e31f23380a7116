// A grid with an axis sized at launch: its shape global holds MLIR's
// dynamic marker (INT64_MIN) for the runtime to fill in, and the group size
// of a communicator along that axis is asked of NCCL (ncclCommCount).
// RUN: hp-opt %s -convert-nccl-to-llvm | FileCheck %s

// CHECK-DAG: llvm.mlir.global private constant @__hp_shape_g(dense<[2, -9223372036854775808]> : tensor<2xi64>)
// CHECK-DAG: llvm.func @ncclCommCount(!llvm.ptr, !llvm.ptr) -> i32
nccl.grid @g(shape = 2x?)

// CHECK-LABEL: func.func @size
// CHECK: %[[C:.*]] = llvm.call @hpNcclComm
// CHECK: %[[SLOT:.*]] = llvm.alloca
// CHECK: llvm.call @ncclCommCount(%[[C]], %[[SLOT]])
// CHECK: %[[N:.*]] = llvm.load %[[SLOT]] : !llvm.ptr -> i32
// CHECK: llvm.sext %[[N]] : i32 to i64
func.func @size() -> index {
  %c = nccl.comm @g axes = [1] : !nccl.comm
  %n = nccl.comm_size %c : index
  return %n : index
}
