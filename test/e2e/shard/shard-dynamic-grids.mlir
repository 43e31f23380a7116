// Grids whose axes are sized at launch (`shape = ?`, `2x?`, `?x?`) run on
// CPU ranks: grid queries, all_gather and shift (grid suite), update_halo
// and widening reductions, each compared with values the generator computes
// from the real shape. One dynamic axis takes the world size over the
// static axes; with several, HP_GRID_SHAPE_<grid> gives the shape.
// REQUIRES: mpi
// RUN: %python %S/gen_shard_programs.py --suite grid --dynamic last > %tg.mlir
// RUN: hp-opt %tg.mlir --hp-lower-to-cpu -o %tg.ll.mlir
// RUN: %hp-runner -np 4 %tg.ll.mlir -e main --entry-point-result=void > %tg.out
// RUN: FileCheck %s --check-prefix=GRID < %tg.out
// RUN: not grep FAIL %tg.out
// GRID-COUNT-16: ok
// RUN: %python %S/gen_shard_programs.py --suite grid --dynamic all > %ta.mlir
// RUN: hp-opt %ta.mlir --hp-lower-to-cpu -o %ta.ll.mlir
// RUN: env HP_GRID_SHAPE_g2x2=2x2 %hp-runner -np 4 %ta.ll.mlir -e main --entry-point-result=void > %ta.out
// RUN: FileCheck %s --check-prefix=GRID < %ta.out
// RUN: not grep FAIL %ta.out
// RUN: %python %S/gen_shard_programs.py --suite halo --dynamic last > %th.mlir
// RUN: hp-opt %th.mlir --hp-lower-to-cpu -o %th.ll.mlir
// RUN: %hp-runner -np 4 %th.ll.mlir -e main --entry-point-result=void > %th.out
// RUN: FileCheck %s --check-prefix=HALO < %th.out
// RUN: not grep FAIL %th.out
// HALO-COUNT-32: ok
// RUN: %python %S/gen_shard_programs.py --suite widen --dynamic all > %tw.mlir
// RUN: hp-opt %tw.mlir --hp-lower-to-cpu -o %tw.ll.mlir
// RUN: env HP_GRID_SHAPE_g2x2=2x2 %hp-runner -np 4 %tw.ll.mlir -e main --entry-point-result=void > %tw.out
// RUN: FileCheck %s --check-prefix=WIDEN < %tw.out
// RUN: not grep FAIL %tw.out
// WIDEN-COUNT-20: ok
//
// Launch errors are clear and fail the job: two dynamic axes without a
// shape, a shape that does not fit the job, a world size the static axes do
// not divide.
// RUN: not %hp-runner -np 4 %ta.ll.mlir -e main --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=NOSHAPE
// NOSHAPE: grid @g2x2 has 2 dynamic axes; set HP_GRID_SHAPE_g2x2 (e.g. 2x4) to give its shape
// RUN: env HP_GRID_SHAPE_g2x2=2x3 not %hp-runner -np 4 %ta.ll.mlir -e main --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=BADSHAPE
// BADSHAPE: grid @g2x2 has 6 devices but the job has 4 ranks; launch with -np 6
// RUN: env HP_GRID_SHAPE_g2x2=2by2 not %hp-runner -np 4 %ta.ll.mlir -e main --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=NOTSHAPE
// NOTSHAPE: HP_GRID_SHAPE_g2x2='2by2' is not a shape like 2x4
// RUN: not %hp-runner -np 3 %tg.ll.mlir -e main --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=INDIVISIBLE
// INDIVISIBLE: grid @g2x2 cannot fill 3 ranks: its static axes hold 2 devices, which does not divide the world size
