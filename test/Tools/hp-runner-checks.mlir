// hp-runner refuses, before mpirun starts and with the cause, what would
// otherwise fail on every rank or run the wrong thing.
// REQUIRES: mpi
//
// -np given twice.
// RUN: not %hp-runner -np 2 -np 3 %S/Inputs/entry-points.mlir 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not %hp-runner -np 2 --np=3 %S/Inputs/entry-points.mlir 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: hp-runner: -np given twice ('2' and '3'): give it once
//
// An option no rank would accept.
// RUN: not %hp-runner -np 2 --no-such-flag %S/Inputs/entry-points.mlir 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not %hp-runner -np 2 -no-such-flag=3 %S/Inputs/entry-points.mlir 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: hp-runner: unknown option '{{-?-no-such-flag(=3)?}}' (hp-runner --help lists the options)
// UNKNOWN-NOT: rank
//
// An entry point whose signature --entry-point-result does not describe,
// located at the function.
// RUN: not %hp-runner -np 2 %S/Inputs/entry-points.mlir -e answer 2>&1 | FileCheck %s --check-prefix=RESULT
// RESULT: entry-points.mlir:2:1: error: hp-runner: the entry point @answer returns (i32) but --entry-point-result=void expects ()
// RESULT-NOT: rank
// RUN: not %hp-runner -np 2 %S/Inputs/entry-points.mlir -e main --entry-point-result=i32 2>&1 | FileCheck %s --check-prefix=VOID
// VOID: error: hp-runner: the entry point @main returns () but --entry-point-result=i32 expects (i32)
// RUN: not %hp-runner -np 2 %S/Inputs/entry-points.mlir -e takes 2>&1 | FileCheck %s --check-prefix=ARGS
// ARGS: entry-points.mlir:7:1: error: hp-runner: the entry point @takes takes arguments; it must take none
// RUN: not %hp-runner %S/Inputs/entry-points.mlir --entry-point-result=f64 2>&1 | FileCheck %s --check-prefix=KIND
// KIND: hp-runner: --entry-point-result must be void, i32, i64 or f32, not 'f64'
// A matching one runs.
// RUN: %hp-runner -np 2 %S/Inputs/entry-points.mlir -e answer --entry-point-result=i32 | FileCheck %s --check-prefix=ANSWER
// ANSWER-COUNT-2: 42
//
// A run leaves nothing behind in TMPDIR (nor in HOME or JITDUMPDIR, where
// the JIT's perf listener would write a jitdump per rank).
// RUN: rm -rf %t && mkdir -p %t
// RUN: env TMPDIR=%t HOME=%t JITDUMPDIR=%t %hp-runner -np 2 %S/Inputs/entry-points.mlir | FileCheck %s --check-prefix=RAN
// RUN: env TMPDIR=%t HOME=%t JITDUMPDIR=%t %hp-runner %S/Inputs/entry-points.mlir | FileCheck %s --check-prefix=RAN
// RUN: ls -A %t | FileCheck %s --allow-empty --check-prefix=NOFILES
// RAN: ran
// NOFILES-NOT: {{.}}
