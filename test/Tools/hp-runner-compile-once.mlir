// hp-runner parses and lowers a program once, in itself, before mpirun
// starts: a compile error is printed once, with its source line, and no rank
// is launched (--tag-output would prefix a rank's lines with <stderr>).
// Warnings of a program that compiles are printed once too, and the
// lowered module hp-runner writes for the ranks is removed afterwards.
// REQUIRES: mpi
// RUN: not %hp-runner -np 2 --mpirun-args="--tag-output" %S/Inputs/broken-contract.mlir 2>&1 | FileCheck %s --check-prefix=PIPELINE
// PIPELINE-NOT: <stderr>
// PIPELINE: broken-contract.mlir:9:8: error: 'dtensor.local_region' op out_placements declare result #0 replicate over mesh axis 'd0'
// PIPELINE-NEXT: %r = dtensor.local_region on @m args(%d as "x") out_placements = [replicate]
// PIPELINE-NEXT: ^
// PIPELINE-NOT: error
// PIPELINE-NOT: <stderr>
// PIPELINE-NOT: mpirun
// RUN: not %hp-runner -np 2 --mpirun-args="--tag-output" %S/Inputs/broken-contract.mlir 2>&1 | grep -c "error:" | FileCheck %s --check-prefix=ONCE
// ONCE: {{^1$}}

// A parse error, here of a module on standard input.
// RUN: echo 'func.func @main() { return %%x : i32 }' | not %hp-runner -np 2 --mpirun-args="--tag-output" 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: <stdin>:1:28: error: use of undeclared SSA value name
// PARSE-NEXT: func.func @main() { return %x : i32 }
// PARSE-NEXT: {{^ +\^$}}
// PARSE-NOT: <stderr>

// An entry point the module lacks is refused once, before the ranks start.
// RUN: not %hp-runner -np 2 --mpirun-args="--tag-output" %S/Inputs/two-ranks.mlir -e nosuch 2>&1 | FileCheck %s --check-prefix=ENTRY
// ENTRY: hp-runner: the input has no function @nosuch with a body to run; name the entry point with -e
// ENTRY-NOT: <stderr>
// RUN: not %hp-runner %S/Inputs/two-ranks.mlir -e nosuch 2>&1 | FileCheck %s --check-prefix=ENTRY

// Warnings once; the program then runs on both ranks; no file is left in
// TMPDIR, where hp-runner writes the lowered module.
// RUN: rm -rf %t.tmp && mkdir %t.tmp
// RUN: env TMPDIR=%t.tmp %hp-runner -np 2 %S/Inputs/typo-warning.mlir > %t.out 2> %t.err
// RUN: FileCheck %s --check-prefix=WARN < %t.err
// RUN: FileCheck %s --check-prefix=RAN < %t.out
// RUN: ls %t.tmp | count 0
// WARN: typo-warning.mlir:8:8: warning: in_placements names 'hiden'
// WARN-NEXT: %r = dtensor.local_region
// WARN-NOT: warning
// RAN-COUNT-2: ran
// RAN-NOT: ran
// A compile error leaves nothing behind either.
// RUN: env TMPDIR=%t.tmp not %hp-runner -np 2 %S/Inputs/broken-contract.mlir 2> /dev/null
// RUN: ls %t.tmp | count 0
