// dtensor-propagate keeps the dtensor.strategy annotations of a region's
// ops (dtensor-choose-strategies leaves them, a user may write or edit
// them), after checking each is one of the op's strategies, and chooses
// only for the ops without one.
// RUN: hp-opt %s -dtensor-propagate -split-input-file -verify-diagnostics | FileCheck %s

dtensor.mesh @tp shape = [4] names = ["tp"]

// The chooser would keep the addf on rows; the annotation asks for it on
// whole tensors: the rows are gathered before it, and nothing after.
// CHECK-LABEL: func.func @replicated_by_hand
// CHECK: %[[G:.*]] = dtensor.redistribute %{{.*}} : !dtensor.tensor<16x8xf32, @tp, [shard<0>]> -> !dtensor.tensor<16x8xf32, @tp, [replicate]>
// CHECK: dtensor.local_region on @tp args(%[[G]] as "a0", %[[G]] as "a1") out_placements = [replicate]
// CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<16x8xf32>
// CHECK-NOT: dtensor.redistribute
// CHECK-NOT: dtensor.strategy
// CHECK: return
func.func @replicated_by_hand(%x: !dtensor.tensor<16x8xf32, @tp, [shard<0>]>)
    -> !dtensor.tensor<16x8xf32, @tp, [replicate]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<16x8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<16x8xf32, @tp, [replicate]> {
  ^bb0(%g: tensor<16x8xf32>):
    %a = arith.addf %g, %g {dtensor.strategy = #dtensor.strategy<[[replicate], [replicate]] -> [[replicate]], loops = [-1]>} : tensor<16x8xf32>
    dtensor.yield %a : tensor<16x8xf32>
  }
  return %y : !dtensor.tensor<16x8xf32, @tp, [replicate]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// An elementwise op shards its one loop: there is no strategy that splits
// operands but not the loop.
func.func @not_a_strategy(%x: !dtensor.tensor<16x8xf32, @tp, [shard<0>]>)
    -> !dtensor.tensor<16x8xf32, @tp, [replicate]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<16x8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<16x8xf32, @tp, [replicate]> {
  ^bb0(%g: tensor<16x8xf32>):
    // expected-error @+1 {{'dtensor.strategy' #dtensor.strategy<[[shard<0>], [shard<0>]] -> [[shard<0>]], loops = [-1]> is not one of the op's 4 strategies on mesh @tp (dtensor-choose-strategies gives one)}}
    %a = arith.addf %g, %g {dtensor.strategy = #dtensor.strategy<[[shard<0>], [shard<0>]] -> [[shard<0>]], loops = [-1]>} : tensor<16x8xf32>
    dtensor.yield %a : tensor<16x8xf32>
  }
  return %y : !dtensor.tensor<16x8xf32, @tp, [replicate]>
}

// -----

dtensor.mesh @m shape = [2, 2] names = ["dp", "tp"]

// A strategy for another mesh rank is none of the op's.
func.func @other_mesh_rank(%x: !dtensor.tensor<16x8xf32, @m, [shard<0>, replicate]>)
    -> !dtensor.tensor<16x8xf32, @m, [replicate, replicate]> {
  %y = dtensor.global_region on @m args(%x) : (!dtensor.tensor<16x8xf32, @m, [shard<0>, replicate]>) -> !dtensor.tensor<16x8xf32, @m, [replicate, replicate]> {
  ^bb0(%g: tensor<16x8xf32>):
    // expected-error @+1 {{is not one of the op's}}
    %a = arith.addf %g, %g {dtensor.strategy = #dtensor.strategy<[[replicate], [replicate]] -> [[replicate]], loops = [-1]>} : tensor<16x8xf32>
    dtensor.yield %a : tensor<16x8xf32>
  }
  return %y : !dtensor.tensor<16x8xf32, @m, [replicate, replicate]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// Some ops annotated: those are kept (the addf on whole tensors, by hand),
// the chooser places the rest given them (the mulf after it stays whole:
// nothing moves after the gather).
// CHECK-LABEL: func.func @some_annotated
// CHECK: %[[G:.*]] = dtensor.redistribute %{{.*}} : !dtensor.tensor<16x8xf32, @tp, [shard<0>]> -> !dtensor.tensor<16x8xf32, @tp, [replicate]>
// CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<16x8xf32>
// CHECK: arith.mulf %{{.*}}, %{{.*}} : tensor<16x8xf32>
// CHECK-NOT: dtensor.redistribute
// CHECK-NOT: dtensor.strategy
// CHECK: return
func.func @some_annotated(%x: !dtensor.tensor<16x8xf32, @tp, [shard<0>]>)
    -> !dtensor.tensor<16x8xf32, @tp, [replicate]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<16x8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<16x8xf32, @tp, [replicate]> {
  ^bb0(%g: tensor<16x8xf32>):
    %a = arith.addf %g, %g {dtensor.strategy = #dtensor.strategy<[[replicate], [replicate]] -> [[replicate]], loops = [-1]>} : tensor<16x8xf32>
    %m = arith.mulf %a, %a : tensor<16x8xf32>
    dtensor.yield %m : tensor<16x8xf32>
  }
  return %y : !dtensor.tensor<16x8xf32, @tp, [replicate]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// Ops that run replicated in front of the region take no strategy.
func.func @in_front(%x: !dtensor.tensor<16x8xf32, @tp, [shard<0>]>)
    -> !dtensor.tensor<16x8xf32, @tp, [replicate]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<16x8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<16x8xf32, @tp, [replicate]> {
  ^bb0(%g: tensor<16x8xf32>):
    // expected-error @+1 {{has a 'dtensor.strategy' but takes none: it runs replicated in front of the region}}
    %e = tensor.empty() {dtensor.strategy = #dtensor.strategy<[] -> [[replicate]], loops = [-1]>} : tensor<16x8xf32>
    %a = arith.addf %g, %e : tensor<16x8xf32>
    dtensor.yield %a : tensor<16x8xf32>
  }
  return %y : !dtensor.tensor<16x8xf32, @tp, [replicate]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// Nor does a constraint: its own placements are its layout.
func.func @constrained(%x: !dtensor.tensor<16x8xf32, @tp, [shard<0>]>)
    -> !dtensor.tensor<16x8xf32, @tp, [replicate]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<16x8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<16x8xf32, @tp, [replicate]> {
  ^bb0(%g: tensor<16x8xf32>):
    // expected-error @+1 {{has a 'dtensor.strategy' but takes none: its own placements are its layout}}
    %c = dtensor.constrain %g [shard<0>] {dtensor.strategy = #dtensor.strategy<[[shard<0>]] -> [[shard<0>]], loops = [-1]>} : tensor<16x8xf32>
    dtensor.yield %c : tensor<16x8xf32>
  }
  return %y : !dtensor.tensor<16x8xf32, @tp, [replicate]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// A region that must run replicated as a whole places no op.
func.func @whole_region_replicated(%x: !dtensor.tensor<16x8xf32, @tp, [replicate]>, %n: index)
    -> !dtensor.tensor<16x8xf32, @tp, [replicate]> {
  %y = dtensor.global_region on @tp args(%x, %n) : (!dtensor.tensor<16x8xf32, @tp, [replicate]>, index) -> !dtensor.tensor<16x8xf32, @tp, [replicate]> {
  ^bb0(%g: tensor<16x8xf32>, %gn: index):
    %d = tensor.empty(%gn) : tensor<?x8xf32>
    // expected-error @+1 {{has a 'dtensor.strategy', but its dtensor.global_region runs replicated as a whole (a value no DTensor can hold)}}
    %a = arith.addf %g, %g {dtensor.strategy = #dtensor.strategy<[[replicate], [replicate]] -> [[replicate]], loops = [-1]>} : tensor<16x8xf32>
    dtensor.yield %a : tensor<16x8xf32>
  }
  return %y : !dtensor.tensor<16x8xf32, @tp, [replicate]>
}
