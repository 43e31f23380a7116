// RUN: hp-opt %s -convert-shard-to-nccl -canonicalize -split-input-file | FileCheck %s

shard.grid @g(shape = 2x4)

// Leading gather axis: straight into ncclAllGather.
// CHECK-LABEL: func @all_gather_leading
// CHECK-SAME: (%[[X:.*]]: tensor<2x6xf32>)
// CHECK: %[[RECV:.*]] = memref.alloc() : memref<8x6xf32>
// CHECK: %[[C:.*]] = nccl.comm @g axes = [1] : !nccl.comm
// CHECK: %[[SEND:.*]] = bufferization.to_buffer %[[X]] read_only : tensor<2x6xf32> to memref<2x6xf32, strided<[?, ?], offset: ?>>
// CHECK: nccl.all_gather %[[SEND]], %[[RECV]] on %[[C]] : memref<2x6xf32, strided<[?, ?], offset: ?>>, memref<8x6xf32>
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[RECV]] restrict writable : memref<8x6xf32> to tensor<8x6xf32>
// CHECK: return %[[R]]
func.func @all_gather_leading(%x: tensor<2x6xf32>) -> tensor<8x6xf32> {
  %r = shard.all_gather %x on @g grid_axes = [1] gather_axis = 0 : tensor<2x6xf32> -> tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}

// A non-leading axis is transposed to the front into a staging tensor and
// back; the multi-axis group keeps the listed order.
// CHECK-LABEL: func @all_gather_inner_axis
// CHECK: %[[T:.*]] = linalg.transpose ins(%{{.*}} : tensor<3x2xf32>) outs(%{{.*}} : tensor<2x3xf32>) permutation = [1, 0]
// CHECK: %[[C:.*]] = nccl.comm @g axes = [1, 0] : !nccl.comm
// CHECK: nccl.all_gather %{{.*}}, %{{.*}} on %[[C]] : memref<2x3xf32, strided<[?, ?], offset: ?>>, memref<16x3xf32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<16x3xf32>) outs(%{{.*}} : tensor<3x16xf32>) permutation = [1, 0]
func.func @all_gather_inner_axis(%x: tensor<3x2xf32>) -> tensor<3x16xf32> {
  %r = shard.all_gather %x on @g grid_axes = [1, 0] gather_axis = 1 : tensor<3x2xf32> -> tensor<3x16xf32>
  return %r : tensor<3x16xf32>
}

// CHECK-LABEL: func @all_reduce
// CHECK: nccl.all_reduce %{{.*}}, %{{.*}} on %{{.*}} op = max : memref<4x?xbf16, strided<[?, ?], offset: ?>>, memref<4x?xbf16>
func.func @all_reduce(%x: tensor<4x?xbf16>) -> tensor<4x?xbf16> {
  %r = shard.all_reduce %x on @g grid_axes = [0, 1] reduction = max : tensor<4x?xbf16> -> tensor<4x?xbf16>
  return %r : tensor<4x?xbf16>
}

// On buffers the reduction writes a fresh allocation directly.
// CHECK-LABEL: func @all_reduce_memref
// CHECK-SAME: (%[[X:.*]]: memref<4xf32>)
// CHECK: %[[R:.*]] = memref.alloc() : memref<4xf32>
// CHECK: nccl.all_reduce %[[X]], %[[R]] on %{{.*}} op = sum : memref<4xf32>, memref<4xf32>
// CHECK: return %[[R]]
func.func @all_reduce_memref(%x: memref<4xf32>) -> memref<4xf32> {
  %r = shard.all_reduce %x on @g grid_axes = [1] : memref<4xf32> -> memref<4xf32>
  return %r : memref<4xf32>
}

// CHECK-LABEL: func @reduce_scatter
// CHECK: nccl.reduce_scatter %{{.*}}, %{{.*}} on %{{.*}} op = avg : memref<8x3xf64, strided<[?, ?], offset: ?>>, memref<4x3xf64>
func.func @reduce_scatter(%x: tensor<8x3xf64>) -> tensor<4x3xf64> {
  %r = shard.reduce_scatter %x on @g grid_axes = [0] reduction = average scatter_axis = 0 : tensor<8x3xf64> -> tensor<4x3xf64>
  return %r : tensor<4x3xf64>
}

