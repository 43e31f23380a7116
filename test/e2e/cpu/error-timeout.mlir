// A collective that not every rank joins is reported after HP_TIMEOUT_S
// seconds instead of hanging the job.
// REQUIRES: mpi
// RUN: env HP_TIMEOUT_S=1 not %hp-runner -np 2 %s -e main --entry-point-result=void 2>&1 | FileCheck %s
// CHECK: hp: rank 0: ncclAllReduce timed out after {{[0-9.]+}} s (HP_TIMEOUT_S); do all ranks run the same program on the same mesh?

nccl.grid @g(shape = 2)
func.func @main() {
  %c0 = arith.constant 0 : index
  %buf = memref.alloc() : memref<4xf32>
  %c = nccl.comm @g axes = [0] : !nccl.comm
  %r = nccl.comm_rank %c : index
  %first = arith.cmpi eq, %r, %c0 : index
  scf.if %first {
    nccl.all_reduce %buf, %buf on %c op = sum : memref<4xf32>, memref<4xf32>
  }
  return
}
