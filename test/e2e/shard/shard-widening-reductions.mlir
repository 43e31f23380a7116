// Reductions whose result element type differs from the input's run on CPU
// ranks: all_reduce f32 -> f64, reduce i8 -> i16, reduce_scatter f32 -> f64,
// all_reduce i8 -> i32 and f16 -> f32. Rank 0 holds a value the narrow
// type cannot add 1 to exactly (2^24 in f32, 2048 in f16) or a sum that
// overflows i8; the result must be exact, so the sum must run wide.
// REQUIRES: mpi
// RUN: %python %S/gen_shard_programs.py --suite widen --devices 4 > %t4.mlir
// RUN: hp-opt %t4.mlir --hp-lower-to-cpu -o %t4.ll.mlir
// RUN: %hp-runner -np 4 %t4.ll.mlir -e main --entry-point-result=void > %t4.out
// RUN: FileCheck %s --check-prefix=FOUR < %t4.out
// RUN: not grep FAIL %t4.out
// FOUR-COUNT-20: ok
// RUN: %python %S/gen_shard_programs.py --suite widen --devices 2 > %t2.mlir
// RUN: hp-opt %t2.mlir --hp-lower-to-cpu -o %t2.ll.mlir
// RUN: %hp-runner -np 2 %t2.ll.mlir -e main --entry-point-result=void > %t2.out
// RUN: FileCheck %s --check-prefix=TWO < %t2.out
// RUN: not grep FAIL %t2.out
// TWO-COUNT-10: ok
