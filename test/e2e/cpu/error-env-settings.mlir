// The runtime's numeric environment is parsed with overflow and range
// checks: a value that is malformed, overflows or is out of range ends the
// job with an error naming the variable, instead of running on the number
// atoi or a wrapping product would make of it (3x6148914691236517206 is
// 2^64 + 2 devices, which wrapped to the 2 ranks of the job).
// REQUIRES: mpi
// RUN: env HP_GRID_SHAPE_g=1x2 %hp-runner -np 2 %s | FileCheck %s --check-prefix=OK
// OK-COUNT-2: index {{[01]}}
// RUN: env HP_GRID_SHAPE_g=3x6148914691236517206 not %hp-runner -np 2 %s 2>&1 | FileCheck %s --check-prefix=WRAP
// WRAP: hp: rank {{[01]}}: HP_GRID_SHAPE_g='3x6148914691236517206' has more devices than a job can have ranks (2147483647)
// WRAP-NOT: index
// RUN: env HP_GRID_SHAPE_g=1x99999999999999999999 not %hp-runner %s 2>&1 | FileCheck %s --check-prefix=BIG
// BIG: hp: rank 0: HP_GRID_SHAPE_g='1x99999999999999999999' is not a shape like 2x4
// RUN: env HP_GRID_SHAPE_g=1x-1 not %hp-runner %s 2>&1 | FileCheck %s --check-prefix=NEG
// NEG: hp: rank 0: HP_GRID_SHAPE_g='1x-1' is not a shape like 2x4
//
// Rank and world size from the launcher, or HP_RANK / HP_WORLD_SIZE without
// one (4294967297 is 2^32 + 1, which atoi wrapped to 1).
// RUN: env HP_WORLD_SIZE=4294967297 not %hp-runner %s 2>&1 | FileCheck %s --check-prefix=SIZE
// SIZE: hp: HP_WORLD_SIZE='4294967297' must be an integer from 1 to 2147483647
// RUN: env HP_WORLD_SIZE=two not %hp-runner %s 2>&1 | FileCheck %s --check-prefix=NAME
// NAME: hp: HP_WORLD_SIZE='two' must be an integer from 1 to 2147483647
// RUN: env HP_RANK=-1 not %hp-runner %s 2>&1 | FileCheck %s --check-prefix=RANK
// RANK: hp: HP_RANK='-1' must be an integer from 0 to 2147483646
// RUN: env HP_RANK=1 HP_WORLD_SIZE=1 not %hp-runner %s 2>&1 | FileCheck %s --check-prefix=OUTSIDE
// OUTSIDE: hp: HP_RANK=1 is not below the world size 1 (HP_WORLD_SIZE)

shard.grid @g(shape = ?x?)

func.func @main() {
  %i = shard.process_linear_index on @g : index
  vector.print str "index "
  vector.print %i : index
  return
}
