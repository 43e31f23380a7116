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
// NOMPI: hp-runner: --mpirun-args needs -np N: without it the program runs as one rank, without mpirun
// TWO: hp-runner: one input file, got '{{.*}}hp-runner-errors.mlir' and '{{.*}}hp-runner-errors.mlir'
// ZERO: hp-runner: -np needs a positive number of ranks, got '0'
// ABC: hp-runner: -np needs a positive number of ranks, got 'abc'
// MISSING: hp-runner: -np needs a positive number of ranks, got ''
// NOFILE: hp-runner: no such input file '{{.*}}does-not-exist.mlir'
// EMPTY: hp-runner: the input '{{.*}}empty.mlir' is empty: there is no entry point to run
// EMPTYSTDIN: hp-runner: standard input is empty: there is no entry point to run

func.func @main() {
  return
}
