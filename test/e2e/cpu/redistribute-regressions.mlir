// Programs that once computed wrong numbers or failed, each run on its ranks:
//  * [2,2] 7x9: [partial<max>, shard<0>] -> [replicate, shard<1>] and two more
//    plans whose collectives read a strided buffer as if it were contiguous;
//  * [2,4] 6: [shard<0>, shard<0>] -> [replicate]: an empty last piece in a
//    merged all_gather;
//  * [2,3] 6x4x6: [shard<2>, shard<2>] -> [shard<1>, shard<1>]: a merged
//    all_to_all whose nested pieces (1,1,0,1,1,0) differ from a flat split.
//  * [2,3] 2x2x8: [partial<sum>, partial<sum>] -> [partial<sum>, shard<2>]:
//    a function returning a column block of dynamic width, which
//    bufferization handed back through a cast to an identity layout.
//  * integers: [2,2,2] 4x6 i64 [S0,R,P(avg)] -> [P(min),P(sum),S0] and
//    [1,2,2] 3x1 i64/i32 [R,R,S0] -> [P(max),P(min),P(avg)]: a min fill's
//    INT_MAX added up by an avg, right in exact arithmetic only.
// REQUIRES: mpi
// RUN: %python %S/gen_redistribute.py --mesh 2x2 --type i32 --cases "7x9:P(max),S0->R,S1; 10x5:S0,P->S1,S0; 10x5:P,P(max)->S1,R" > %t.strided.mlir
// RUN: hp-opt %t.strided.mlir --hp-lower-to-cpu=verify-plans -o %t.strided.ll.mlir
// RUN: %hp-quick-runner -np 4 %t.strided.ll.mlir -e main --entry-point-result=void | FileCheck %t.strided.mlir
// RUN: %python %S/gen_redistribute.py --mesh 2x4 --type i32 --cases "6:S0,S0->R,R" > %t.empty.mlir
// RUN: hp-opt %t.empty.mlir --hp-lower-to-cpu=verify-plans -o %t.empty.ll.mlir
// RUN: %hp-quick-runner -np 8 %t.empty.ll.mlir -e main --entry-point-result=void | FileCheck %t.empty.mlir
// RUN: %python %S/gen_redistribute.py --mesh 2x3 --type i64 --cases "6x4x6:S2,S2->S1,S1" > %t.merged.mlir
// RUN: hp-opt %t.merged.mlir --hp-lower-to-cpu=verify-plans -o %t.merged.ll.mlir
// RUN: %hp-quick-runner -np 6 %t.merged.ll.mlir -e main --entry-point-result=void | FileCheck %t.merged.mlir
// RUN: %python %S/gen_redistribute.py --mesh 2x3 --type i64 --cases "2x2x8:P(sum),P(min)->P(sum),S2; 6x5x8:P(sum),P(sum)->P(sum),S2" > %t.column.mlir
// RUN: hp-opt %t.column.mlir --hp-lower-to-cpu=verify-plans -o %t.column.ll.mlir
// RUN: %hp-quick-runner -np 6 %t.column.ll.mlir -e main --entry-point-result=void | FileCheck %t.column.mlir
// RUN: %python %S/gen_redistribute.py --mesh 2x2x2 --type i64 --cases "4x6:S0,R,P(avg)->P(min),P(sum),S0" > %t.int1.mlir
// RUN: hp-opt %t.int1.mlir --hp-lower-to-cpu=verify-plans -o %t.int1.ll.mlir
// RUN: %hp-quick-runner -np 8 %t.int1.ll.mlir -e main --entry-point-result=void | FileCheck %t.int1.mlir
// RUN: %python %S/gen_redistribute.py --mesh 1x2x2 --type i64 --cases "3x1:R,R,S0->P(max),P(min),P(avg)" > %t.int2.mlir
// RUN: hp-opt %t.int2.mlir --hp-lower-to-cpu=verify-plans -o %t.int2.ll.mlir
// RUN: %hp-quick-runner -np 4 %t.int2.ll.mlir -e main --entry-point-result=void | FileCheck %t.int2.mlir
// RUN: %python %S/gen_redistribute.py --mesh 1x2x2 --type i32 --cases "3x1:R,R,S0->P(max),P(min),P(avg)" > %t.int3.mlir
// RUN: hp-opt %t.int3.mlir --hp-lower-to-cpu=verify-plans -o %t.int3.ll.mlir
// RUN: %hp-quick-runner -np 4 %t.int3.ll.mlir -e main --entry-point-result=void | FileCheck %t.int3.mlir
