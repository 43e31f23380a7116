// A failing NCCL call is reported with the call, the rank and NCCL's error
// string, and the job exits non-zero.
// REQUIRES: mpi
// RUN: not %hp-runner -np 2 %s -e main --entry-point-result=void 2>&1 | FileCheck %s
// CHECK: hp: rank {{[01]}}: ncclSend failed: invalid argument

nccl.grid @g(shape = 2)
func.func @main() {
  // Peers are run-time values; 7 is outside the group of 2.
  %peer = arith.constant 7 : index
  %buf = memref.alloc() : memref<4xf32>
  %c = nccl.comm @g axes = [0] : !nccl.comm
  nccl.send %buf to %peer on %c : memref<4xf32>
  return
}
