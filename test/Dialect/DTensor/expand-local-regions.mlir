// RUN: hp-opt %s -dtensor-expand-local-regions -split-input-file | FileCheck %s

dtensor.mesh @m shape = [2]

// A declared placement that differs is redistributed at entry; the body is
// inlined between to_local and from_local; a plain tensor passes through.
// CHECK-LABEL: func @redistribute_at_entry
// CHECK-SAME: (%[[X:.*]]: !dtensor.tensor<8x4xf32, @m, [shard<0>]>, %[[B:.*]]: tensor<4xf32>)
// CHECK: %[[R:.*]] = dtensor.redistribute %[[X]] : !dtensor.tensor<8x4xf32, @m, [shard<0>]> -> !dtensor.tensor<8x4xf32, @m, [replicate]>
// CHECK: %[[L:.*]] = dtensor.to_local %[[R]] : !dtensor.tensor<8x4xf32, @m, [replicate]> -> tensor<8x4xf32>
// CHECK: %[[E:.*]] = tensor.extract_slice %[[L]][0, 0] [4, 4] [1, 1]
// CHECK: %[[ADD:.*]] = arith.addf %[[E]], %{{.*}} : tensor<4x4xf32>
// CHECK: %[[W:.*]] = dtensor.from_local %[[ADD]] : tensor<4x4xf32> -> !dtensor.tensor<8x4xf32, @m, [shard<0>]>
// CHECK: return %[[W]]
// CHECK-NOT: dtensor.local_region
func.func @redistribute_at_entry(%x: !dtensor.tensor<8x4xf32, @m, [shard<0>]>, %b: tensor<4xf32>)
    -> !dtensor.tensor<8x4xf32, @m, [shard<0>]> {
  %r = dtensor.local_region on @m args(%x as "x", %b as "bias")
      in_placements = {x = [replicate]} out_placements = [shard<0>] redistribute_inputs
      : (!dtensor.tensor<8x4xf32, @m, [shard<0>]>, tensor<4xf32>) -> !dtensor.tensor<8x4xf32, @m, [shard<0>]> {
  ^bb0(%l: tensor<8x4xf32>, %bias: tensor<4xf32>):
    %e = tensor.extract_slice %l[0, 0] [4, 4] [1, 1] : tensor<8x4xf32> to tensor<4x4xf32>
    %s = arith.addf %e, %e : tensor<4x4xf32>
    dtensor.yield %s : tensor<4x4xf32>
  }
  return %r : !dtensor.tensor<8x4xf32, @m, [shard<0>]>
}

// A declaration equal to the operand's placement needs no redistribute.
// CHECK-LABEL: func @declared_equal
// CHECK-NOT: dtensor.redistribute
// CHECK: dtensor.to_local
// CHECK: dtensor.from_local
func.func @declared_equal(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>) -> !dtensor.tensor<8xf32, @m, [shard<0>]> {
  %r = dtensor.local_region on @m args(%x as "x") in_placements = {x = [shard<0>]} out_placements = [shard<0>]
      : (!dtensor.tensor<8xf32, @m, [shard<0>]>) -> !dtensor.tensor<8xf32, @m, [shard<0>]> {
  ^bb0(%l: tensor<4xf32>):
    dtensor.yield %l : tensor<4xf32>
  }
  return %r : !dtensor.tensor<8xf32, @m, [shard<0>]>
}