// all_to_all: the split axis leads the send buffer; the received blocks
// [N, P, ...] are moved next to the concat axis and merged into it.
// CHECK-LABEL: func @all_to_all
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xi32>)
// CHECK: %[[F:.*]] = linalg.transpose ins(%[[X]] : tensor<2x8xi32>) outs(%{{.*}} : tensor<8x2xi32>) permutation = [1, 0]
// CHECK: nccl.all_to_all %{{.*}}, %{{.*}} on %{{.*}} : memref<8x2xi32, strided<[?, ?], offset: ?>>, memref<8x2xi32>
// CHECK: %[[B:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [4, 2, 2] : tensor<8x2xi32> into tensor<4x2x2xi32>
// CHECK: %[[O:.*]] = linalg.transpose ins(%[[B]] : tensor<4x2x2xi32>) outs(%{{.*}} : tensor<4x2x2xi32>) permutation = [0, 2, 1]
// CHECK: tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2]] : tensor<4x2x2xi32> into tensor<8x2xi32>
func.func @all_to_all(%x: tensor<2x8xi32>) -> tensor<8x2xi32> {
  %r = shard.all_to_all %x on @g grid_axes = [1] split_axis = 1 concat_axis = 0 : tensor<2x8xi32> -> tensor<8x2xi32>
  return %r : tensor<8x2xi32>
}

