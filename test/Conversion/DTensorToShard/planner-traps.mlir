// Cases where other planners go wrong (docs/RedistributePlanning.md). Bytes only, so that
// the plans are the byte-optimal ones that the planner's property test
// checks against brute force.
// RUN: hp-opt %s -convert-dtensor-to-shard="latency-bytes=0 print-plans" --mlir-print-op-on-diagnostic=false -verify-diagnostics -o /dev/null
// RUN: hp-opt %s -convert-dtensor-to-shard=latency-bytes=0 -canonicalize | FileCheck %s

dtensor.mesh @m shape = [2, 2]
dtensor.mesh @cube shape = [2, 2, 2]

// torch's greedy planner replicates here; collectives alone need three
// all_to_alls (112 bytes). Device (i, j) needs exactly the block device
// (j, i) holds: one point-to-point permute moves one 4x4 block (64 bytes,
// the receive lower bound; (0, 0) and (1, 1) send to themselves).
// CHECK-LABEL: func @swap_shard_dims
// CHECK: %[[C:.*]]:2 = shard.process_multi_index on @m
// CHECK: shard.send %{{.*}} on @m grid_axes = [0, 1] destination = [%[[C]]#1, %[[C]]#0] {dtensor.p2p_group = 0 : i64} : (tensor<4x4xf32>, index, index) -> tensor<4x4xf32>
// CHECK: shard.recv %{{.*}} on @m grid_axes = [0, 1] source = [%[[C]]#1, %[[C]]#0] {dtensor.p2p_group = 0 : i64} : (tensor<4x4xf32>, index, index) -> tensor<4x4xf32>
// CHECK-NOT: shard.all
func.func @swap_shard_dims(%x: !dtensor.tensor<8x8xf32, @m, [shard<0>, shard<1>]>) -> !dtensor.tensor<8x8xf32, @m, [shard<1>, shard<0>]> {
  // expected-remark @+1 {{plan [S(0), S(1)] -> [S(1), S(0)]: cost=6.400000e+01 collectives=1}}
  %r = dtensor.redistribute %x : !dtensor.tensor<8x8xf32, @m, [shard<0>, shard<1>]> -> !dtensor.tensor<8x8xf32, @m, [shard<1>, shard<0>]>
  return %r : !dtensor.tensor<8x8xf32, @m, [shard<1>, shard<0>]>
}

// Mesh dim 0 is the outer split and cannot be gathered first. Replicating
// costs 192 bytes; all_to_alls that move the splits out of the way 144;
// JAX reorders the nesting by a permute and gathers mesh dim 0 (128 in two
// collectives). Device (i, j) needs rows 4j..4j+3, the quarters of devices
// (j, 0) and (j, 1): one permute in two rounds, each rank sending its 2x8
// quarter to the two devices that need it and receiving two quarters, all
// in one group: 128 bytes in one launch.
// CHECK-LABEL: func @nested_outer_split
// CHECK: %[[C:.*]]:2 = shard.process_multi_index on @m
// CHECK: shard.send %arg0 on @m grid_axes = [0, 1] destination = {{.*}} {dtensor.p2p_group = 0 : i64} : (tensor<2x8xf32>, index, index)
// CHECK: shard.send %arg0 on @m grid_axes = [0, 1] destination = {{.*}} {dtensor.p2p_group = 0 : i64} : (tensor<2x8xf32>, index, index)
// CHECK: shard.recv %{{.*}} on @m grid_axes = [0, 1] source = {{.*}} {dtensor.p2p_group = 0 : i64} : (tensor<2x8xf32>, index, index)
// CHECK: shard.recv %{{.*}} on @m grid_axes = [0, 1] source = {{.*}} {dtensor.p2p_group = 0 : i64} : (tensor<2x8xf32>, index, index)
// CHECK: tensor.insert_slice {{.*}} into tensor<4x8xf32>
// CHECK: tensor.insert_slice {{.*}} into tensor<4x8xf32>
// CHECK-NOT: shard.all_gather
// CHECK: return
func.func @nested_outer_split(%x: !dtensor.tensor<8x8xf32, @m, [shard<0>, shard<0>]>) -> !dtensor.tensor<8x8xf32, @m, [replicate, shard<0>]> {
  // expected-remark @+1 {{plan [S(0), S(0)] -> [R, S(0)]: cost=1.280000e+02 collectives=1}}
  %r = dtensor.redistribute %x : !dtensor.tensor<8x8xf32, @m, [shard<0>, shard<0>]> -> !dtensor.tensor<8x8xf32, @m, [replicate, shard<0>]>
  return %r : !dtensor.tensor<8x8xf32, @m, [replicate, shard<0>]>
}

