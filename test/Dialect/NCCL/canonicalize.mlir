// nccl.comm_size folds to the group size where the grid fixes it.
// RUN: hp-opt %s -canonicalize | FileCheck %s

nccl.grid @g(shape = 2x4x?)

// CHECK-LABEL: func @comm_size
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG: %[[C:.*]] = nccl.comm @g axes = [2]
// CHECK-DAG: %[[N:.*]] = nccl.comm_size %[[C]] : index
// CHECK: return %[[C8]], %[[N]]
func.func @comm_size() -> (index, index) {
  %a = nccl.comm @g axes = [0, 1] : !nccl.comm
  %na = nccl.comm_size %a : index
  %b = nccl.comm @g axes = [2] : !nccl.comm
  %nb = nccl.comm_size %b : index
  return %na, %nb : index, index
}
