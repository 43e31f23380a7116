// RUN: hp-opt %s -split-input-file -dtensor-propagate="latency-bytes=0 param-memory-weight=100" | FileCheck %s

// dtensor.fsdp_axes: a parameter split along a mesh axis only to be stored
// (FSDP) is weighed by param-memory-weight as if gathered there. y = x w,
// x 64x8 replicated, w 8x8 with rows split by dp and tp (64 B a rank), y
// replicated; by bytes alone (latency-bytes=0):
//  - w to columns split by both axes (an all_to_all over 4 ranks, 48 B;
//    its piece stays 64 B), y by columns, all_gathered over 4 ranks
//    (1,536 B): 1,584 B;
//  - w to [replicate, shard<1>] (96 B) and y gathered over tp alone
//    (1,024 B): 1,120 B, plus 100 times the 64 B its piece grows, unless dp
//    is an FSDP axis, along which every step gathers it anyway.
// Without the attribute the first wins; with it, the second: w gathered
// along dp, still split along tp.
dtensor.mesh @m shape = [2, 2] names = ["dp", "tp"]

// CHECK-LABEL: func.func @stored
// CHECK: dtensor.redistribute %arg1 : !dtensor.tensor<8x8xf32, @m, [shard<0>, shard<0>]> -> !dtensor.tensor<8x8xf32, @m, [shard<1>, shard<1>]>
// CHECK: dtensor.redistribute %{{.*}} : !dtensor.tensor<64x8xf32, @m, [shard<1>, shard<1>]> -> !dtensor.tensor<64x8xf32, @m, [replicate, replicate]>
func.func @stored(%x: !dtensor.tensor<64x8xf32, @m, [replicate, replicate]>,
                  %w: !dtensor.tensor<8x8xf32, @m, [shard<0>, shard<0>]> {dtensor.arg_name = "w"})
    -> !dtensor.tensor<64x8xf32, @m, [replicate, replicate]> {
  %y = dtensor.global_region on @m args(%x, %w) : (!dtensor.tensor<64x8xf32, @m, [replicate, replicate]>, !dtensor.tensor<8x8xf32, @m, [shard<0>, shard<0>]>) -> !dtensor.tensor<64x8xf32, @m, [replicate, replicate]> {
  ^bb0(%gx: tensor<64x8xf32>, %gw: tensor<8x8xf32>):
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x8xf32>
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x8xf32>) -> tensor<64x8xf32>
    %mm = linalg.matmul ins(%gx, %gw : tensor<64x8xf32>, tensor<8x8xf32>) outs(%f : tensor<64x8xf32>) -> tensor<64x8xf32>
    dtensor.yield %mm : tensor<64x8xf32>
  }
  return %y : !dtensor.tensor<64x8xf32, @m, [replicate, replicate]>
}

// -----

dtensor.mesh @m shape = [2, 2] names = ["dp", "tp"]

// CHECK-LABEL: func.func @fsdp
// CHECK: dtensor.redistribute %arg1 : !dtensor.tensor<8x8xf32, @m, [shard<0>, shard<0>]> -> !dtensor.tensor<8x8xf32, @m, [replicate, shard<1>]>
// CHECK: dtensor.redistribute %{{.*}} : !dtensor.tensor<64x8xf32, @m, [replicate, shard<1>]> -> !dtensor.tensor<64x8xf32, @m, [replicate, replicate]>
func.func @fsdp(%x: !dtensor.tensor<64x8xf32, @m, [replicate, replicate]>,
                %w: !dtensor.tensor<8x8xf32, @m, [shard<0>, shard<0>]> {dtensor.arg_name = "w", dtensor.fsdp_axes = array<i64: 0>})
    -> !dtensor.tensor<64x8xf32, @m, [replicate, replicate]> {
  %y = dtensor.global_region on @m args(%x, %w) : (!dtensor.tensor<64x8xf32, @m, [replicate, replicate]>, !dtensor.tensor<8x8xf32, @m, [shard<0>, shard<0>]>) -> !dtensor.tensor<64x8xf32, @m, [replicate, replicate]> {
  ^bb0(%gx: tensor<64x8xf32>, %gw: tensor<8x8xf32>):
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x8xf32>
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x8xf32>) -> tensor<64x8xf32>
    %mm = linalg.matmul ins(%gx, %gw : tensor<64x8xf32>, tensor<8x8xf32>) outs(%f : tensor<64x8xf32>) -> tensor<64x8xf32>
    dtensor.yield %mm : tensor<64x8xf32>
  }
  return %y : !dtensor.tensor<64x8xf32, @m, [replicate, replicate]>
}

