// dtensor.scan on real ranks (gen_scan.py makes each program at test time):
// split along its dim (even, uneven, empty pieces, nested on two axes), along
// another dim, replicated on a size-1 axis, partial sums passed through, every
// kind and several types; each result compared exactly with an independent
// masked reduction on one device.
// REQUIRES: mpi
// RUN: %python %S/gen_scan.py --mesh 4 --case f32:sum:3x16:1:S1 --case f32:sum:3x7:1:S1 --case i64:sum:3:0:S0 --case f32:sum:6:0:P --case i64:max:9x2:0:S0 --case f16:sum:8:0:S0 > %t.1.mlir
// RUN: %hp-quick-runner -np 4 %t.1.mlir -e main --entry-point-result=void | FileCheck %t.1.mlir
// RUN: %python %S/gen_scan.py --mesh 2x2 --case f64:prod:7x3:0:S0,S0 --case i32:max:5x6:1:S1,S0 --case bf16:min:4x5:1:R,S1 --case i64:sum:5:0:S0,S0 > %t.2.mlir
// RUN: %hp-quick-runner -np 4 %t.2.mlir -e main --entry-point-result=void | FileCheck %t.2.mlir
// RUN: %python %S/gen_scan.py --mesh 1x3 --case f32:min:4x9:1:R,S1 --case i32:prod:10:0:S0,S0 > %t.3.mlir
// RUN: %hp-quick-runner -np 3 %t.3.mlir -e main --entry-point-result=void | FileCheck %t.3.mlir
// RUN: %python %S/gen_scan.py --mesh 2x1x2 --case i64:sum:4x6x5:2:S2,R,S0 --case f32:sum:4x6x5:1:S1,R,S1 > %t.4.mlir
// RUN: %hp-quick-runner -np 4 %t.4.mlir -e main --entry-point-result=void | FileCheck %t.4.mlir
