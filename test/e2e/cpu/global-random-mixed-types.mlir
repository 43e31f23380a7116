// Mixed element types in one program: gen_global.py draws each op's type
// from the list and carries values across types with casts (sitofp, fptosi,
// extsi, trunci, extf, truncf in an elementwise generic), on a 2x2 mesh and
// an uneven 3-rank one; every rank compares each result with the same ops
// on one device (the output carries the checks).
// REQUIRES: mpi
// RUN: %python %S/gen_global.py --mesh 2x2 --type f32,i64,i32 --seed 1 --ops 12 > %t.1.mlir
// RUN: %hp-quick-runner -np 4 %t.1.mlir -e main --entry-point-result=void | FileCheck %t.1.mlir
// RUN: %python %S/gen_global.py --mesh 2x2 --type f32,i64,i32 --seed 2 --ops 12 > %t.2.mlir
// RUN: %hp-quick-runner -np 4 %t.2.mlir -e main --entry-point-result=void | FileCheck %t.2.mlir
// RUN: %python %S/gen_global.py --mesh 2x2 --type f64,f32,i32 --seed 2 --ops 12 > %t.3.mlir
// RUN: %hp-quick-runner -np 4 %t.3.mlir -e main --entry-point-result=void | FileCheck %t.3.mlir
// RUN: %python %S/gen_global.py --mesh 3 --type f64,f32,i32 --seed 8 --ops 12 > %t.4.mlir
// RUN: %hp-quick-runner -np 3 %t.4.mlir -e main --entry-point-result=void | FileCheck %t.4.mlir