// -----

// The attribute is read through a transpose, and only for its own argument:
// wt (marked, stored transposed: its columns split) is transposed in place
// and gathered along dp as w is above; v (named, unmarked) is moved as w is
// in @stored.
dtensor.mesh @m shape = [2, 2] names = ["dp", "tp"]

// CHECK-LABEL: func.func @two
// CHECK: linalg.transpose
// CHECK-DAG: dtensor.redistribute %{{.*}} : !dtensor.tensor<8x8xf32, @m, [shard<0>, shard<0>]> -> !dtensor.tensor<8x8xf32, @m, [replicate, shard<1>]>
// CHECK-DAG: dtensor.redistribute %arg2 : !dtensor.tensor<8x8xf32, @m, [shard<0>, shard<0>]> -> !dtensor.tensor<8x8xf32, @m, [shard<1>, shard<1>]>
func.func @two(%x: !dtensor.tensor<64x8xf32, @m, [replicate, replicate]>,
               %wt: !dtensor.tensor<8x8xf32, @m, [shard<1>, shard<1>]> {dtensor.arg_name = "wt", dtensor.fsdp_axes = array<i64: 0>},
               %v: !dtensor.tensor<8x8xf32, @m, [shard<0>, shard<0>]> {dtensor.arg_name = "v"})
    -> (!dtensor.tensor<64x8xf32, @m, [replicate, replicate]>, !dtensor.tensor<64x8xf32, @m, [replicate, replicate]>) {
  %y:2 = dtensor.global_region on @m args(%x, %wt, %v) : (!dtensor.tensor<64x8xf32, @m, [replicate, replicate]>, !dtensor.tensor<8x8xf32, @m, [shard<1>, shard<1>]>, !dtensor.tensor<8x8xf32, @m, [shard<0>, shard<0>]>) -> (!dtensor.tensor<64x8xf32, @m, [replicate, replicate]>, !dtensor.tensor<64x8xf32, @m, [replicate, replicate]>) {
  ^bb0(%gx: tensor<64x8xf32>, %gwt: tensor<8x8xf32>, %gv: tensor<8x8xf32>):
    %z = arith.constant 0.0 : f32
    %te = tensor.empty() : tensor<8x8xf32>
    %w = linalg.transpose ins(%gwt : tensor<8x8xf32>) outs(%te : tensor<8x8xf32>) permutation = [1, 0]
    %e = tensor.empty() : tensor<64x8xf32>
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x8xf32>) -> tensor<64x8xf32>
    %a = linalg.matmul ins(%gx, %w : tensor<64x8xf32>, tensor<8x8xf32>) outs(%f : tensor<64x8xf32>) -> tensor<64x8xf32>
    %b = linalg.matmul ins(%gx, %gv : tensor<64x8xf32>, tensor<8x8xf32>) outs(%f : tensor<64x8xf32>) -> tensor<64x8xf32>
    dtensor.yield %a, %b : tensor<64x8xf32>, tensor<64x8xf32>
  }
  return %y#0, %y#1 : !dtensor.tensor<64x8xf32, @m, [replicate, replicate]>, !dtensor.tensor<64x8xf32, @m, [replicate, replicate]>
}
