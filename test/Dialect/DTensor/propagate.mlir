// RUN: hp-opt %s -dtensor-propagate -split-input-file -verify-diagnostics | FileCheck %s

// Every op runs replicated: a run of ops is one local_region on whole
// tensors, the operands redistributed to replicate, the results to the
// placements the region's result types name.

dtensor.mesh @tp shape = [4] names = ["tp"]

// CHECK-LABEL: func.func @run
// CHECK-SAME: (%[[X:.*]]: !dtensor.tensor<8xf32, @tp, [shard<0>]>)
// CHECK: %[[R:.*]] = dtensor.redistribute %[[X]] : !dtensor.tensor<8xf32, @tp, [shard<0>]> -> !dtensor.tensor<8xf32, @tp, [replicate]>
// CHECK: %[[L:.*]] = dtensor.local_region on @tp args(%[[R]] as "a0") out_placements = {{\[}}[replicate]] : (!dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [replicate]> {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<8xf32>):
// CHECK-NEXT: %[[D:.*]] = arith.addf %[[A]], %[[A]] : tensor<8xf32>
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[D]], %[[A]] : tensor<8xf32>
// CHECK-NEXT: dtensor.yield %[[M]] : tensor<8xf32>
// CHECK: %[[Y:.*]] = dtensor.redistribute %[[L]] : !dtensor.tensor<8xf32, @tp, [replicate]> -> !dtensor.tensor<8xf32, @tp, [shard<0>]>
// CHECK: return %[[Y]]
// CHECK-NOT: dtensor.global_region
func.func @run(%x: !dtensor.tensor<8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8xf32, @tp, [shard<0>]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8xf32, @tp, [shard<0>]> {
  ^bb0(%g: tensor<8xf32>):
    %d = arith.addf %g, %g : tensor<8xf32>
    %m = arith.mulf %d, %g : tensor<8xf32>
    dtensor.yield %m : tensor<8xf32>
  }
  return %y : !dtensor.tensor<8xf32, @tp, [shard<0>]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// A constraint redistributes; a local_region in global view gets its
// operands in its in_placements and its results laid out as its
// out_placements say; the ops after it form another run.
// CHECK-LABEL: func.func @constrain_and_local
// CHECK: %[[L1:.*]] = dtensor.local_region on @tp args(%{{.*}} as "a0") out_placements = {{\[}}[replicate]]
// CHECK: %[[C:.*]] = dtensor.redistribute %[[L1]] : !dtensor.tensor<8x4xf32, @tp, [replicate]> -> !dtensor.tensor<8x4xf32, @tp, [shard<0>]>
// CHECK: %[[IN:.*]] = dtensor.redistribute %[[C]] : !dtensor.tensor<8x4xf32, @tp, [shard<0>]> -> !dtensor.tensor<8x4xf32, @tp, [shard<1>]>
// CHECK: %[[L2:.*]] = dtensor.local_region on @tp args(%[[IN]] as "h") in_placements = {h = [shard<1>]} out_placements = [partial<sum>] : (!dtensor.tensor<8x4xf32, @tp, [shard<1>]>) -> !dtensor.tensor<8x4xf32, @tp, [partial<sum>]> {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<8x1xf32>):
// CHECK: %[[R2:.*]] = dtensor.redistribute %[[L2]] : !dtensor.tensor<8x4xf32, @tp, [partial<sum>]> -> !dtensor.tensor<8x4xf32, @tp, [replicate]>
// CHECK: dtensor.local_region on @tp args(%[[R2]] as "a0")
func.func @constrain_and_local(%x: !dtensor.tensor<8x4xf32, @tp, [replicate]>) -> !dtensor.tensor<8x4xf32, @tp, [replicate]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8x4xf32, @tp, [replicate]>) -> !dtensor.tensor<8x4xf32, @tp, [replicate]> {
  ^bb0(%g: tensor<8x4xf32>):
    %d = arith.addf %g, %g : tensor<8x4xf32>
    %c = dtensor.constrain %d [shard<0>] : tensor<8x4xf32>
    %p = dtensor.local_region on @tp args(%c as "h") in_placements = {h = [shard<1>]} out_placements = [partial<sum>]
        : (tensor<8x4xf32>) -> tensor<8x4xf32> {
    ^bb0(%hl: tensor<8x1xf32>):
      %z = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<8x4xf32>
      %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
      %ins = tensor.insert_slice %hl into %f[0, 0] [8, 1] [1, 1] : tensor<8x1xf32> into tensor<8x4xf32>
      dtensor.yield %ins : tensor<8x4xf32>
    }
    %m = arith.mulf %p, %p : tensor<8x4xf32>
    dtensor.yield %m : tensor<8x4xf32>
  }
  return %y : !dtensor.tensor<8x4xf32, @tp, [replicate]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// Code on no global tensor (constants, scalars) runs in front of the