// all_slice: local, from this rank's index in the group.
// CHECK-LABEL: func @all_slice
// CHECK: %[[C:.*]] = nccl.comm @g axes = [1] : !nccl.comm
// CHECK: %[[I:.*]] = nccl.comm_rank %[[C]] : index
// CHECK: %[[OFF:.*]] = arith.muli %[[I]], %{{.*}} : index
// CHECK: tensor.extract_slice %{{.*}}[0, %[[OFF]]] [3, 2] [1, 1] : tensor<3x8xf32> to tensor<3x2xf32>
// CHECK-NOT: nccl.all
func.func @all_slice(%x: tensor<3x8xf32>) -> tensor<3x2xf32> {
  %r = shard.all_slice %x on @g grid_axes = [1] slice_axis = 1 : tensor<3x8xf32> -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

// CHECK-LABEL: func @broadcast
// CHECK: nccl.broadcast %{{.*}}, %{{.*}} on %{{.*}} root = 6 : memref<4xf32, strided<[?], offset: ?>>, memref<4xf32>
func.func @broadcast(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = shard.broadcast %x on @g grid_axes = [0, 1] root = [1, 2] : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// A root known at run time: its in-group rank, row-major over the axes.
// CHECK-LABEL: func @broadcast_dynamic_root
// CHECK-SAME: (%{{.*}}: tensor<4xf32>, %[[ROOT:.*]]: index)
// CHECK: %[[LIN:.*]] = affine.linearize_index [%{{.*}}, %[[ROOT]]] by (2, 4) : index
// CHECK: nccl.broadcast %{{.*}}, %{{.*}} on %{{.*}} root = %[[LIN]] : memref<4xf32, strided<[?], offset: ?>>, memref<4xf32>
func.func @broadcast_dynamic_root(%x: tensor<4xf32>, %root: index) -> tensor<4xf32> {
  %r = shard.broadcast %x on @g grid_axes = [0, 1] root = [1, %root] : (tensor<4xf32>, index) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// CHECK-LABEL: func @scatter_dynamic_root
// CHECK-SAME: (%{{.*}}: tensor<4x2xf32>, %[[ROOT:.*]]: index)
// CHECK: nccl.broadcast %{{.*}}, %{{.*}} on %{{.*}} root = %{{.*}} :
// CHECK: tensor.extract_slice
func.func @scatter_dynamic_root(%x: tensor<4x2xf32>, %root: index) -> tensor<2x2xf32> {
  %r = shard.scatter %x on @g grid_axes = [0] scatter_axis = 0 root = [%root] : (tensor<4x2xf32>, index) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// gather and reduce: all-variants (defined on the root, harmless elsewhere).
// CHECK-LABEL: func @gather_reduce
// CHECK: nccl.all_gather %{{.*}}, %{{.*}} on %{{.*}} : memref<2xf32, strided<[?], offset: ?>>, memref<4xf32>
// CHECK: nccl.all_reduce %{{.*}}, %{{.*}} on %{{.*}} op = min : memref<2xf32, strided<[?], offset: ?>>, memref<2xf32>
func.func @gather_reduce(%x: tensor<2xf32>) -> (tensor<4xf32>, tensor<2xf32>) {
  %a = shard.gather %x on @g grid_axes = [0] gather_axis = 0 root = [1] : (tensor<2xf32>) -> tensor<4xf32>
  %b = shard.reduce %x on @g grid_axes = [0] reduction = min root = [0] : (tensor<2xf32>) -> tensor<2xf32>
  return %a, %b : tensor<4xf32>, tensor<2xf32>
}

// scatter: broadcast from the root, then keep this rank's block.
// CHECK-LABEL: func @scatter
// CHECK: nccl.broadcast %{{.*}}, %{{.*}} on %{{.*}} root = 1 : memref<4x2xf32, strided<[?, ?], offset: ?>>, memref<4x2xf32>
// CHECK: nccl.comm_rank
// CHECK: tensor.extract_slice %{{.*}}[%{{.*}}, 0] [2, 2] [1, 1] : tensor<4x2xf32> to tensor<2x2xf32>
func.func @scatter(%x: tensor<4x2xf32>) -> tensor<2x2xf32> {
  %r = shard.scatter %x on @g grid_axes = [0] scatter_axis = 0 root = [1] : (tensor<4x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// shift: one grouped send/recv pair to coordinate +offset, from -offset.
// CHECK-LABEL: func @shift
// CHECK: %[[C:.*]] = nccl.comm @g axes = [1] : !nccl.comm
// CHECK: %[[ME:.*]] = nccl.comm_rank %[[C]] : index
// CHECK: %[[A:.*]] = arith.addi %[[ME]], %c1
// CHECK: %[[TO:.*]] = arith.remui %[[A]], %c4
// CHECK: %[[B:.*]] = arith.addi %[[ME]], %c3
// CHECK: %[[FROM:.*]] = arith.remui %[[B]], %c4
// CHECK: nccl.group {
// CHECK-NEXT: nccl.send %{{.*}} to %[[TO]] on %[[C]] : memref<3xf32, strided<[?], offset: ?>>
// CHECK-NEXT: nccl.recv %{{.*}} from %[[FROM]] on %[[C]] : memref<3xf32>
// CHECK-NEXT: }
func.func @shift(%x: tensor<3xf32>) -> tensor<3xf32> {
  %r = shard.shift %x on @g grid_axes = [1] shift_axis = 1 offset = 1 rotate : tensor<3xf32> -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// CHECK-LABEL: func @send_recv
// CHECK: nccl.send %{{.*}} to %{{.*}} on %{{.*}} : memref<3xf32, strided<[?], offset: ?>>
// CHECK: nccl.recv %{{.*}} from %{{.*}} on %{{.*}} : memref<3xf32>
func.func @send_recv(%x: tensor<3xf32>) -> tensor<3xf32> {
  %s = shard.send %x on @g grid_axes = [1] destination = [2] : (tensor<3xf32>) -> tensor<3xf32>
  %r = shard.recv %s on @g grid_axes = [1] source = [3] : (tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// The linear index is the rank in the whole-grid communicator; the
// coordinates are its row-major digits (upstream's process_multi_index
// lowering).
// CHECK-LABEL: func @process_index
// CHECK: %[[CW:.*]] = nccl.comm @g axes = [0, 1] : !nccl.comm
// CHECK: %[[L:.*]] = nccl.comm_rank %[[CW]] : index
// CHECK: %[[I:.*]]:2 = affine.delinearize_index %[[L]] into (2, 4) : index, index
// CHECK: %[[CW2:.*]] = nccl.comm @g axes = [0, 1] : !nccl.comm
// CHECK: %[[L2:.*]] = nccl.comm_rank %[[CW2]] : index
// CHECK: return %[[I]]#0, %[[I]]#1, %[[L2]]
func.func @process_index() -> (index, index, index) {
  %i:2 = shard.process_multi_index on @g : index, index
  %l = shard.process_linear_index on @g : index
  return %i#0, %i#1, %l : index, index, index
}

// -----

shard.grid @g(shape = 4)

// A reduction whose result element type differs accumulates in the wider
// type: f32 -> f64 converts the input first.
// CHECK-LABEL: func @all_reduce_widening
// CHECK: %[[W:.*]] = linalg.map { arith.extf } ins(%{{.*}} : tensor<4xf32>) outs(%{{.*}} : tensor<4xf64>)
// CHECK: %[[B:.*]] = bufferization.to_buffer %[[W]]
// CHECK: nccl.all_reduce %[[B]], %{{.*}} sum : memref<4xf64, {{.*}}>, memref<4xf64>
func.func @all_reduce_widening(%x: tensor<4xf32>) -> tensor<4xf64> {
  %r = shard.all_reduce %x on @g grid_axes = [0] : tensor<4xf32> -> tensor<4xf64>
  return %r : tensor<4xf64>
}

// f64 -> f32 reduces in f64 and converts the result.
// CHECK-LABEL: func @all_reduce_narrowing
// CHECK: nccl.all_reduce %{{.*}}, %{{.*}} max : memref<4xf64, {{.*}}>, memref<4xf64>
// CHECK: linalg.map { arith.truncf } ins(%{{.*}} : tensor<4xf64>) outs(%{{.*}} : tensor<4xf32>)
func.func @all_reduce_narrowing(%x: tensor<4xf64>) -> tensor<4xf32> {
  %r = shard.all_reduce %x on @g grid_axes = [0] reduction = max : tensor<4xf64> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// i8 -> i16: NCCL has no 16-bit integer, so the sum runs in i32 (sign
// extended) and is truncated to i16; modular sums agree.
// CHECK-LABEL: func @reduce_i8_i16
// CHECK: linalg.map { arith.extsi } ins(%{{.*}} : tensor<8xi8>) outs(%{{.*}} : tensor<8xi32>)
// CHECK: nccl.all_reduce %{{.*}}, %{{.*}} sum : memref<8xi32, {{.*}}>, memref<8xi32>
// CHECK: linalg.map { arith.trunci {{.*}} } ins(%{{.*}} : tensor<8xi32>) outs(%{{.*}} : tensor<8xi16>)
func.func @reduce_i8_i16(%x: tensor<8xi8>) -> tensor<8xi16> {
  %r = shard.reduce %x on @g grid_axes = [0] root = [0] : (tensor<8xi8>) -> tensor<8xi16>
  return %r : tensor<8xi16>
}

// reduce_scatter f32 -> f64: converted before the scatter.
// CHECK-LABEL: func @reduce_scatter_widening
// CHECK: linalg.map { arith.extf } ins(%{{.*}} : tensor<8xf32>) outs(%{{.*}} : tensor<8xf64>)
// CHECK: nccl.reduce_scatter %{{.*}}, %{{.*}} sum : memref<8xf64, {{.*}}>, memref<2xf64>
func.func @reduce_scatter_widening(%x: tensor<8xf32>) -> tensor<2xf64> {
  %r = shard.reduce_scatter %x on @g grid_axes = [0] scatter_axis = 0 : tensor<8xf32> -> tensor<2xf64>
  return %r : tensor<2xf64>
}

// On buffers: staged into an f64 allocation, reduced, returned.
// CHECK-LABEL: func @all_reduce_memref_widening
// CHECK: %[[S:.*]] = memref.alloc() : memref<4xf64>
// CHECK: linalg.map { arith.extf } ins(%{{.*}} : memref<4xf32>) outs(%[[S]] : memref<4xf64>)
// CHECK: %[[R:.*]] = memref.alloc() : memref<4xf64>
// CHECK: nccl.all_reduce %[[S]], %[[R]]
// CHECK: return %[[R]]
func.func @all_reduce_memref_widening(%x: memref<4xf32>) -> memref<4xf64> {
  %r = shard.all_reduce %x on @g grid_axes = [0] : memref<4xf32> -> memref<4xf64>
  return %r : memref<4xf64>
}

// -----

shard.grid @g(shape = 2x2)

// A send followed by a recv on the same grid axes (hp's permutes emit this
// pair) is one nccl.group, issued together so that a swap or a cycle of
// blocks cannot deadlock; the pure ops between them stay in place.
// CHECK-LABEL: func @send_recv_pair
// CHECK-SAME: (%[[X:.*]]: tensor<4x4xf32>, %[[I:.*]]: index, %[[J:.*]]: index)
// The peers' in-group ranks are row-major over the grid axes: j * 2 + i.
// CHECK: %[[TO:.*]] = affine.linearize_index [%[[J]], %[[I]]] by (2, 2) : index
// CHECK: %[[FROM:.*]] = affine.linearize_index [%[[J]], %[[I]]] by (2, 2) : index
// CHECK: %[[COMM:.*]] = nccl.comm @g axes = [0, 1]
// CHECK: %[[B:.*]] = bufferization.to_buffer %[[X]]
// CHECK: %[[R:.*]] = memref.alloc() : memref<4x4xf32>
// CHECK: nccl.group {
// CHECK-NEXT: nccl.send %[[B]] to %[[TO]] on %[[COMM]]
// CHECK-NEXT: nccl.recv %[[R]] from %[[FROM]] on %[[COMM]]
// CHECK-NEXT: }
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[R]]
// CHECK: return %[[T]]
func.func @send_recv_pair(%x: tensor<4x4xf32>, %i: index, %j: index) -> tensor<4x4xf32> {
  %s = shard.send %x on @g grid_axes = [0, 1] destination = [%j, %i] : (tensor<4x4xf32>, index, index) -> tensor<4x4xf32>
  %e = tensor.empty() : tensor<4x4xf32>
  %r = shard.recv %e on @g grid_axes = [0, 1] source = [%j, %i] : (tensor<4x4xf32>, index, index) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// Several sends, then as many receives on the same grid axes (a permute
// that gathers pieces of several devices' blocks): one group.
// CHECK-LABEL: func @send_recv_runs
// CHECK: nccl.group {
// CHECK-NEXT: nccl.send
// CHECK-NEXT: nccl.send
// CHECK-NEXT: nccl.recv
// CHECK-NEXT: nccl.recv
// CHECK-NEXT: }
// CHECK-NOT: nccl.group
// CHECK: return
func.func @send_recv_runs(%x: tensor<4x4xf32>, %y: tensor<4x4xf32>, %i: index, %j: index) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %s0 = shard.send %x on @g grid_axes = [0, 1] destination = [%j, %i] : (tensor<4x4xf32>, index, index) -> tensor<4x4xf32>
  %s1 = shard.send %y on @g grid_axes = [0, 1] destination = [%i, %j] : (tensor<4x4xf32>, index, index) -> tensor<4x4xf32>
  %e0 = tensor.empty() : tensor<4x4xf32>
  %r0 = shard.recv %e0 on @g grid_axes = [0, 1] source = [%j, %i] : (tensor<4x4xf32>, index, index) -> tensor<4x4xf32>
  %e1 = tensor.empty() : tensor<4x4xf32>
  %r1 = shard.recv %e1 on @g grid_axes = [0, 1] source = [%i, %j] : (tensor<4x4xf32>, index, index) -> tensor<4x4xf32>
  return %r0, %r1 : tensor<4x4xf32>, tensor<4x4xf32>
}

// A group the planner marks (dtensor.p2p_group) is one nccl.group at its
// last receive wherever its members sit: here a call with effects between
// them, which would end an unmarked run (@unmarked_across_a_call).
// CHECK-LABEL: func @marked_group
// CHECK: call @effect
// CHECK: nccl.group {
// CHECK-NEXT: nccl.send
// CHECK-NEXT: nccl.recv
// CHECK-NEXT: }
func.func private @effect()
func.func @marked_group(%x: tensor<4x4xf32>, %i: index, %j: index) -> tensor<4x4xf32> {
  %s = shard.send %x on @g grid_axes = [0, 1] destination = [%j, %i] {dtensor.p2p_group = 3 : i64} : (tensor<4x4xf32>, index, index) -> tensor<4x4xf32>
  func.call @effect() : () -> ()
  %e = tensor.empty() : tensor<4x4xf32>
  %r = shard.recv %e on @g grid_axes = [0, 1] source = [%j, %i] {dtensor.p2p_group = 3 : i64} : (tensor<4x4xf32>, index, index) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// CHECK-LABEL: func @unmarked_across_a_call
// CHECK-NOT: nccl.group
// CHECK: nccl.send
// CHECK: call @effect
// CHECK: nccl.recv
// CHECK-NOT: nccl.group
func.func @unmarked_across_a_call(%x: tensor<4x4xf32>, %i: index, %j: index) -> tensor<4x4xf32> {
  %s = shard.send %x on @g grid_axes = [0, 1] destination = [%j, %i] : (tensor<4x4xf32>, index, index) -> tensor<4x4xf32>
  func.call @effect() : () -> ()
  %e = tensor.empty() : tensor<4x4xf32>
  %r = shard.recv %e on @g grid_axes = [0, 1] source = [%j, %i] : (tensor<4x4xf32>, index, index) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// Two marked groups stay apart even when adjacent.
// CHECK-LABEL: func @two_marked_groups
// CHECK: nccl.group {
// CHECK-NEXT: nccl.send
// CHECK-NEXT: nccl.recv
// CHECK-NEXT: }
// CHECK: nccl.group {
// CHECK-NEXT: nccl.send
// CHECK-NEXT: nccl.recv
// CHECK-NEXT: }
func.func @two_marked_groups(%x: tensor<4x4xf32>, %i: index, %j: index) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %s0 = shard.send %x on @g grid_axes = [0, 1] destination = [%j, %i] {dtensor.p2p_group = 0 : i64} : (tensor<4x4xf32>, index, index) -> tensor<4x4xf32>
  %e0 = tensor.empty() : tensor<4x4xf32>
  %r0 = shard.recv %e0 on @g grid_axes = [0, 1] source = [%j, %i] {dtensor.p2p_group = 0 : i64} : (tensor<4x4xf32>, index, index) -> tensor<4x4xf32>
  %s1 = shard.send %x on @g grid_axes = [0, 1] destination = [%i, %j] {dtensor.p2p_group = 1 : i64} : (tensor<4x4xf32>, index, index) -> tensor<4x4xf32>
  %e1 = tensor.empty() : tensor<4x4xf32>
  %r1 = shard.recv %e1 on @g grid_axes = [0, 1] source = [%i, %j] {dtensor.p2p_group = 1 : i64} : (tensor<4x4xf32>, index, index) -> tensor<4x4xf32>
  return %r0, %r1 : tensor<4x4xf32>, tensor<4x4xf32>
}

// On other axes the two are not a pair: each is its own call.
// CHECK-LABEL: func @unpaired
// CHECK-NOT: nccl.group
// CHECK: nccl.send
// CHECK: nccl.recv
// CHECK-NOT: nccl.group
func.func @unpaired(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %s = shard.send %x on @g grid_axes = [0] destination = [1] : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = shard.recv %x on @g grid_axes = [1] source = [1] : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// The pass leaves no shard op: a grid the communicators name becomes the
// nccl.grid of that name, with its device list; one nothing names is gone.
// CHECK-NOT: shard.grid
// CHECK: nccl.grid @used(shape = 2x2) devices = [3, 1, 2, 0]
// CHECK-NOT: shard.grid
// CHECK-NOT: @unused
shard.grid @used(shape = 2x2) {dtensor.axis_names = ["dp", "tp"], dtensor.devices = array<i64: 3, 1, 2, 0>}
shard.grid @unused(shape = 4)
// CHECK-LABEL: func @grids
// CHECK: nccl.comm @used axes = [1] : !nccl.comm
func.func @grids(%x: tensor<2xf32>) -> tensor<2xf32> {
  %r = shard.all_reduce %x on @used grid_axes = [1] : tensor<2xf32> -> tensor<2xf32>
  return %r : tensor<2xf32>
}
