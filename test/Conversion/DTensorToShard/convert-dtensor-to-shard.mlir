// RUN: hp-opt %s -split-input-file -convert-dtensor-to-shard=latency-bytes=0 -canonicalize | FileCheck %s

// Every row of the redistribute table on a 1-D mesh of 4. The expected IR
// was checked by hand against torch.chunk: 8 rows split evenly (2 each),
// 6 and 10 split 2,2,2,0 and 3,3,3,1.

// The mesh becomes a shard.grid of the same name.
// CHECK: shard.grid @m(shape = 4)
dtensor.mesh @m shape = [4]

// S(d) -> R: all_gather along d.
// CHECK-LABEL: func @shard_to_replicate
// CHECK-SAME: (%[[L:[^:]*]]: tensor<2x6xf32>
// CHECK: %[[G:.*]] = shard.all_gather %[[L]] on @m grid_axes = [0] gather_axis = 0 : tensor<2x6xf32> -> tensor<8x6xf32>
// CHECK: return %[[G]] : tensor<8x6xf32>
func.func @shard_to_replicate(%x: !dtensor.tensor<8x6xf32, @m, [shard<0>]>) -> !dtensor.tensor<8x6xf32, @m, [replicate]> {
  %r = dtensor.redistribute %x : !dtensor.tensor<8x6xf32, @m, [shard<0>]> -> !dtensor.tensor<8x6xf32, @m, [replicate]>
  return %r : !dtensor.tensor<8x6xf32, @m, [replicate]>
}

// P(op) -> R: all_reduce(op).
// CHECK-LABEL: func @partial_to_replicate
// CHECK: shard.all_reduce %{{.*}} on @m grid_axes = [0] reduction = average : tensor<8x6xf32> -> tensor<8x6xf32>
func.func @partial_to_replicate(%x: !dtensor.tensor<8x6xf32, @m, [partial<avg>]>) -> !dtensor.tensor<8x6xf32, @m, [replicate]> {
  %r = dtensor.redistribute %x : !dtensor.tensor<8x6xf32, @m, [partial<avg>]> -> !dtensor.tensor<8x6xf32, @m, [replicate]>
  return %r : !dtensor.tensor<8x6xf32, @m, [replicate]>
}

// P(op) -> S(d): reduce_scatter; 6 columns are padded to 4 slots of 2 and
// this rank keeps clamp(6 - 2i, 0, 2) of its slot.
// CHECK-LABEL: func @partial_to_shard
// CHECK-SAME: (%[[L:[^:]*]]: tensor<8x6xf32>
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C6:.*]] = arith.constant 6 : index
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[BUF:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<8x8xf32>)
// CHECK: %[[PACKED:.*]] = tensor.insert_slice %[[L]] into %[[BUF]][0, 0] [8, 6] [1, 1]
// CHECK: %[[RS:.*]] = shard.reduce_scatter %[[PACKED]] on @m grid_axes = [0] reduction = max scatter_axis = 1 : tensor<8x8xf32> -> tensor<8x2xf32>
// CHECK: %[[I:.*]] = shard.process_multi_index on @m : index
// CHECK: %[[START:.*]] = arith.muli %[[I]], %[[C2]]
// CHECK: %[[OFF:.*]] = arith.minsi %[[START]], %[[C6]]
// CHECK: %[[REST:.*]] = arith.subi %[[C6]], %[[OFF]]
// CHECK: %[[MIN:.*]] = arith.minsi %[[REST]], %[[C2]]
// CHECK: %[[LEN:.*]] = arith.maxsi %[[MIN]], %[[C0]]
// CHECK: %[[MINE:.*]] = tensor.extract_slice %[[RS]][0, 0] [8, %[[LEN]]] [1, 1] : tensor<8x2xf32> to tensor<8x?xf32>
// CHECK: return %[[MINE]] : tensor<8x?xf32>
func.func @partial_to_shard(%x: !dtensor.tensor<8x6xf32, @m, [partial<max>]>) -> !dtensor.tensor<8x6xf32, @m, [shard<1>]> {
  %r = dtensor.redistribute %x : !dtensor.tensor<8x6xf32, @m, [partial<max>]> -> !dtensor.tensor<8x6xf32, @m, [shard<1>]>
  return %r : !dtensor.tensor<8x6xf32, @m, [shard<1>]>
}