// region on every rank; a plain tensor result is the whole value on every
// rank; a scalar operand passes through.
// CHECK-LABEL: func.func @constants_and_plain_results
// CHECK-SAME: (%[[S:.*]]: f32)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%[[S]] : f32) outs(%[[E]] : tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[FD:.*]] = dtensor.from_local %[[F]] : tensor<4xf32> -> !dtensor.tensor<4xf32, @tp, [replicate]>
// CHECK: %[[SH:.*]] = dtensor.redistribute %[[FD]] : !dtensor.tensor<4xf32, @tp, [replicate]> -> !dtensor.tensor<4xf32, @tp, [shard<0>]>
// CHECK: %[[PL:.*]] = dtensor.to_local %[[FD]] : !dtensor.tensor<4xf32, @tp, [replicate]> -> tensor<4xf32>
// CHECK: return %[[SH]], %[[PL]], %[[S]]
func.func @constants_and_plain_results(%s: f32) -> (!dtensor.tensor<4xf32, @tp, [shard<0>]>, tensor<4xf32>, f32) {
  %y, %t, %so = dtensor.global_region on @tp args(%s) : (f32) -> (!dtensor.tensor<4xf32, @tp, [shard<0>]>, tensor<4xf32>, f32) {
  ^bb0(%gs: f32):
    %e = tensor.empty() : tensor<4xf32>
    %f = linalg.fill ins(%gs : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    dtensor.yield %f, %f, %gs : tensor<4xf32>, tensor<4xf32>, f32
  }
  return %y, %t, %so : !dtensor.tensor<4xf32, @tp, [shard<0>]>, tensor<4xf32>, f32
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// Values used inside a loop body come in as region operands; a constraint
// inside the loop is the identity on replicated values.
// CHECK-LABEL: func.func @loop
// CHECK: dtensor.local_region on @tp args(%{{.*}} as "a0")
// CHECK: scf.for
// CHECK-NOT: dtensor.constrain
// CHECK: arith.addf
func.func @loop(%x: !dtensor.tensor<8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8xf32, @tp, [replicate]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8xf32, @tp, [replicate]> {
  ^bb0(%g: tensor<8xf32>):
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    %c1 = arith.constant 1 : index
    %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %g) -> tensor<8xf32> {
      %a = arith.addf %acc, %g : tensor<8xf32>
      %p = dtensor.constrain %a [replicate] : tensor<8xf32>
      scf.yield %p : tensor<8xf32>
    }
    dtensor.yield %r : tensor<8xf32>
  }
  return %y : !dtensor.tensor<8xf32, @tp, [replicate]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

func.func @nested_local_region(%x: !dtensor.tensor<8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8xf32, @tp, [replicate]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8xf32, @tp, [replicate]> {
  ^bb0(%g: tensor<8xf32>):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r = scf.for %i = %c0 to %c1 step %c1 iter_args(%acc = %g) -> tensor<8xf32> {
      // expected-error @+1 {{inside another op of a dtensor.global_region body is not supported yet by dtensor-propagate: place it at the top level of the body}}
      %l = dtensor.local_region on @tp args(%acc as "a") in_placements = {a = [shard<0>]} out_placements = [shard<0>] : (tensor<8xf32>) -> tensor<8xf32> {
      ^bb0(%al: tensor<2xf32>):
        dtensor.yield %al : tensor<2xf32>
      }
      scf.yield %l : tensor<8xf32>
    }
    dtensor.yield %r : tensor<8xf32>
  }
  return %y : !dtensor.tensor<8xf32, @tp, [replicate]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// dtensor-expand-local-regions leaves a local_region in a global_region to
// propagation: its operands are global values, not DTensors.
// RUN: hp-opt %s -split-input-file -dtensor-expand-local-regions -allow-unregistered-dialect 2>&1 | FileCheck %s --check-prefix=EXPAND
// EXPAND-LABEL: func.func @expand_leaves_global_view
// EXPAND: dtensor.global_region
// EXPAND: dtensor.local_region on @tp args(%{{.*}} as "g") in_placements = {g = [shard<0>]}
func.func @expand_leaves_global_view(%x: !dtensor.tensor<8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8xf32, @tp, [shard<0>]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8xf32, @tp, [shard<0>]> {
  ^bb0(%g: tensor<8xf32>):
    %l = dtensor.local_region on @tp args(%g as "g") in_placements = {g = [shard<0>]} out_placements = [shard<0>] : (tensor<8xf32>) -> tensor<8xf32> {
    ^bb0(%a: tensor<2xf32>):
      %d = arith.addf %a, %a : tensor<2xf32>
      dtensor.yield %d : tensor<2xf32>
    }
    dtensor.yield %l : tensor<8xf32>
  }
  return %y : !dtensor.tensor<8xf32, @tp, [shard<0>]>
}
