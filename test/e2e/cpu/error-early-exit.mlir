// A rank that exits before its entry point returns (here rank 1 calls
// exit(3) while rank 0 waits in an all_reduce) aborts the whole job at once,
// with a message naming the rank, instead of hanging until the timeout.
// REQUIRES: mpi
// RUN: env HP_TIMEOUT_S=300 not timeout 120 %hp-runner -np 2 %s -e main --entry-point-result=void 2>&1 | FileCheck %s
// CHECK: hp: rank 1: exited before its entry point returned; aborting the job so that the other ranks do not wait for it
// CHECK-NOT: timed out

nccl.grid @g(shape = 2)
func.func private @exit(i32)
func.func @main() {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : i32
  %buf = memref.alloc() : memref<4xf32>
  %c = nccl.comm @g axes = [0] : !nccl.comm
  %r = nccl.comm_rank %c : index
  %first = arith.cmpi eq, %r, %c0 : index
  scf.if %first {
    nccl.all_reduce %buf, %buf on %c op = sum : memref<4xf32>, memref<4xf32>
  } else {
    func.call @exit(%c3) : (i32) -> ()
  }
  return
}
