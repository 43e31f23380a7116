// A fault in the user's program is reported as the program's, with the rank
// and the signal, not as a crash of LLVM (no "PLEASE submit a bug report"
// banner), and the job fails (one rank alone ends with the signal). Rank 1
// divides an integer by zero (SIGFPE), which its rank number makes zero at
// run time; on one rank, a load through an invalid pointer (SIGSEGV).
// REQUIRES: mpi
// RUN: not %hp-runner -np 2 %s -e divide 2>&1 | FileCheck %s --check-prefix=FPE
// FPE-NOT: PLEASE submit
// FPE: hp-runner: rank 1: SIGFPE in the program (an arithmetic fault, such as an integer division by zero)
// FPE-NOT: PLEASE submit
// RUN: not --crash %hp-runner %s -e dereference 2>&1 | FileCheck %s --check-prefix=SEGV
// SEGV-NOT: PLEASE submit
// SEGV: hp-runner: rank 0: SIGSEGV in the program (an invalid memory access)
// SEGV-NOT: PLEASE submit
// What the program printed before the fault is not lost in stdout's buffer.
// RUN: not --crash %hp-runner %s -e dereference 2>/dev/null | FileCheck %s --check-prefix=BEFORE
// BEFORE: about to fault
// A program that aborts is reported too; the lowered module is removed.
// RUN: rm -rf %t.tmp && mkdir %t.tmp
// RUN: env TMPDIR=%t.tmp not %hp-runner -np 2 %s -e stop 2>&1 | FileCheck %s --check-prefix=ABRT
// RUN: ls %t.tmp | count 0
// ABRT-NOT: PLEASE submit
// ABRT: hp-runner: rank {{[01]}}: SIGABRT in the program (it aborted, e.g. on a failed assertion)
// ABRT-NOT: PLEASE submit

llvm.mlir.global private constant @rank_var("OMPI_COMM_WORLD_RANK\00")
llvm.func @getenv(!llvm.ptr) -> !llvm.ptr
llvm.func @atoi(!llvm.ptr) -> i32
llvm.func @abort()

func.func @divide() {
  %name = llvm.mlir.addressof @rank_var : !llvm.ptr
  %value = llvm.call @getenv(%name) : (!llvm.ptr) -> !llvm.ptr
  %rank = llvm.call @atoi(%value) : (!llvm.ptr) -> i32
  %c1 = arith.constant 1 : i32
  %c7 = arith.constant 7 : i32
  %divisor = arith.subi %c1, %rank : i32
  %q = arith.divsi %c7, %divisor : i32
  vector.print %q : i32
  return
}

func.func @dereference() {
  vector.print str "about to fault\n"
  %c8 = arith.constant 8 : i64
  %p = llvm.inttoptr %c8 : i64 to !llvm.ptr
  %v = llvm.load volatile %p : !llvm.ptr -> i32
  vector.print %v : i32
  return
}

func.func @stop() {
  llvm.call @abort() : () -> ()
  return
}
