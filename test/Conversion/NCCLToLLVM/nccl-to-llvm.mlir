// RUN: hp-opt %s -convert-nccl-to-llvm | FileCheck %s

// The grid becomes LLVM globals for the runtime; the op is gone.
// CHECK-NOT: nccl.grid
// CHECK-DAG: llvm.mlir.global private constant @__hp_axes_g_1(dense<1> : tensor<1xi64>)
// CHECK-DAG: llvm.mlir.global private constant @__hp_shape_g(dense<[2, 4]> : tensor<2xi64>)
// CHECK-DAG: llvm.mlir.global private constant @__hp_grid_g("g\00")
// CHECK-DAG: llvm.mlir.global private constant @__hp_devices_g(dense<[0, 2, 4, 6, 1, 3, 5, 7]> : tensor<8xi64>)
// NCCL 2.28 signatures, returning ncclResult_t.
// CHECK-DAG: llvm.func @ncclAllGather(!llvm.ptr, !llvm.ptr, i64, i32, !llvm.ptr, !llvm.ptr) -> i32
// CHECK-DAG: llvm.func @ncclReduceScatter(!llvm.ptr, !llvm.ptr, i64, i32, i32, !llvm.ptr, !llvm.ptr) -> i32
// CHECK-DAG: llvm.func @ncclAllReduce(!llvm.ptr, !llvm.ptr, i64, i32, i32, !llvm.ptr, !llvm.ptr) -> i32
// CHECK-DAG: llvm.func @ncclAlltoAll(!llvm.ptr, !llvm.ptr, i64, i32, !llvm.ptr, !llvm.ptr) -> i32
// CHECK-DAG: llvm.func @ncclBroadcast(!llvm.ptr, !llvm.ptr, i64, i32, i32, !llvm.ptr, !llvm.ptr) -> i32
// CHECK-DAG: llvm.func @ncclSend(!llvm.ptr, i64, i32, i32, !llvm.ptr, !llvm.ptr) -> i32
// CHECK-DAG: llvm.func @ncclRecv(!llvm.ptr, i64, i32, i32, !llvm.ptr, !llvm.ptr) -> i32
// CHECK-DAG: llvm.func @ncclGroupStart() -> i32
// CHECK-DAG: llvm.func @ncclGroupEnd() -> i32
// CHECK-DAG: llvm.func @hpNcclComm(!llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> !llvm.ptr
// CHECK-DAG: llvm.func @hpNcclCheck(i32, !llvm.ptr)
nccl.grid @g(shape = 2x4) devices = [0, 2, 4, 6, 1, 3, 5, 7]

// CHECK-LABEL: func.func @calls
func.func @calls(%a: memref<2x6xf32>, %b: memref<8x6xf32>, %h: memref<?xbf16>, %p: index) -> index {
  // The communicator: grid name, rank, shape, device list, axes.
  // CHECK: %[[DEV:.*]] = llvm.mlir.addressof @__hp_devices_g
  // CHECK: %[[NAME:.*]] = llvm.getelementptr
  // CHECK: %[[RANK:.*]] = llvm.mlir.constant(2 : i64) : i64
  // CHECK: %[[SHAPE:.*]] = llvm.mlir.addressof @__hp_shape_g
  // CHECK: %[[NAXES:.*]] = llvm.mlir.constant(1 : i64) : i64
  // CHECK: %[[AXES:.*]] = llvm.mlir.addressof @__hp_axes_g_1
  // CHECK: %[[C:.*]] = llvm.call @hpNcclComm(%[[NAME]], %[[RANK]], %[[SHAPE]], %[[DEV]], %[[NAXES]], %[[AXES]])
  %c = nccl.comm @g axes = [1] : !nccl.comm
  // CHECK: llvm.call @hpNcclCommRank(%[[C]])
  %r = nccl.comm_rank %c : index
  // all_gather counts send elements (2*6); f32 is ncclFloat32 = 7.
  // CHECK: llvm.mul
  // CHECK: %[[SC:.*]] = llvm.mul %{{.*}}, %{{.*}} : i64
  // CHECK: %[[F32:.*]] = llvm.mlir.constant(7 : i32) : i32
  // CHECK: %[[S:.*]] = llvm.call @hpNcclStream()
  // CHECK: %[[RES:.*]] = llvm.call @ncclAllGather(%{{.*}}, %{{.*}}, %[[SC]], %[[F32]], %[[C]], %[[S]])
  // CHECK: llvm.call @hpNcclCheck(%[[RES]], %{{.*}})
  nccl.all_gather %a, %b on %c : memref<2x6xf32>, memref<8x6xf32>
  // reduce_scatter counts recv elements; ncclMax = 2.
  // CHECK: llvm.mlir.constant(2 : i32) : i32
  // CHECK: llvm.call @ncclReduceScatter
  nccl.reduce_scatter %b, %a on %c op = max : memref<8x6xf32>, memref<2x6xf32>
  // A dynamic size comes from the descriptor; bf16 = 9, ncclAvg = 4.
  // CHECK: %[[DYN:.*]] = llvm.extractvalue %{{.*}}[3, 0]
  // CHECK: %[[CNT:.*]] = llvm.mul %{{.*}}, %[[DYN]] : i64
  // CHECK: %[[BF16:.*]] = llvm.mlir.constant(9 : i32) : i32
  // CHECK: %[[AVG:.*]] = llvm.mlir.constant(4 : i32) : i32
  // CHECK: llvm.call @ncclAllReduce(%{{.*}}, %{{.*}}, %{{.*}}, %[[BF16]], %[[AVG]], %[[C]], %{{.*}})
  nccl.all_reduce %h, %h on %c op = avg : memref<?xbf16>, memref<?xbf16>
  // ncclAlltoAll counts per peer: 48 elements / group size 4.
  // CHECK: %[[FOUR:.*]] = llvm.mlir.constant(4 : i64) : i64
  // CHECK: %[[PER:.*]] = llvm.udiv %{{.*}}, %[[FOUR]] : i64
  // CHECK: llvm.call @ncclAlltoAll(%{{.*}}, %{{.*}}, %[[PER]],
  nccl.all_to_all %b, %b on %c : memref<8x6xf32>, memref<8x6xf32>
  // CHECK: %[[ROOT:.*]] = llvm.mlir.constant(2 : i32) : i32
  // CHECK: llvm.call @ncclBroadcast(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ROOT]], %[[C]], %{{.*}})
  nccl.broadcast %a, %a on %c root = 2 : memref<2x6xf32>, memref<2x6xf32>
  // A root known at run time is passed as it is.
  // CHECK: %[[DROOT:.*]] = llvm.trunc %{{.*}} : i64 to i32
  // CHECK: llvm.call @ncclBroadcast(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[DROOT]], %[[C]], %{{.*}})
  nccl.broadcast %a, %a on %c root = %p : memref<2x6xf32>, memref<2x6xf32>
  // CHECK: llvm.call @ncclGroupStart()
  // CHECK: %[[PEER:.*]] = llvm.trunc %{{.*}} : i64 to i32
  // CHECK: llvm.call @ncclSend(%{{.*}}, %{{.*}}, %{{.*}}, %[[PEER]], %[[C]], %{{.*}})
  // CHECK: llvm.call @ncclRecv(
  // CHECK: llvm.call @ncclGroupEnd()
  nccl.group {
    nccl.send %h to %p on %c : memref<?xbf16>
    nccl.recv %h from %p on %c : memref<?xbf16>
  }
  return %r : index
}
