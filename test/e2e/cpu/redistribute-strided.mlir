// strided_shard (torch's _StridedShard, FSDP over TP) on ranks: to and from
// the default nesting (one permute), replicate, partial and other tensor
// dims, chains through it, and local regions that take and return it; the
// other tensor dims even, uneven (8x5) and with empty blocks (nx1). 4 ranks
// (2x2, f32; regions in i32) and 8 ranks (2x4 f64, 4x2 bf16, 2x2x2 i64).
// Every rank's block is compared with the block the generator computes from
// torch's chunk definition (independently of hp's nesting order), every plan
// is checked by simulation, and the plans do use permutes.
// REQUIRES: mpi
// RUN: %python %S/gen_redistribute.py --mesh 2x2 --type f32 --suite strided > %t4.mlir
// RUN: hp-opt %t4.mlir --hp-partition="verify-plans latency-bytes=0" | grep -c "shard.send" | FileCheck %s --check-prefix=SENDS4
// SENDS4: {{[1-9][0-9]*}}
// RUN: hp-opt %t4.mlir --hp-lower-to-cpu="verify-plans latency-bytes=0" -o %t4.ll.mlir
// RUN: %hp-quick-runner -np 4 %t4.ll.mlir -e main --entry-point-result=void > %t4.out
// RUN: FileCheck %t4.mlir < %t4.out
// RUN: not grep FAIL %t4.out
// RUN: %python %S/gen_redistribute.py --mesh 2x2 --type i32 --suite strided --regions > %tr.mlir
// RUN: hp-opt %tr.mlir --hp-lower-to-cpu="verify-plans" -o %tr.ll.mlir
// RUN: %hp-quick-runner -np 4 %tr.ll.mlir -e main --entry-point-result=void > %tr.out
// RUN: FileCheck %tr.mlir < %tr.out
// RUN: not grep FAIL %tr.out
// RUN: %python %S/gen_redistribute.py --mesh 2x4 --type f64 --suite strided > %t8.mlir
// RUN: hp-opt %t8.mlir --hp-lower-to-cpu="verify-plans" -o %t8.ll.mlir
// RUN: %hp-quick-runner -np 8 %t8.ll.mlir -e main --entry-point-result=void > %t8.out
// RUN: FileCheck %t8.mlir < %t8.out
// RUN: not grep FAIL %t8.out
// RUN: %python %S/gen_redistribute.py --mesh 4x2 --type bf16 --suite strided > %t42.mlir
// RUN: hp-opt %t42.mlir --hp-lower-to-cpu="verify-plans latency-bytes=0" -o %t42.ll.mlir
// RUN: %hp-quick-runner -np 8 %t42.ll.mlir -e main --entry-point-result=void > %t42.out
// RUN: FileCheck %t42.mlir < %t42.out
// RUN: not grep FAIL %t42.out
// RUN: %python %S/gen_redistribute.py --mesh 2x2x2 --type i64 --suite strided > %t222.mlir
// RUN: hp-opt %t222.mlir --hp-partition="verify-plans latency-bytes=0" | grep -c "shard.send" | FileCheck %s --check-prefix=SENDS8
// SENDS8: {{[1-9][0-9]*}}
// RUN: hp-opt %t222.mlir --hp-lower-to-cpu="verify-plans latency-bytes=0" -o %t222.ll.mlir
// RUN: %hp-quick-runner -np 8 %t222.ll.mlir -e main --entry-point-result=void > %t222.out
// RUN: FileCheck %t222.mlir < %t222.out
// RUN: not grep FAIL %t222.out
