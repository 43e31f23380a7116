// HP_CHECK_COLLECTIVES=1 (set for the whole lit suite) compares every NCCL
// call across the ranks of its communicator: a collective whose kind, type,
// count, root or reduce op differs between ranks, or a send that its peer
// does not receive alike, ends the job naming both ranks' calls instead of
// completing with wrong data.
// REQUIRES: mpi
// RUN: env HP_CHECK_COLLECTIVES=1 not %hp-runner -np 2 %s -e reduce_op 2>&1 | FileCheck %s --check-prefix=OP
// OP: hp: rank 0: collectives do not match across ranks: rank 0 calls ncclAllReduce(count=4, f32, sum) but rank 1 calls ncclAllReduce(count=4, f32, max) (HP_CHECK_COLLECTIVES)
// RUN: env HP_CHECK_COLLECTIVES=1 not %hp-runner -np 2 %s -e dtype 2>&1 | FileCheck %s --check-prefix=TYPE
// TYPE: hp: rank 0: collectives do not match across ranks: rank 0 calls ncclAllGather(count=4, f32) but rank 1 calls ncclAllGather(count=4, i32) (HP_CHECK_COLLECTIVES)
// RUN: env HP_CHECK_COLLECTIVES=1 not %hp-runner -np 2 %s -e root 2>&1 | FileCheck %s --check-prefix=ROOT
// ROOT: hp: rank 0: collectives do not match across ranks: rank 0 calls ncclBroadcast(count=4, f32, root=0) but rank 1 calls ncclBroadcast(count=4, f32, root=1) (HP_CHECK_COLLECTIVES)
// RUN: env HP_CHECK_COLLECTIVES=1 not %hp-runner -np 2 %s -e kind 2>&1 | FileCheck %s --check-prefix=KIND
// KIND: hp: rank 0: collectives do not match across ranks: rank 0 calls ncclAllReduce(count=4, f32, sum) but rank 1 calls ncclReduceScatter(count=2, f32, sum) (HP_CHECK_COLLECTIVES)
//
// On a sub-communicator (ncclCommSplit) ranks are named as in the job: on a
// 2x2 grid, the row of ranks 2 and 3 disagrees.
// RUN: env HP_CHECK_COLLECTIVES=1 not %hp-runner -np 4 %s -e sub_comm 2>&1 | FileCheck %s --check-prefix=SUB
// SUB: hp: rank 2: collectives do not match across ranks: rank 2 calls ncclAllReduce(count=4, f32, sum) but rank 3 calls ncclAllReduce(count=4, f32, min) (HP_CHECK_COLLECTIVES)
//
// Point-to-point calls are compared per group (ncclGroupStart/End) with the
// peer's: a receive of another size, and a send nobody receives.
// RUN: env HP_CHECK_COLLECTIVES=1 not %hp-runner -np 2 %s -e p2p_count 2>&1 | FileCheck %s --check-prefix=P2P
// P2P: hp: rank 0: point-to-point calls do not match: rank 0 calls ncclSend(count=4, f32) to rank 1 but rank 1 calls ncclRecv(count=2, f32) from rank 0 (HP_CHECK_COLLECTIVES)
// RUN: env HP_CHECK_COLLECTIVES=1 not %hp-runner -np 2 %s -e p2p_missing 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: hp: rank 1: point-to-point calls do not match: rank 1 calls ncclSend(count=4, f32) to rank 0 but rank 0 posts no matching ncclRecv from rank 1 (HP_CHECK_COLLECTIVES)
// RUN: env HP_CHECK_COLLECTIVES=1 HP_TIMEOUT_S=1 not %hp-runner -np 2 %s -e send_alone 2>&1 | FileCheck %s --check-prefix=ALONE
// ALONE: hp: rank 0: ncclSend timed out after {{[0-9.]+}} s (HP_TIMEOUT_S); rank 1 posted no matching send or receive for rank 0 (HP_CHECK_COLLECTIVES)
//
// Matching calls (a grouped ring exchange on a sub-communicator, a
// collective) pass the check and run.
// RUN: env HP_CHECK_COLLECTIVES=1 %hp-runner -np 4 %s -e matching | FileCheck %s --check-prefix=OK
// OK-COUNT-4: ( 2, 2, 2, 2 )
// RUN: env HP_CHECK_COLLECTIVES=yes not %hp-runner %s -e matching 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: hp: HP_CHECK_COLLECTIVES must be 0 or 1, got 'yes'

nccl.grid @g(shape = 2)
nccl.grid @g2(shape = 2x2)

func.func @reduce_op() {
  %c0 = arith.constant 0 : index
  %buf = memref.alloc() : memref<4xf32>
  %c = nccl.comm @g axes = [0] : !nccl.comm
  %r = nccl.comm_rank %c : index
  %first = arith.cmpi eq, %r, %c0 : index
  scf.if %first {
    nccl.all_reduce %buf, %buf on %c op = sum : memref<4xf32>, memref<4xf32>
  } else {
    nccl.all_reduce %buf, %buf on %c op = max : memref<4xf32>, memref<4xf32>
  }
  return
}

