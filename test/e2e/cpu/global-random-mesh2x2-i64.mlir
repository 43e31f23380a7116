// A 2x2 mesh, i64 (compared exactly).
// Random global-view programs made at test time by gen_global.py: a DAG of
// linalg / tensor / arith ops and constraints in one dtensor.global_region,
// placed by dtensor-propagate and run on 4 ranks; every rank compares each
// result with the same ops on one device (the output carries the checks).
// Seed 11 runs with --partial-kind-changes: a result asks for another
// partial kind than its value carries on a mesh dim (reached through
// replicate).
// REQUIRES: mpi
// RUN: %python %S/gen_global.py --mesh 2x2 --type i64 --seed 1 --ops 10 > %t.1.mlir
// RUN: %hp-quick-runner -np 4 %t.1.mlir -e main --entry-point-result=void | FileCheck %t.1.mlir
// RUN: %python %S/gen_global.py --mesh 2x2 --type i64 --seed 2 --ops 10 > %t.2.mlir
// RUN: %hp-quick-runner -np 4 %t.2.mlir -e main --entry-point-result=void | FileCheck %t.2.mlir
// RUN: %python %S/gen_global.py --mesh 2x2 --type i64 --seed 3 --ops 10 > %t.3.mlir
// RUN: %hp-quick-runner -np 4 %t.3.mlir -e main --entry-point-result=void | FileCheck %t.3.mlir
// RUN: %python %S/gen_global.py --mesh 2x2 --type i64 --seed 4 --ops 10 > %t.4.mlir
// RUN: %hp-quick-runner -np 4 %t.4.mlir -e main --entry-point-result=void | FileCheck %t.4.mlir
// RUN: %python %S/gen_global.py --mesh 2x2 --type i64 --seed 11 --ops 10 --partial-kind-changes > %t.5.mlir
// RUN: %hp-quick-runner -np 4 %t.5.mlir -e main --entry-point-result=void | FileCheck %t.5.mlir
