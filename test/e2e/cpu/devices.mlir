// A grid's `devices` list decides which MPI rank holds which mesh
// coordinate: with devices = [3, 1, 2, 0], world rank 3 is mesh index 0.
// Each rank prints 10 * world rank + its linear mesh index.
// REQUIRES: mpi
// RUN: %hp-runner -np 4 %s -e main --entry-point-result=void | FileCheck %s
// CHECK-DAG: map 30
// CHECK-DAG: map 11
// CHECK-DAG: map 22
// CHECK-DAG: map 3{{$}}

shard.grid @m(shape = 2x2) {dtensor.devices = array<i64: 3, 1, 2, 0>}

llvm.mlir.global private constant @rank_var("OMPI_COMM_WORLD_RANK\00")
llvm.func @getenv(!llvm.ptr) -> !llvm.ptr
llvm.func @atoi(!llvm.ptr) -> i32

func.func @world_rank() -> i64 {
  %name = llvm.mlir.addressof @rank_var : !llvm.ptr
  %value = llvm.call @getenv(%name) : (!llvm.ptr) -> !llvm.ptr
  %rank = llvm.call @atoi(%value) : (!llvm.ptr) -> i32
  %r64 = arith.extsi %rank : i32 to i64
  return %r64 : i64
}

func.func @main() {
  %world = func.call @world_rank() : () -> i64
  %mesh = shard.process_linear_index on @m : index
  %mesh64 = arith.index_cast %mesh : index to i64
  %c10 = arith.constant 10 : i64
  %w10 = arith.muli %world, %c10 : i64
  %code = arith.addi %w10, %mesh64 : i64
  vector.print str "map "
  vector.print %code : i64
  return
}