func.func @dtype() {
  %c0 = arith.constant 0 : index
  %c = nccl.comm @g axes = [0] : !nccl.comm
  %r = nccl.comm_rank %c : index
  %first = arith.cmpi eq, %r, %c0 : index
  scf.if %first {
    %s = memref.alloc() : memref<4xf32>
    %d = memref.alloc() : memref<8xf32>
    nccl.all_gather %s, %d on %c : memref<4xf32>, memref<8xf32>
  } else {
    %s = memref.alloc() : memref<4xi32>
    %d = memref.alloc() : memref<8xi32>
    nccl.all_gather %s, %d on %c : memref<4xi32>, memref<8xi32>
  }
  return
}

func.func @root() {
  %buf = memref.alloc() : memref<4xf32>
  %c = nccl.comm @g axes = [0] : !nccl.comm
  %r = nccl.comm_rank %c : index
  // Each rank names itself the root.
  nccl.broadcast %buf, %buf on %c root = %r : memref<4xf32>, memref<4xf32>
  return
}

func.func @kind() {
  %c0 = arith.constant 0 : index
  %buf = memref.alloc() : memref<4xf32>
  %half = memref.alloc() : memref<2xf32>
  %c = nccl.comm @g axes = [0] : !nccl.comm
  %r = nccl.comm_rank %c : index
  %first = arith.cmpi eq, %r, %c0 : index
  scf.if %first {
    nccl.all_reduce %buf, %buf on %c op = sum : memref<4xf32>, memref<4xf32>
  } else {
    nccl.reduce_scatter %buf, %half on %c op = sum : memref<4xf32>, memref<2xf32>
  }
  return
}

func.func @sub_comm() {
  %buf = memref.alloc() : memref<4xf32>
  %world = nccl.comm @g2 axes = [0, 1] : !nccl.comm
  %w = nccl.comm_rank %world : index
  %row = nccl.comm @g2 axes = [1] : !nccl.comm
  // Only world rank 3 (the second of the second row) uses min.
  %three = arith.constant 3 : index
  %odd = arith.cmpi eq, %w, %three : index
  scf.if %odd {
    nccl.all_reduce %buf, %buf on %row op = min : memref<4xf32>, memref<4xf32>
  } else {
    nccl.all_reduce %buf, %buf on %row op = sum : memref<4xf32>, memref<4xf32>
  }
  return
}

func.func @p2p_count() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c = nccl.comm @g axes = [0] : !nccl.comm
  %r = nccl.comm_rank %c : index
  %first = arith.cmpi eq, %r, %c0 : index
  scf.if %first {
    %buf = memref.alloc() : memref<4xf32>
    nccl.group {
      nccl.send %buf to %c1 on %c : memref<4xf32>
    }
  } else {
    %buf = memref.alloc() : memref<2xf32>
    nccl.group {
      nccl.recv %buf from %c0 on %c : memref<2xf32>
    }
  }
  return
}

func.func @p2p_missing() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = memref.alloc() : memref<4xf32>
  %c = nccl.comm @g axes = [0] : !nccl.comm
  %r = nccl.comm_rank %c : index
  %first = arith.cmpi eq, %r, %c0 : index
  // Both ranks send to each other; rank 0 receives nothing.
  scf.if %first {
    nccl.group {
      nccl.send %buf to %c1 on %c : memref<4xf32>
    }
  } else {
    nccl.group {
      nccl.send %buf to %c0 on %c : memref<4xf32>
      nccl.recv %buf from %c0 on %c : memref<4xf32>
    }
  }
  return
}

func.func @send_alone() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = memref.alloc() : memref<4xf32>
  %c = nccl.comm @g axes = [0] : !nccl.comm
  %r = nccl.comm_rank %c : index
  %first = arith.cmpi eq, %r, %c0 : index
  scf.if %first {
    nccl.send %buf to %c1 on %c : memref<4xf32>
  }
  return
}

func.func @matching() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %one = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  linalg.fill ins(%one : f32) outs(%a : memref<4xf32>)
  %row = nccl.comm @g2 axes = [1] : !nccl.comm
  %r = nccl.comm_rank %row : index
  %next0 = arith.addi %r, %c1 : index
  %next = arith.remui %next0, %c2 : index
  nccl.group {
    nccl.send %a to %next on %row : memref<4xf32>
    nccl.recv %b from %next on %row : memref<4xf32>
  }
  nccl.all_reduce %b, %b on %row op = sum : memref<4xf32>, memref<4xf32>
  %c0 = arith.constant 0 : index
  %w = vector.transfer_read %b[%c0], %one : memref<4xf32>, vector<4xf32>
  vector.print %w : vector<4xf32>
  return
}