// Only the inner split moves: one all_to_all on mesh dim 1.
// CHECK-LABEL: func @inner_split_moves
// CHECK: shard.all_to_all %{{.*}} on @m grid_axes = [1] split_axis = 2 concat_axis = 1 : tensor<4x2x8xf32> -> tensor<4x4x4xf32>
// CHECK-NOT: shard.
// CHECK: return
func.func @inner_split_moves(%x: !dtensor.tensor<4x8x8xf32, @m, [shard<1>, shard<1>]>) -> !dtensor.tensor<4x8x8xf32, @m, [shard<1>, shard<2>]> {
  // expected-remark @+1 {{plan [S(1), S(1)] -> [S(1), S(2)]: cost=1.280000e+02 collectives=1}}
  %r = dtensor.redistribute %x : !dtensor.tensor<4x8x8xf32, @m, [shard<1>, shard<1>]> -> !dtensor.tensor<4x8x8xf32, @m, [shard<1>, shard<2>]>
  return %r : !dtensor.tensor<4x8x8xf32, @m, [shard<1>, shard<2>]>
}

// hyper_parallel refuses uneven shards. 10x5 on 2x2: local blocks 5x(3|2).
// With collectives, gathering the short dim (padded to 3) and moving mesh
// dim 0 with padded slots costs 120 bytes; replicating first would cost
// 160. Device (i, j) needs the 5x(3|2) block of (j, i): a permute sends one
// block, 60 bytes padded. The received width is 3 for i = 0 and 2 for
// i = 1, from the layout model: min(max(5 - 3 i, 0), 3).
// CHECK-LABEL: func @uneven_10x5
// CHECK: %[[C:.*]]:2 = shard.process_multi_index on @m
// CHECK: shard.send %{{.*}} on @m grid_axes = [0, 1] destination = [%[[C]]#1, %[[C]]#0] {dtensor.p2p_group = 0 : i64} : (tensor<5x?xf32>, index, index)
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<5x?xf32>
// CHECK: %[[R:.*]] = shard.recv %[[E]] on @m grid_axes = [0, 1] source = [%[[C]]#1, %[[C]]#0] {dtensor.p2p_group = 0 : i64} : (tensor<5x?xf32>, index, index)
// CHECK: return %[[R]] : tensor<5x?xf32>
func.func @uneven_10x5(%x: !dtensor.tensor<10x5xf32, @m, [shard<0>, shard<1>]>) -> !dtensor.tensor<10x5xf32, @m, [shard<1>, shard<0>]> {
  // expected-remark @+1 {{plan [S(0), S(1)] -> [S(1), S(0)]: cost=6.000000e+01 collectives=1}}
  %r = dtensor.redistribute %x : !dtensor.tensor<10x5xf32, @m, [shard<0>, shard<1>]> -> !dtensor.tensor<10x5xf32, @m, [shard<1>, shard<0>]>
  return %r : !dtensor.tensor<10x5xf32, @m, [shard<1>, shard<0>]>
}

// torch's greedy planner gathers for S -> P; hp fills locally (torch 2.15
// and JAX do the same for sum): this rank's rows at 4i of a zero 8x8 tensor,
// no communication.
// CHECK-LABEL: func @shard_to_partial_sum
// CHECK-NOT: shard.all_gather
// CHECK: %[[I:.*]]:2 = shard.process_multi_index on @m : index, index
// CHECK: %[[OFF:.*]] = arith.muli %[[I]]#0, %{{.*}} : index
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<8x8xf32>)
// CHECK: tensor.insert_slice %{{.*}} into %[[Z]][%[[OFF]], 0] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<8x8xf32>
func.func @shard_to_partial_sum(%x: !dtensor.tensor<8x8xf32, @m, [shard<0>, replicate]>) -> !dtensor.tensor<8x8xf32, @m, [partial<sum>, replicate]> {
  // expected-remark @+1 {{plan [S(0), R] -> [P(sum), R]: cost=0.000000e+00 collectives=0 steps=[fill(axes=[0], dim=0, sum, cost=0.000000e+00)]}}
  %r = dtensor.redistribute %x : !dtensor.tensor<8x8xf32, @m, [shard<0>, replicate]> -> !dtensor.tensor<8x8xf32, @m, [partial<sum>, replicate]>
  return %r : !dtensor.tensor<8x8xf32, @m, [partial<sum>, replicate]>
}

// S(0) over all of a 2x2x2 mesh -> S(1) over all of it: one all_to_all on
// the combined group, never a gather.
// CHECK-LABEL: func @cube_shard_move
// CHECK-NOT: shard.all_gather
// CHECK: shard.all_to_all %{{.*}} on @cube grid_axes = [0, 1, 2] split_axis = 1 concat_axis = 0 : tensor<2x16xf32> -> tensor<16x2xf32>
// CHECK-NOT: shard.all_gather
// CHECK: return
func.func @cube_shard_move(%x: !dtensor.tensor<16x16xf32, @cube, [shard<0>, shard<0>, shard<0>]>) -> !dtensor.tensor<16x16xf32, @cube, [shard<1>, shard<1>, shard<1>]> {
  // expected-remark @+1 {{plan [S(0), S(0), S(0)] -> [S(1), S(1), S(1)]: cost=1.120000e+02 collectives=1}}
  %r = dtensor.redistribute %x : !dtensor.tensor<16x16xf32, @cube, [shard<0>, shard<0>, shard<0>]> -> !dtensor.tensor<16x16xf32, @cube, [shard<1>, shard<1>, shard<1>]>
  return %r : !dtensor.tensor<16x16xf32, @cube, [shard<1>, shard<1>, shard<1>]>
}
