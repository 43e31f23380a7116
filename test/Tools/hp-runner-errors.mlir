// Bad launches get a clear error and a non-zero exit, never a wait on
// standard input or a message about something else.
// RUN: not %hp-runner -np 0 %s -e main --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not %hp-runner -np abc %s -e main --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=ABC
// RUN: not %hp-runner %s -e main --entry-point-result=void -np 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not %hp-runner -np 2 %t.does-not-exist.mlir -e main --entry-point-result=void < /dev/null 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: not %hp-runner %t.does-not-exist.mlir -e main --entry-point-result=void < /dev/null 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: printf '\n  \n' > %t.empty.mlir
// RUN: not %hp-runner %t.empty.mlir -e main --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not %hp-runner -np 2 -e main --entry-point-result=void < %t.empty.mlir 2>&1 | FileCheck %s --check-prefix=EMPTYSTDIN
// RUN: not %hp-runner --mpirun-args="--tag-output" %s 2>&1 | FileCheck %s --check-prefix=NOMPI
// RUN: not %hp-runner -np 2 %s %s 2>&1 | FileCheck %s --check-prefix=TWO
// The number of processes is -np's alone, and the ranks run on this machine:
// --mpirun-args may not set either (hp/Support/LaunchFlags.h).
// RUN: not %hp-runner -np 1 --mpirun-args="-np 3" %s 2>&1 | FileCheck %s --check-prefix=MPINP
// RUN: not %hp-runner -np 1 --mpirun-args="--tag-output -n3" %s 2>&1 | FileCheck %s --check-prefix=MPIN3
// RUN: not %hp-runner -np 1 --mpirun-args="--np=3" %s 2>&1 | FileCheck %s --check-prefix=MPINPEQ
// RUN: not %hp-runner -np 1 --mpirun-args="-c 2" %s 2>&1 | FileCheck %s --check-prefix=MPIC
// RUN: not %hp-runner -np 1 --mpirun-args="--host=a,b" %s 2>&1 | FileCheck %s --check-prefix=MPIHOST
// RUN: not %hp-runner -np 1 --mpirun-args="--oversubscribe -hostfile h" %s 2>&1 | FileCheck %s --check-prefix=MPIHOSTFILE
// MPINP: hp-runner: --mpirun-args cannot set the number of processes or where they run ('-np'): hp-runner's -np N sets it, on this machine
// MPIN3: hp-runner: --mpirun-args cannot set the number of processes or where they run ('-n3'): hp-runner's -np N sets it, on this machine
// MPINPEQ: hp-runner: --mpirun-args cannot set the number of processes or where they run ('--np=3'): hp-runner's -np N sets it, on this machine
// MPIC: hp-runner: --mpirun-args cannot set the number of processes or where they run ('-c'): hp-runner's -np N sets it, on this machine
// MPIHOST: hp-runner: --mpirun-args cannot set the number of processes or where they run ('--host=a,b'): hp-runner's -np N sets it, on this machine
// MPIHOSTFILE: hp-runner: --mpirun-args cannot set the number of processes or where they run ('-hostfile'): hp-runner's -np N sets it, on this machine
// A flag no rank would accept is refused before anything is lowered or
// launched (hp-runner-checks.mlir), and leaves nothing in TMPDIR.
// RUN: rm -rf %t.tmpdir && mkdir %t.tmpdir
// RUN: env TMPDIR=%t.tmpdir not %hp-runner --bogus-flag %s 2>&1 | FileCheck %s --check-prefix=BOGUS
// RUN: ls -A %t.tmpdir | FileCheck %s --allow-empty --check-prefix=NOFILES
// BOGUS: hp-runner: unknown option '--bogus-flag' (hp-runner --help lists the options)
// NOFILES-NOT: {{.}}
// JitRunner's options that take a separate value (-mattr, -march) are told
// from the input file, as llvm::cl registers them, and apply where the code
// is generated: -march must name the host's architecture, where the ranks
// run.
// RUN: %hp-runner -mattr +sse2 %s | FileCheck %s --check-prefix=MATTR
// RUN: %hp-runner -march %host_arch %s | FileCheck %s --check-prefix=MATTR
// RUN: not %hp-runner -march %other_arch %s 2>&1 | FileCheck %s --check-prefix=MARCH
// MATTR: ran
// MARCH-NOT: one input file
// MARCH: hp-runner: cannot generate code for the program: -march={{.*}} is not this host's architecture ({{.*}}): the ranks run the program here
// NOMPI: hp-runner: --mpirun-args needs -np N: without it the program runs as one rank, without mpirun
// TWO: hp-runner: one input file, got '{{.*}}hp-runner-errors.mlir' and '{{.*}}hp-runner-errors.mlir'
// ZERO: hp-runner: -np needs a positive number of ranks, got '0'
// ABC: hp-runner: -np needs a positive number of ranks, got 'abc'
// MISSING: hp-runner: -np needs a positive number of ranks, got ''
// NOFILE: hp-runner: no such input file '{{.*}}does-not-exist.mlir'
// EMPTY: hp-runner: the input '{{.*}}empty.mlir' is empty: there is no entry point to run
// EMPTYSTDIN: hp-runner: standard input is empty: there is no entry point to run

func.func @main() {
  vector.print str "ran\n"
  return
}