// No DTensor operand: nothing is wrapped, even with out_placements.
// CHECK-LABEL: func @no_dtensor_operand
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[N:.*]] = arith.negf %[[X]]
// CHECK-NEXT: return %[[N]] : tensor<4xf32>
func.func @no_dtensor_operand(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = dtensor.local_region on @m args(%x as "x") out_placements = [replicate]
      : (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%l: tensor<4xf32>):
    %n = arith.negf %l : tensor<4xf32>
    dtensor.yield %n : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// Absent out_placements: raw local results.
// CHECK-LABEL: func @raw_results
// CHECK: %[[L:.*]] = dtensor.to_local
// CHECK-NOT: dtensor.from_local
// CHECK: return %[[L]] : tensor<4xf32>
func.func @raw_results(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>) -> tensor<4xf32> {
  %r = dtensor.local_region on @m args(%x as "x") : (!dtensor.tensor<8xf32, @m, [shard<0>]>) -> tensor<4xf32> {
  ^bb0(%l: tensor<4xf32>):
    dtensor.yield %l : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// A yielded DTensor is not re-wrapped; a `none` entry passes a scalar.
// CHECK-LABEL: func @yielded_dtensor_and_none
// CHECK: %[[G:.*]] = dtensor.from_local %{{.*}} : tensor<8xf32> -> !dtensor.tensor<8xf32, @m, [replicate]>
// CHECK-NEXT: %[[C:.*]] = arith.constant 7 : i64
// CHECK-NEXT: return %[[G]], %[[C]]
func.func @yielded_dtensor_and_none(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>, %d: !dtensor.tensor<8xf32, @m, [replicate]>)
    -> (!dtensor.tensor<8xf32, @m, [replicate]>, i64) {
  %r:2 = dtensor.local_region on @m args(%x as "x", %d as "d") out_placements = [[shard<0>], none]
      : (!dtensor.tensor<8xf32, @m, [shard<0>]>, !dtensor.tensor<8xf32, @m, [replicate]>)
     -> (!dtensor.tensor<8xf32, @m, [replicate]>, i64) {
  ^bb0(%l: tensor<4xf32>, %ld: tensor<8xf32>):
    %g = dtensor.from_local %ld : tensor<8xf32> -> !dtensor.tensor<8xf32, @m, [replicate]>
    %c = arith.constant 7 : i64
    dtensor.yield %g, %c : !dtensor.tensor<8xf32, @m, [replicate]>, i64
  }
  return %r#0, %r#1 : !dtensor.tensor<8xf32, @m, [replicate]>, i64
}

// Nested regions expand inside out.
// CHECK-LABEL: func @nested
// CHECK-NOT: dtensor.local_region
// CHECK: dtensor.to_local
// CHECK: arith.negf
// CHECK: dtensor.from_local
func.func @nested(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>) -> !dtensor.tensor<8xf32, @m, [shard<0>]> {
  %r = dtensor.local_region on @m args(%x as "x") out_placements = [shard<0>]
      : (!dtensor.tensor<8xf32, @m, [shard<0>]>) -> !dtensor.tensor<8xf32, @m, [shard<0>]> {
  ^bb0(%l: tensor<4xf32>):
    %i = dtensor.local_region on @m args(%l as "inner") : (tensor<4xf32>) -> tensor<4xf32> {
    ^bb0(%k: tensor<4xf32>):
      %n = arith.negf %k : tensor<4xf32>
      dtensor.yield %n : tensor<4xf32>
    }
    dtensor.yield %i : tensor<4xf32>
  }
  return %r : !dtensor.tensor<8xf32, @m, [shard<0>]>
}

// -----

// Uneven outputs: the yielded dynamic local tensor is wrapped with the
// declared global shape.
dtensor.mesh @m4 shape = [4]
// CHECK-LABEL: func @uneven
// CHECK: dtensor.from_local %{{.*}} : tensor<?xf32> -> !dtensor.tensor<10xf32, @m4, [shard<0>]>
func.func @uneven(%x: !dtensor.tensor<10xf32, @m4, [shard<0>]>) -> !dtensor.tensor<10xf32, @m4, [shard<0>]> {
  %r = dtensor.local_region on @m4 args(%x as "x") out_placements = [shard<0>]
      : (!dtensor.tensor<10xf32, @m4, [shard<0>]>) -> !dtensor.tensor<10xf32, @m4, [shard<0>]> {
  ^bb0(%l: tensor<?xf32>):
    dtensor.yield %l : tensor<?xf32>
  }
  return %r : !dtensor.tensor<10xf32, @m4, [shard<0>]>
}

// -----

// A local_call becomes the same redistribute + to_local, a call of the
// shared local function, and from_local; a scalar passes through.
dtensor.mesh @lc shape = [4]
func.func private @scale(tensor<2x8xf32> {dtensor.arg_name = "x"}, f32 {dtensor.arg_name = "s"}) -> tensor<2x8xf32>

// CHECK-LABEL: func @call_site
// CHECK-SAME: (%[[R:.*]]: !dtensor.tensor<8x8xf32, @lc, [replicate]>, %[[K:.*]]: f32)
// CHECK: %[[S:.*]] = dtensor.redistribute %[[R]] : !dtensor.tensor<8x8xf32, @lc, [replicate]> -> !dtensor.tensor<8x8xf32, @lc, [shard<0>]>
// CHECK: %[[L:.*]] = dtensor.to_local %[[S]] : !dtensor.tensor<8x8xf32, @lc, [shard<0>]> -> tensor<2x8xf32>
// CHECK: %[[C:.*]] = call @scale(%[[L]], %[[K]]) : (tensor<2x8xf32>, f32) -> tensor<2x8xf32>
// CHECK: %[[Y:.*]] = dtensor.from_local %[[C]] : tensor<2x8xf32> -> !dtensor.tensor<8x8xf32, @lc, [shard<0>]>
// CHECK: return %[[Y]]
func.func @call_site(%r: !dtensor.tensor<8x8xf32, @lc, [replicate]>, %k: f32) -> !dtensor.tensor<8x8xf32, @lc, [shard<0>]> {
  %y = dtensor.local_call @scale(%r, %k) on @lc in_placements = {x = [shard<0>]} out_placements = [shard<0>] redistribute_inputs
      : (!dtensor.tensor<8x8xf32, @lc, [replicate]>, f32) -> !dtensor.tensor<8x8xf32, @lc, [shard<0>]>
  return %y : !dtensor.tensor<8x8xf32, @lc, [shard<0>]>
}
