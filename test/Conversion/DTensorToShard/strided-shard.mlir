// Redistributes to and from strided_shard (torch's _StridedShard) on
// (dp, tp) = 2x4, 16x8 f32. [strided_shard<0, 4>, shard<0>] is the FSDP
// layout: device (i, j) holds row chunk i + 2j of 8 (a 2x8 block, 64 bytes),
// the nesting tp-outside-dp. Torch reaches [shard<0>, shard<0>] from it by
// gathering everything and re-chunking; one permute moves each block once.
// RUN: hp-opt %s --convert-dtensor-to-shard="print-plans verify-plans latency-bytes=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLAN
// RUN: hp-opt %s --convert-dtensor-to-shard="verify-plans latency-bytes=0" -canonicalize | FileCheck %s

dtensor.mesh @m shape = [2, 4] names = ["dp", "tp"]

// PLAN: remark: plan [SS(0,4), S(0)] -> [S(0), S(0)]: cost=6.400000e+01 collectives=1 steps=[permute(
// PLAN: 64 B sent per rank in 1 collective
// The chunk a rank holds, j*2 + i, is held under the default nesting by
// device (K / 4, K % 4); the one it needs, 4i + j, comes from (K % 2, K / 2).
// CHECK-LABEL: func @to_default
// CHECK: %[[IDX:.*]]:2 = shard.process_multi_index on @m
// CHECK: shard.send %arg0 on @m grid_axes = [0, 1] destination = [%{{.*}}, %{{.*}}]
// CHECK: shard.recv %{{.*}} on @m grid_axes = [0, 1] source = [%{{.*}}, %{{.*}}]
// CHECK-NOT: shard.all_gather
func.func @to_default(%x: !dtensor.tensor<16x8xf32, @m, [strided_shard<0, 4>, shard<0>]>)
    -> !dtensor.tensor<16x8xf32, @m, [shard<0>, shard<0>]> {
  %r = dtensor.redistribute %x : !dtensor.tensor<16x8xf32, @m, [strided_shard<0, 4>, shard<0>]> -> !dtensor.tensor<16x8xf32, @m, [shard<0>, shard<0>]>
  return %r : !dtensor.tensor<16x8xf32, @m, [shard<0>, shard<0>]>
}

// PLAN: remark: plan [S(0), S(0)] -> [SS(0,4), S(0)]: cost=6.400000e+01 collectives=1 steps=[permute(
func.func @from_default(%x: !dtensor.tensor<16x8xf32, @m, [shard<0>, shard<0>]>)
    -> !dtensor.tensor<16x8xf32, @m, [strided_shard<0, 4>, shard<0>]> {
  %r = dtensor.redistribute %x : !dtensor.tensor<16x8xf32, @m, [shard<0>, shard<0>]> -> !dtensor.tensor<16x8xf32, @m, [strided_shard<0, 4>, shard<0>]>
  return %r : !dtensor.tensor<16x8xf32, @m, [strided_shard<0, 4>, shard<0>]>
}

// Gathering is one all_gather over (tp, dp), tp outermost: no local shuffle.
// PLAN: remark: plan [SS(0,4), S(0)] -> [R, R]: cost=4.480000e+02 collectives=1 steps=[all_gather(axes=[1, 0], dim=0
// CHECK-LABEL: func @gather
// CHECK: shard.all_gather %arg0 on @m grid_axes = [1, 0] gather_axis = 0 : tensor<2x8xf32> -> tensor<16x8xf32>
func.func @gather(%x: !dtensor.tensor<16x8xf32, @m, [strided_shard<0, 4>, shard<0>]>)
    -> !dtensor.tensor<16x8xf32, @m, [replicate, replicate]> {
  %r = dtensor.redistribute %x : !dtensor.tensor<16x8xf32, @m, [strided_shard<0, 4>, shard<0>]> -> !dtensor.tensor<16x8xf32, @m, [replicate, replicate]>
  return %r : !dtensor.tensor<16x8xf32, @m, [replicate, replicate]>
}

// Creating it from a replica is local: chunk on tp, then on dp.
// PLAN: remark: plan [R, R] -> [SS(0,4), S(0)]: cost=0.000000e+00 collectives=0 steps=[chunk(axes=[1], dim=0, cost=0.000000e+00); chunk(axes=[0], dim=0
// A partial sum reduce-scatters straight into it: tp chunks the 16 rows
// (4 each, 128 bytes), dp reduce-scatters that block (half of it sent).
// PLAN: remark: plan [P(sum), R] -> [SS(0,4), S(0)]: cost=6.400000e+01 collectives=1 steps=[chunk(axes=[1], dim=0, cost=0.000000e+00); reduce_scatter(axes=[0], dim=0, sum
func.func @create(%x: !dtensor.tensor<16x8xf32, @m, [replicate, replicate]>,
                  %p: !dtensor.tensor<16x8xf32, @m, [partial<sum>, replicate]>)
    -> (!dtensor.tensor<16x8xf32, @m, [strided_shard<0, 4>, shard<0>]>,
        !dtensor.tensor<16x8xf32, @m, [strided_shard<0, 4>, shard<0>]>) {
  %r = dtensor.redistribute %x : !dtensor.tensor<16x8xf32, @m, [replicate, replicate]> -> !dtensor.tensor<16x8xf32, @m, [strided_shard<0, 4>, shard<0>]>
  %s = dtensor.redistribute %p : !dtensor.tensor<16x8xf32, @m, [partial<sum>, replicate]> -> !dtensor.tensor<16x8xf32, @m, [strided_shard<0, 4>, shard<0>]>
  return %r, %s : !dtensor.tensor<16x8xf32, @m, [strided_shard<0, 4>, shard<0>]>, !dtensor.tensor<16x8xf32, @m, [strided_shard<0, 4>, shard<0>]>
}
