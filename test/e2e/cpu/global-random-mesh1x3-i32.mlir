// A 2-D mesh with a size-1 axis, i32 (compared exactly).
// Random global-view programs made at test time by gen_global.py: a DAG of
// linalg / tensor / arith ops and constraints in one dtensor.global_region,
// placed by dtensor-propagate and run on 3 ranks; every rank compares each
// result with the same ops on one device (the output carries the checks).
// REQUIRES: mpi
// RUN: %python %S/gen_global.py --mesh 1x3 --type i32 --seed 1 --ops 10 > %t.1.mlir
// RUN: %hp-quick-runner -np 3 %t.1.mlir -e main --entry-point-result=void | FileCheck %t.1.mlir
// RUN: %python %S/gen_global.py --mesh 1x3 --type i32 --seed 2 --ops 10 > %t.2.mlir
// RUN: %hp-quick-runner -np 3 %t.2.mlir -e main --entry-point-result=void | FileCheck %t.2.mlir
// RUN: %python %S/gen_global.py --mesh 1x3 --type i32 --seed 3 --ops 10 > %t.3.mlir
// RUN: %hp-quick-runner -np 3 %t.3.mlir -e main --entry-point-result=void | FileCheck %t.3.mlir
// RUN: %python %S/gen_global.py --mesh 1x3 --type i32 --seed 4 --ops 10 > %t.4.mlir
// RUN: %hp-quick-runner -np 3 %t.4.mlir -e main --entry-point-result=void | FileCheck %t.4.mlir
