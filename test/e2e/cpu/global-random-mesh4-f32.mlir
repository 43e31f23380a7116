// A 1-D mesh of 4, f32 (compared within 1e-4 relative).
// Random global-view programs made at test time by gen_global.py: a DAG of
// linalg / tensor / arith ops and constraints in one dtensor.global_region,
// placed by dtensor-propagate and run on 4 ranks; every rank compares each
// result with the same ops on one device (the output carries the checks).
// REQUIRES: mpi
// RUN: %python %S/gen_global.py --mesh 4 --type f32 --seed 1 --ops 10 > %t.1.mlir
// RUN: %hp-quick-runner -np 4 %t.1.mlir -e main --entry-point-result=void | FileCheck %t.1.mlir
// RUN: %python %S/gen_global.py --mesh 4 --type f32 --seed 2 --ops 10 > %t.2.mlir
// RUN: %hp-quick-runner -np 4 %t.2.mlir -e main --entry-point-result=void | FileCheck %t.2.mlir
// RUN: %python %S/gen_global.py --mesh 4 --type f32 --seed 3 --ops 10 > %t.3.mlir
// RUN: %hp-quick-runner -np 4 %t.3.mlir -e main --entry-point-result=void | FileCheck %t.3.mlir
// RUN: %python %S/gen_global.py --mesh 4 --type f32 --seed 4 --ops 10 > %t.4.mlir
// RUN: %hp-quick-runner -np 4 %t.4.mlir -e main --entry-point-result=void | FileCheck %t.4.mlir
