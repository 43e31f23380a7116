// Permutes of sub-blocks: the target's splits refine or coarsen the
// source's evenly. A refined block lies inside one device's old block (a
// block feeds several receivers); a coarsened one is gathered from pieces of
// several devices in rounds; every rank sends and receives one piece per
// round, all rounds in one nccl.group. 4 ranks (2x2, f32) and 8 ranks (2x4
// f32, 4x2 i32, 2x2x2 f64 with a partial axis riding along); other dims
// even, uneven (x5) and empty (x1). Every plan is checked by simulation and
// every rank compares its block with the generator's own torch.chunk block.
// The plans do use them: on 2x4 (16x8 f32) [S0,R] -> [S1,S0] is one permute
// of one 4x4 block (64 bytes), [S0,S1] -> [S1,S0] one permute in two rounds
// of 4x2 pieces (64 bytes; JAX: 112 in two collectives).
// REQUIRES: mpi
// RUN: %python %S/gen_redistribute.py --mesh 2x4 --type f32 --suite subblock > %t24.mlir
// RUN: hp-opt %t24.mlir --hp-partition="verify-plans latency-bytes=0 print-plans" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLAN
// PLAN: remark: plan [S(0), R] -> [S(1), S(0)]: cost=6.400000e+01 collectives=1 steps=[permute(axes=[0, 1], splits={{\[\[1\], \[0\]\]}}, cost=6.400000e+01)]
// PLAN: remark: plan [S(0), S(1)] -> [S(1), S(0)]: cost=6.400000e+01 collectives=1 steps=[permute(axes=[0, 1], splits={{\[\[1\], \[0\]\]}}, cost=6.400000e+01)]
// RUN: hp-opt %t24.mlir --hp-lower-to-cpu="verify-plans latency-bytes=0" -o %t24.ll.mlir
// RUN: %hp-quick-runner -np 8 %t24.ll.mlir -e main --entry-point-result=void > %t24.out
// RUN: FileCheck %t24.mlir < %t24.out
// RUN: not grep FAIL %t24.out
// RUN: %python %S/gen_redistribute.py --mesh 2x2 --type f32 --suite subblock > %t22.mlir
// RUN: hp-opt %t22.mlir --hp-lower-to-cpu="verify-plans latency-bytes=0" -o %t22.ll.mlir
// RUN: %hp-quick-runner -np 4 %t22.ll.mlir -e main --entry-point-result=void > %t22.out
// RUN: FileCheck %t22.mlir < %t22.out
// RUN: not grep FAIL %t22.out
// RUN: %python %S/gen_redistribute.py --mesh 4x2 --type i32 --suite subblock > %t42.mlir
// RUN: hp-opt %t42.mlir --hp-lower-to-cpu="verify-plans" -o %t42.ll.mlir
// RUN: %hp-quick-runner -np 8 %t42.ll.mlir -e main --entry-point-result=void > %t42.out
// RUN: FileCheck %t42.mlir < %t42.out
// RUN: not grep FAIL %t42.out
// RUN: %python %S/gen_redistribute.py --mesh 2x2x2 --type f64 --suite subblock > %t222.mlir
// RUN: hp-opt %t222.mlir --hp-lower-to-cpu="verify-plans latency-bytes=0" -o %t222.ll.mlir
// RUN: %hp-quick-runner -np 8 %t222.ll.mlir -e main --entry-point-result=void > %t222.out
// RUN: FileCheck %t222.mlir < %t222.out
// RUN: not grep FAIL %t222.out
