// dtensor.sort on real ranks (gen_sort.py makes each program at test time):
// rows split over the other dims (even, uneven, empty pieces, nested on two
// axes), a sorted dim asked for split (gathered first), a size-1 axis,
// ascending and descending, ties and NaNs, several types; values and indices
// compared bit for bit with an independent rank-and-pick definition on one
// device.
// The first k of a sort (torch's topk: lowered by selection for k up to 64,
// else the sort and its slice): rows split, uneven, along dim 0, k of 1 and
// of n - 1, several types, and k = 70 (the full sort).
// REQUIRES: mpi
// RUN: %python %S/gen_sort.py --mesh 4 --case f32:6x9:1:asc:S0 --case f32:6x9:1:desc:S0 --case i64:3x17:1:asc:S0 --case f64:13:0:desc:S0 --case i32:5x4:0:asc:S1 > %t.1.mlir
// RUN: %hp-quick-runner -np 4 %t.1.mlir -e main --entry-point-result=void | FileCheck %t.1.mlir
// RUN: %python %S/gen_sort.py --mesh 2x2 --case f16:7x3x5:2:desc:S0,S0 --case bf16:4x6:1:asc:R,S0 --case i64:2x33:1:desc:S0,S1 > %t.2.mlir
// RUN: %hp-quick-runner -np 4 %t.2.mlir -e main --entry-point-result=void | FileCheck %t.2.mlir
// RUN: %python %S/gen_sort.py --mesh 1x3 --case f32:5x8:1:asc:R,S0 --case i32:3x2x6:2:desc:S1,S0 > %t.3.mlir
// RUN: %hp-quick-runner -np 3 %t.3.mlir -e main --entry-point-result=void | FileCheck %t.3.mlir
// RUN: %python %S/gen_sort.py --mesh 2x2 --case f32:6x40:1:desc:S0,R:top5 --case f32:3x23:1:asc:S0,S1:top3 --case i64:3x17:1:asc:R,S0:top1 --case f32:5x8:0:desc:R,S1:top4 --case bf16:4x9:1:desc:S0,R:top8 --case f64:2x80:1:asc:S0,R:top70 --case i32:4x6:1:desc:S0,S0:top5 > %t.4.mlir
// RUN: %hp-quick-runner -np 4 %t.4.mlir -e main --entry-point-result=void | FileCheck %t.4.mlir
