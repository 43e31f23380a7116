// On a grid with an axis sized at launch the group size is a run-time value
// (nccl.comm_size), used wherever a static lowering uses the constant.
// RUN: hp-opt %s -convert-shard-to-nccl -cse -canonicalize -split-input-file | FileCheck %s

shard.grid @g(shape = 2x?)

// all_gather: the receive buffer holds n blocks of 2 rows.
// CHECK-LABEL: func @gather
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[COMM:.*]] = nccl.comm @g axes = [1]
// CHECK: %[[N:.*]] = nccl.comm_size %[[COMM]] : index
// CHECK: %[[ROWS:.*]] = arith.muli %[[N]], %[[C2]] : index
// CHECK: %[[R:.*]] = memref.alloc(%[[ROWS]]) : memref<?x3xf32>
// CHECK: nccl.all_gather %{{.*}}, %[[R]] on %[[COMM]]
func.func @gather(%x: tensor<2x3xf32>) -> tensor<?x3xf32> {
  %r = shard.all_gather %x on @g grid_axes = [1] gather_axis = 0 : tensor<2x3xf32> -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}

// grid_shape: the static axis is a constant, the dynamic one the size of
// its one-axis communicator.
// CHECK-LABEL: func @shape
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[COMM:.*]] = nccl.comm @g axes = [1]
// CHECK: %[[N:.*]] = nccl.comm_size %[[COMM]] : index
// CHECK: return %[[C2]], %[[N]]
func.func @shape() -> (index, index) {
  %s:2 = shard.grid_shape @g : index, index
  return %s#0, %s#1 : index, index
}

// shift by -1: k = ((-1 mod n) + n) mod n = n - 1; send to me + k (me - 1),
// receive from me + (n - k) (me + 1), all mod n.
// CHECK-LABEL: func @shift
// CHECK-DAG: %[[M1:.*]] = arith.constant -1 : index
// CHECK: %[[N:.*]] = nccl.comm_size %[[COMM:.*]] : index
// CHECK: %[[ME:.*]] = nccl.comm_rank %[[COMM]] : index
// CHECK: %[[R:.*]] = arith.remsi %[[M1]], %[[N]] : index
// CHECK: %[[RN:.*]] = arith.addi %[[R]], %[[N]] : index
// CHECK: %[[K:.*]] = arith.remui %[[RN]], %[[N]] : index
// CHECK: %[[BACK:.*]] = arith.subi %[[N]], %[[K]] : index
// CHECK: %[[T0:.*]] = arith.addi %[[ME]], %[[K]] : index
// CHECK: %[[TO:.*]] = arith.remui %[[T0]], %[[N]] : index
// CHECK: %[[F0:.*]] = arith.addi %[[ME]], %[[BACK]] : index
// CHECK: %[[FROM:.*]] = arith.remui %[[F0]], %[[N]] : index
// CHECK: nccl.send %{{.*}} to %[[TO]]
// CHECK: nccl.recv %{{.*}} from %[[FROM]]
func.func @shift(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = shard.shift %x on @g grid_axes = [1] shift_axis = 1 offset = -1 rotate : tensor<4xf32> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// update_halo: the last member of the group is n - 1.
// CHECK-LABEL: func @halo
// CHECK: %[[N:.*]] = nccl.comm_size
// CHECK: %[[LAST:.*]] = arith.subi %[[N]], %{{.*}} : index
// CHECK: nccl.group
// CHECK: arith.cmpi ult, %{{.*}}, %[[LAST]] : index
func.func @halo(%x: tensor<6x2xf32>) -> tensor<6x2xf32> {
  %r = shard.update_halo %x on @g split_axes = [[1]] halo_sizes = [1, 1] : tensor<6x2xf32>
  return %r : tensor<6x2xf32>
}

// -----

shard.grid @g(shape = ?)

// all_to_all: the received rows are n blocks of 8 / n rows; block j goes to
// columns [2j, 2j + 2). With n known only at run time the blocks are placed
// by index arithmetic (one reshape into two dynamic extents crashes
// upstream's expand-strided-metadata, found by fuzzing): result (p, q) is
// received row (q / 2) * (8 / n) + p, column q % 2.
// CHECK-LABEL: func @all_to_all
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK: %[[N:.*]] = nccl.comm_size
// CHECK: nccl.all_to_all
// CHECK: %[[T:.*]] = bufferization.to_tensor
// CHECK: %[[P:.*]] = arith.divui %[[C8]], %[[N]] : index
// CHECK: %[[W:.*]] = arith.muli %[[N]], %[[C2]] : index
// CHECK: tensor.generate %[[P]], %[[W]] {
// CHECK-NEXT: ^bb0(%[[R:.*]]: index, %[[Q:.*]]: index):
// CHECK-NEXT: %[[J:.*]] = arith.divui %[[Q]], %[[C2]] : index
// CHECK-NEXT: %[[C:.*]] = arith.remui %[[Q]], %[[C2]] : index
// CHECK-NEXT: %[[JP:.*]] = arith.muli %[[J]], %[[P]] : index
// CHECK-NEXT: %[[ROW:.*]] = arith.addi %[[JP]], %[[R]] : index
// CHECK-NEXT: tensor.extract %[[T]][%[[ROW]], %[[C]]] : tensor<8x2xf32>
// CHECK-NOT: expand_shape
func.func @all_to_all(%x: tensor<8x2xf32>) -> tensor<?x?xf32> {
  %r = shard.all_to_all %x on @g grid_axes = [0] split_axis = 0 concat_axis = 1 : tensor<8x2xf32> -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// scatter: the root's in-group index is its coordinate, 1 (not a product
// with the dynamic marker); each rank keeps rows [me * 8/n, (me+1) * 8/n).
// CHECK-LABEL: func @scatter
// CHECK: nccl.broadcast %{{.*}}, %{{.*}} on %{{.*}} root = 1
// CHECK: %[[N:.*]] = nccl.comm_size
// CHECK: %[[ME:.*]] = nccl.comm_rank
// CHECK: %[[B:.*]] = arith.divui %{{.*}}, %[[N]] : index
// CHECK: %[[O:.*]] = arith.muli %[[ME]], %[[B]] : index
// CHECK: tensor.extract_slice %{{.*}}[%[[O]], 0] [%[[B]], 2] [1, 1]
func.func @scatter(%x: tensor<8x2xf32>) -> tensor<?x2xf32> {
  %r = shard.scatter %x on @g grid_axes = [0] scatter_axis = 0 root = [1] : (tensor<8x2xf32>) -> tensor<?x2xf32>
  return %r : tensor<?x2xf32>
}

// -----

shard.grid @g(shape = 2x?)

// A static root on several axes, one of them sized at launch: its in-group
// rank is computed from the communicator's size.
// CHECK-LABEL: func @broadcast_two_axes
// CHECK: %[[N:.*]] = nccl.comm_size
// CHECK: %[[LIN:.*]] = affine.linearize_index [%{{.*}}, %{{.*}}] by (2, %[[N]]) : index
// CHECK: nccl.broadcast %{{.*}}, %{{.*}} on %{{.*}} root = %[[LIN]]
func.func @broadcast_two_axes(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = shard.broadcast %x on @g grid_axes = [0, 1] root = [1, 1] : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
