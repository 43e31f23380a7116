// Redistributes that point-to-point permutes serve, on 4 ranks (2x2, f32)
// and 8 ranks (2x2x2, f64): mesh axes of equal size swapping roles, a
// nesting reordered before a gather, a split moving to another axis, with a
// partial axis riding along, roles in a 3-cycle (the peer a rank sends to
// is not the one it receives from); even, uneven (10x5) and empty (3x1, 1x3)
// blocks. The programs are generated at test time; every plan is checked by
// simulation (verify-plans) and every rank compares its blocks with values
// the generator computes independently of hp. The plans do use permutes
// (shard.send appears), and every rank's output is checked.
// REQUIRES: mpi
// RUN: %python %S/gen_redistribute.py --mesh 2x2 --type f32 --suite permute > %t4.mlir
// RUN: hp-opt %t4.mlir --hp-partition="verify-plans latency-bytes=0" | grep -c "shard.send" | FileCheck %s --check-prefix=SENDS4
// SENDS4: {{[1-9][0-9]*}}
// RUN: hp-opt %t4.mlir --hp-lower-to-cpu="verify-plans latency-bytes=0" -o %t4.ll.mlir
// RUN: %hp-quick-runner -np 4 %t4.ll.mlir -e main --entry-point-result=void > %t4.out
// RUN: FileCheck %t4.mlir < %t4.out
// RUN: not grep FAIL %t4.out
// RUN: %python %S/gen_redistribute.py --mesh 2x2x2 --type f64 --suite permute > %t8.mlir
// RUN: hp-opt %t8.mlir --hp-partition="verify-plans latency-bytes=0" | grep -c "shard.send" | FileCheck %s --check-prefix=SENDS8
// SENDS8: {{[1-9][0-9]*}}
// RUN: hp-opt %t8.mlir --hp-lower-to-cpu="verify-plans latency-bytes=0" -o %t8.ll.mlir
// RUN: %hp-quick-runner -np 8 %t8.ll.mlir -e main --entry-point-result=void > %t8.out
// RUN: FileCheck %t8.mlir < %t8.out
// RUN: not grep FAIL %t8.out
// RUN: hp-opt %t8.mlir --hp-lower-to-cpu="verify-plans" -o %t8.default.mlir
// RUN: %hp-quick-runner -np 8 %t8.default.mlir -e main --entry-point-result=void > %t8.default.out
// RUN: FileCheck %t8.mlir < %t8.default.out
// RUN: not grep FAIL %t8.default.out
