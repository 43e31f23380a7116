// Uneven and tiny dims: every tensor dim drawn from sizes that do not divide
// the mesh axes or are smaller than them (empty shards), on 1-D and 2-D meshes.
// Random global-view programs made at test time by gen_global.py: a DAG of
// linalg / tensor / arith ops and constraints in one dtensor.global_region,
// placed by dtensor-propagate and run on several ranks; every rank compares
// each result with the same ops on one device (the output carries the checks).
// REQUIRES: mpi
// RUN: %python %S/gen_global.py --mesh 4 --type i32 --seed 1 --ops 10 --dims 1,2,3,5,7 > %t.1.mlir
// RUN: %hp-quick-runner -np 4 %t.1.mlir -e main --entry-point-result=void | FileCheck %t.1.mlir
// RUN: %python %S/gen_global.py --mesh 3 --type f32 --seed 2 --ops 10 --dims 1,2,4,5,7 > %t.2.mlir
// RUN: %hp-quick-runner -np 3 %t.2.mlir -e main --entry-point-result=void | FileCheck %t.2.mlir
// RUN: %python %S/gen_global.py --mesh 2x2 --type i64 --seed 3 --ops 10 --dims 1,3,5,7 > %t.3.mlir
// RUN: %hp-quick-runner -np 4 %t.3.mlir -e main --entry-point-result=void | FileCheck %t.3.mlir
// RUN: %python %S/gen_global.py --mesh 4x1 --type f32 --seed 4 --ops 12 --dims 1,2,3 > %t.4.mlir
// RUN: %hp-quick-runner -np 4 %t.4.mlir -e main --entry-point-result=void | FileCheck %t.4.mlir