// S(d1) -> S(d2): all_to_all, split along d2 (padded to 4 slots of 2),
// concatenated along d1.
// CHECK-LABEL: func @shard_to_shard
// CHECK-SAME: (%[[L:[^:]*]]: tensor<2x6xf32>
// CHECK: %[[PACKED:.*]] = tensor.insert_slice %[[L]] into %{{.*}}[0, 0] [2, 6] [1, 1] : tensor<2x6xf32> into tensor<2x8xf32>
// CHECK: %[[A:.*]] = shard.all_to_all %[[PACKED]] on @m grid_axes = [0] split_axis = 1 concat_axis = 0 : tensor<2x8xf32> -> tensor<8x2xf32>
// CHECK: %[[MINE:.*]] = tensor.extract_slice %[[A]][0, 0] [8, %{{.*}}] [1, 1] : tensor<8x2xf32> to tensor<8x?xf32>
// CHECK: return %[[MINE]] : tensor<8x?xf32>
func.func @shard_to_shard(%x: !dtensor.tensor<8x6xf32, @m, [shard<0>]>) -> !dtensor.tensor<8x6xf32, @m, [shard<1>]> {
  %r = dtensor.redistribute %x : !dtensor.tensor<8x6xf32, @m, [shard<0>]> -> !dtensor.tensor<8x6xf32, @m, [shard<1>]>
  return %r : !dtensor.tensor<8x6xf32, @m, [shard<1>]>
}

// R -> S(d), even: upstream all_slice, no communication.
// CHECK-LABEL: func @replicate_to_shard_even
// CHECK: %[[S:.*]] = shard.all_slice %{{.*}} on @m grid_axes = [0] slice_axis = 0 : tensor<8xi64> -> tensor<2xi64>
// CHECK: return %[[S]] : tensor<2xi64>
func.func @replicate_to_shard_even(%x: !dtensor.tensor<8xi64, @m, [replicate]>) -> !dtensor.tensor<8xi64, @m, [shard<0>]> {
  %r = dtensor.redistribute %x : !dtensor.tensor<8xi64, @m, [replicate]> -> !dtensor.tensor<8xi64, @m, [shard<0>]>
  return %r : !dtensor.tensor<8xi64, @m, [shard<0>]>
}

// R -> S(d), uneven: a torch.chunk slice at min(2i, 6) of length
// clamp(6 - 2i, 0, 2).
// CHECK-LABEL: func @replicate_to_shard_uneven
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C6:.*]] = arith.constant 6 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[I:.*]] = shard.process_multi_index on @m : index
// CHECK: %[[START:.*]] = arith.muli %[[I]], %[[C2]]
// CHECK: %[[OFF:.*]] = arith.minsi %[[START]], %[[C6]]
// CHECK: %[[REST:.*]] = arith.subi %[[C6]], %[[OFF]]
// CHECK: %[[MIN:.*]] = arith.minsi %[[REST]], %[[C2]]
// CHECK: %[[LEN:.*]] = arith.maxsi %[[MIN]], %[[C0]]
// CHECK: tensor.extract_slice %{{.*}}[0, %[[OFF]]] [8, %[[LEN]]] [1, 1] : tensor<8x6xf32> to tensor<8x?xf32>
// CHECK-NOT: shard.
func.func @replicate_to_shard_uneven(%x: !dtensor.tensor<8x6xf32, @m, [replicate]>) -> !dtensor.tensor<8x6xf32, @m, [shard<1>]> {
  %r = dtensor.redistribute %x : !dtensor.tensor<8x6xf32, @m, [replicate]> -> !dtensor.tensor<8x6xf32, @m, [shard<1>]>
  return %r : !dtensor.tensor<8x6xf32, @m, [shard<1>]>
}

// R -> P(sum): coordinate 0 keeps the value, the others hold 0.
// CHECK-LABEL: func @replicate_to_partial_sum
// CHECK-SAME: (%[[L:[^:]*]]:
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[Z:.*]] = arith.constant 0 : i32
// CHECK: %[[ZEROS:.*]] = linalg.fill ins(%[[Z]] : i32) outs(%{{.*}} : tensor<8x6xi32>)
// CHECK: %[[I:.*]] = shard.process_multi_index on @m : index
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[I]], %[[C0]] : index
// CHECK: %[[SEL:.*]] = arith.select %[[FIRST]], %[[L]], %[[ZEROS]] : tensor<8x6xi32>
// CHECK: return %[[SEL]]
func.func @replicate_to_partial_sum(%x: !dtensor.tensor<8x6xi32, @m, [replicate]>) -> !dtensor.tensor<8x6xi32, @m, [partial<sum>]> {
  %r = dtensor.redistribute %x : !dtensor.tensor<8x6xi32, @m, [replicate]> -> !dtensor.tensor<8x6xi32, @m, [partial<sum>]>
  return %r : !dtensor.tensor<8x6xi32, @m, [partial<sum>]>
}

