// shard.update_halo on CPU ranks: 1-D and 2-D grids, uneven halos, a zero
// halo, halo = core, two grid axes on one dim, size-1 axes, corners, five
// element types. The program is generated at test time; each rank builds
// its expected halos from update_halo's definition (neighbour data inside
// the group, the old halo at its ends) and prints ok or FAIL <case>.
// REQUIRES: mpi
// RUN: %python %S/gen_shard_programs.py --suite halo --devices 4 > %t4.mlir
// RUN: hp-opt %t4.mlir --hp-lower-to-cpu -o %t4.ll.mlir
// RUN: %hp-runner -np 4 %t4.ll.mlir -e main --entry-point-result=void > %t4.out
// RUN: FileCheck %s --check-prefix=FOUR < %t4.out
// RUN: not grep FAIL %t4.out
// FOUR-COUNT-32: ok
// RUN: %python %S/gen_shard_programs.py --suite halo --devices 3 > %t3.mlir
// RUN: hp-opt %t3.mlir --hp-lower-to-cpu -o %t3.ll.mlir
// RUN: %hp-runner -np 3 %t3.ll.mlir -e main --entry-point-result=void > %t3.out
// RUN: FileCheck %s --check-prefix=THREE < %t3.out
// RUN: not grep FAIL %t3.out
// THREE-COUNT-6: ok
