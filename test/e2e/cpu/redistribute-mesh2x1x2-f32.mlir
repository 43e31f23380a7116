// A 3-D mesh with a size-1 axis.
// The program is generated at test time; every plan is checked by simulation
// at compile time (verify-plans) and every rank compares its blocks with
// values the generator computes independently of hp, under both cost settings.
// REQUIRES: mpi
// RUN: %python %S/gen_redistribute.py --mesh 2x1x2 --type f32 --suite empty --suite ranks --suite chains --suite mixed > %t.mlir
// RUN: hp-opt %t.mlir --hp-lower-to-cpu="verify-plans latency-bytes=0" -o %t.bytes.mlir
// RUN: %hp-quick-runner -np 4 %t.bytes.mlir -e main --entry-point-result=void > %t.bytes.out
// RUN: FileCheck %t.mlir < %t.bytes.out
// RUN: hp-opt %t.mlir --hp-lower-to-cpu="verify-plans" -o %t.default.mlir
// RUN: %hp-quick-runner -np 4 %t.default.mlir -e main --entry-point-result=void > %t.default.out
// RUN: FileCheck %t.mlir < %t.default.out