// R -> P(max): identity.
// CHECK-LABEL: func @replicate_to_partial_max
// CHECK-SAME: (%[[L:[^:]*]]:
// CHECK: return %[[L]] : tensor<8xf64>
func.func @replicate_to_partial_max(%x: !dtensor.tensor<8xf64, @m, [replicate]>) -> !dtensor.tensor<8xf64, @m, [partial<max>]> {
  %r = dtensor.redistribute %x : !dtensor.tensor<8xf64, @m, [replicate]> -> !dtensor.tensor<8xf64, @m, [partial<max>]>
  return %r : !dtensor.tensor<8xf64, @m, [partial<max>]>
}

// S(d) -> P(prod): a local fill, no communication: this rank's columns at
// min(2i, 6) (torch.chunk of 6 in 4) in an 8x6 tensor of ones.
// CHECK-LABEL: func @shard_to_partial_prod
// CHECK-SAME: (%[[X:[^:]*]]: tensor<8x?xbf16>
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : bf16
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C6:.*]] = arith.constant 6 : index
// CHECK-NOT: shard.all_gather
// CHECK: %[[I:.*]] = shard.process_multi_index on @m : index
// CHECK: %[[START:.*]] = arith.muli %[[I]], %[[C2]]
// CHECK: %[[OFF:.*]] = arith.minsi %[[START]], %[[C6]]
// CHECK: %[[ONES:.*]] = linalg.fill ins(%[[ONE]] : bf16) outs(%{{.*}} : tensor<8x6xbf16>)
// CHECK: %[[W:.*]] = tensor.dim %[[X]]
// CHECK: %[[Y:.*]] = tensor.insert_slice %[[X]] into %[[ONES]][0, %[[OFF]]] [8, %[[W]]] [1, 1] : tensor<8x?xbf16> into tensor<8x6xbf16>
// CHECK: return %[[Y]] : tensor<8x6xbf16>
func.func @shard_to_partial_prod(%x: !dtensor.tensor<8x6xbf16, @m, [shard<1>]>) -> !dtensor.tensor<8x6xbf16, @m, [partial<prod>]> {
  %r = dtensor.redistribute %x : !dtensor.tensor<8x6xbf16, @m, [shard<1>]> -> !dtensor.tensor<8x6xbf16, @m, [partial<prod>]>
  return %r : !dtensor.tensor<8x6xbf16, @m, [partial<prod>]>
}

// Uneven gather: each rank pads its chunk (3,3,3,1 of 10) to 3, and the
// first 10 gathered rows are the tensor.
// CHECK-LABEL: func @uneven_gather
// CHECK-SAME: (%[[L:[^:]*]]: tensor<?xf32>
// CHECK: %[[PAD:.*]] = tensor.insert_slice %[[L]] into %{{.*}}[0] [%{{.*}}] [1] : tensor<?xf32> into tensor<3xf32>
// CHECK: %[[G:.*]] = shard.all_gather %[[PAD]] on @m grid_axes = [0] gather_axis = 0 : tensor<3xf32> -> tensor<12xf32>
// CHECK: %[[S:.*]] = tensor.extract_slice %[[G]][0] [10] [1] : tensor<12xf32> to tensor<10xf32>
// CHECK: return %[[S]] : tensor<10xf32>
func.func @uneven_gather(%x: !dtensor.tensor<10xf32, @m, [shard<0>]>) -> !dtensor.tensor<10xf32, @m, [replicate]> {
  %r = dtensor.redistribute %x : !dtensor.tensor<10xf32, @m, [shard<0>]> -> !dtensor.tensor<10xf32, @m, [replicate]>
  return %r : !dtensor.tensor<10xf32, @m, [replicate]>
}

// -----

// Mesh names and a device list travel to the grid as attributes.
// CHECK: shard.grid @named(shape = 2x2) {dtensor.axis_names = ["dp", "tp"], dtensor.devices = array<i64: 0, 2, 1, 3>}
dtensor.mesh @named shape = [2, 2] names = ["dp", "tp"] devices = [0, 2, 1, 3]

