// SIGTERM to `hp-runner -np` reaches mpirun, which stops every rank; nothing
// of the job is left running or in TMPDIR, and hp-runner exits non-zero.
// REQUIRES: mpi
// RUN: bash %S/Inputs/signal-stops-job.sh %hp-runner %S/Inputs/sleep.mlir %t | FileCheck %s
// CHECK: stopped rc={{[1-9][0-9]*}} files=0
