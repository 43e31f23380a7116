// What each rank of hp-runner runs: the one object the launcher compiled
// (docs/Runtime.md "Compiled once, cached"), linked into the rank, its
// entry point called through __hp_program_entry, its constructors and
// destructors run as a loader would. Results print as mlir-runner prints
// them: mlir-runner itself is the reference.
// REQUIRES: mpi
// RUN: %hp-runner %S/Inputs/results.mlir -e negative --entry-point-result=i32 | FileCheck %s --check-prefix=NEG
// RUN: mlir-runner %S/Inputs/results.mlir -e negative --entry-point-result=i32 | FileCheck %s --check-prefix=NEG
// NEG: {{^-7$}}
// RUN: %hp-runner %S/Inputs/results.mlir -e large --entry-point-result=i64 | FileCheck %s --check-prefix=LARGE
// RUN: mlir-runner %S/Inputs/results.mlir -e large --entry-point-result=i64 | FileCheck %s --check-prefix=LARGE
// LARGE: {{^9000000000$}}
// RUN: %hp-runner %S/Inputs/results.mlir -e half --entry-point-result=f32 | FileCheck %s --check-prefix=HALF
// RUN: mlir-runner %S/Inputs/results.mlir -e half --entry-point-result=f32 | FileCheck %s --check-prefix=HALF
// HALF: {{^2.500000e\+00$}}
// Each rank prints its own.
// RUN: %hp-runner -np 2 %S/Inputs/results.mlir -e negative --entry-point-result=i32 | FileCheck %s --check-prefix=NEG2
// NEG2-COUNT-2: {{^-7$}}
// NEG2-NOT: {{.}}

// Constructors by ascending priority, destructors by descending priority,
// on every rank.
// RUN: %hp-runner %S/Inputs/ctors.mlir | FileCheck %s --check-prefix=ORDER
// RUN: %hp-runner -np 2 --mpirun-args="--tag-output" %S/Inputs/ctors.mlir | grep '^\[1,0\]' | sed 's/^.*<stdout>://' | FileCheck %s --check-prefix=ORDER
// ORDER: 1
// ORDER-NEXT: 2
// ORDER-NEXT: 3
// ORDER-NEXT: 5
// ORDER-NEXT: 4

// The names hp-runner adds to the object are its own.
// RUN: sed 's/@nothing/@__hp_program_init/' %S/Inputs/results.mlir > %t.reserved.mlir
// RUN: not %hp-runner %t.reserved.mlir -e negative --entry-point-result=i32 2>&1 | FileCheck %s --check-prefix=RESERVED
// RESERVED: hp-runner: cannot generate code for the program: the program defines @__hp_program_init, a name hp-runner reserves

// --dump-object-file names the object after the input by default.
// RUN: rm -f %t.in.mlir.o && cp %S/Inputs/results.mlir %t.in.mlir
// RUN: %hp-runner %t.in.mlir -e nothing --dump-object-file
// RUN: llvm-nm %t.in.mlir.o | FileCheck %s --check-prefix=DUMP
// DUMP-DAG: T __hp_program_entry
// DUMP-DAG: T __hp_program_init
// DUMP-DAG: T __hp_program_fini
// DUMP-DAG: T nothing

// mlir-runner's other flags: --host-supports-jit answers; a module is
// always implicit.
// RUN: %hp-runner --host-supports-jit | FileCheck %s --check-prefix=JIT
// JIT: {{^true$}}
// RUN: not %hp-runner --no-implicit-module %S/Inputs/results.mlir -e nothing 2>&1 | FileCheck %s --check-prefix=IMPLICIT
// IMPLICIT: hp-runner: --no-implicit-module is mlir-runner's; hp-runner takes any input as a module