// A size-1 mesh axis needs no communication.
// CHECK: shard.grid @one(shape = 1x2)
dtensor.mesh @one shape = [1, 2]
// CHECK-LABEL: func @size_one_axis
// CHECK-NOT: shard.all_gather {{.*}} grid_axes = [0]
// CHECK: shard.all_gather %{{.*}} on @one grid_axes = [1] gather_axis = 1
// CHECK-NOT: shard.all_gather
func.func @size_one_axis(%x: !dtensor.tensor<4x4xf32, @one, [shard<0>, shard<1>]>) -> !dtensor.tensor<4x4xf32, @one, [replicate, replicate]> {
  %r = dtensor.redistribute %x : !dtensor.tensor<4x4xf32, @one, [shard<0>, shard<1>]> -> !dtensor.tensor<4x4xf32, @one, [replicate, replicate]>
  return %r : !dtensor.tensor<4x4xf32, @one, [replicate, replicate]>
}

// -----

// Nested uneven split over a 2x2 mesh (10 rows: pieces 3,2 | 3,2 at offsets
// 0,3,5,8). With no latency term, gathering axis 1 then axis 0 pads less
// than one merged gather and wins.
dtensor.mesh @m shape = [2, 2]
// CHECK-LABEL: func @nested_gather
// CHECK: %[[G1:.*]] = shard.all_gather %{{.*}} on @m grid_axes = [1] gather_axis = 0 : tensor<3xf32> -> tensor<6xf32>
// CHECK: %[[H:.*]] = tensor.extract_slice %[[G1]][0] [5] [1]
// CHECK: %[[G0:.*]] = shard.all_gather %[[H]] on @m grid_axes = [0] gather_axis = 0 : tensor<5xf32> -> tensor<10xf32>
// CHECK: return %[[G0]]
func.func @nested_gather(%x: !dtensor.tensor<10xf32, @m, [shard<0>, shard<0>]>) -> !dtensor.tensor<10xf32, @m, [replicate, replicate]> {
  %r = dtensor.redistribute %x : !dtensor.tensor<10xf32, @m, [shard<0>, shard<0>]> -> !dtensor.tensor<10xf32, @m, [replicate, replicate]>
  return %r : !dtensor.tensor<10xf32, @m, [replicate, replicate]>
}

// -----

// Mesh rank 4, tensor rank 4. Two partial axes are reduced onto different
// dims, and the final gather takes two nested splits of dim 2 at once
// (mesh dim 2 outer, 1 inner: grid_axes = [2, 1]).
dtensor.mesh @m4 shape = [2, 2, 2, 2]
// CHECK-LABEL: func @rank4
// CHECK: %[[C:.*]] = shard.all_slice %{{.*}} on @m4 grid_axes = [3] slice_axis = 3 : tensor<4x6x4x10xf32> -> tensor<4x6x4x5xf32>
// CHECK: %[[R1:.*]] = shard.reduce_scatter %[[C]] on @m4 grid_axes = [1] scatter_axis = 2 : tensor<4x6x4x5xf32> -> tensor<4x6x2x5xf32>
// CHECK: %[[R0:.*]] = shard.reduce_scatter %[[R1]] on @m4 grid_axes = [0] scatter_axis = 0 : tensor<4x6x2x5xf32> -> tensor<2x6x2x5xf32>
// CHECK: %[[G:.*]] = shard.all_gather %[[R0]] on @m4 grid_axes = [2, 1] gather_axis = 2 : tensor<2x6x2x5xf32> -> tensor<2x6x8x5xf32>
// CHECK: return %[[G]] : tensor<2x6x8x5xf32>
func.func @rank4(%x: !dtensor.tensor<4x6x8x10xf32, @m4, [partial<sum>, partial<sum>, shard<2>, replicate]>) -> !dtensor.tensor<4x6x8x10xf32, @m4, [shard<0>, replicate, replicate, shard<3>]> {
  %r = dtensor.redistribute %x : !dtensor.tensor<4x6x8x10xf32, @m4, [partial<sum>, partial<sum>, shard<2>, replicate]> -> !dtensor.tensor<4x6x8x10xf32, @m4, [shard<0>, replicate, replicate, shard<3>]>
  return %r : !dtensor.tensor<4x6x8x10xf32, @m4, [shard<0>, replicate, replicate, shard<3>]>
}

