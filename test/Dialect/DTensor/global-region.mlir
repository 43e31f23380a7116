// RUN: hp-opt %s | hp-opt | FileCheck %s
// RUN: hp-opt %s --mlir-print-op-generic | hp-opt | FileCheck %s

// A whole program on global tensors: DTensor operands enter as their global
// tensors, a scalar unchanged; a constraint pins a placement; a local_region
// in global view declares the layouts of its global operands and results.

// CHECK-LABEL: func.func @mlp
// CHECK: %{{.*}}:2 = dtensor.global_region on @tp args(%{{.*}}, %{{.*}}, %{{.*}}) : (!dtensor.tensor<16x32xf32, @tp, [shard<0>]>, !dtensor.tensor<32x128xf32, @tp, [shard<1>]>, f32) -> (!dtensor.tensor<16x128xf32, @tp, [shard<0>]>, f32) {
// CHECK-NEXT: ^bb0(%[[X:.*]]: tensor<16x32xf32>, %[[W:.*]]: tensor<32x128xf32>, %[[S:.*]]: f32):
// CHECK: %[[H:.*]] = linalg.matmul ins(%[[X]], %[[W]] : tensor<16x32xf32>, tensor<32x128xf32>)
// CHECK: %[[R:.*]] = dtensor.constrain %[[H]] [replicate] : tensor<16x128xf32>
// CHECK: %[[L:.*]] = dtensor.local_region on @tp args(%[[R]] as "h") in_placements = {h = [shard<1>]} out_placements = [shard<1>] : (tensor<16x128xf32>) -> tensor<16x128xf32> {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<16x32xf32>):
// CHECK: dtensor.yield %[[L]], %[[S]] : tensor<16x128xf32>, f32
dtensor.mesh @tp shape = [4] names = ["tp"]
func.func @mlp(%x: !dtensor.tensor<16x32xf32, @tp, [shard<0>]>, %w1: !dtensor.tensor<32x128xf32, @tp, [shard<1>]>, %s: f32) -> (!dtensor.tensor<16x128xf32, @tp, [shard<0>]>, f32) {
  %y, %t = dtensor.global_region on @tp args(%x, %w1, %s) : (!dtensor.tensor<16x32xf32, @tp, [shard<0>]>, !dtensor.tensor<32x128xf32, @tp, [shard<1>]>, f32) -> (!dtensor.tensor<16x128xf32, @tp, [shard<0>]>, f32) {
  ^bb0(%gx: tensor<16x32xf32>, %gw: tensor<32x128xf32>, %gs: f32):
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<16x128xf32>
    %acc = linalg.fill ins(%z : f32) outs(%e : tensor<16x128xf32>) -> tensor<16x128xf32>
    %h = linalg.matmul ins(%gx, %gw : tensor<16x32xf32>, tensor<32x128xf32>) outs(%acc : tensor<16x128xf32>) -> tensor<16x128xf32>
    %hr = dtensor.constrain %h [replicate] : tensor<16x128xf32>
    %l = dtensor.local_region on @tp args(%hr as "h") in_placements = {h = [shard<1>]} out_placements = [shard<1>] : (tensor<16x128xf32>) -> tensor<16x128xf32> {
    ^bb0(%hl: tensor<16x32xf32>):
      %d = arith.addf %hl, %hl : tensor<16x32xf32>
      dtensor.yield %d : tensor<16x32xf32>
    }
    dtensor.yield %l, %gs : tensor<16x128xf32>, f32
  }
  return %y, %t : !dtensor.tensor<16x128xf32, @tp, [shard<0>]>, f32
}

// No operands, no results.
// CHECK-LABEL: func.func @empty
// CHECK: dtensor.global_region on @tp args() : () -> () {
func.func @empty() {
  dtensor.global_region on @tp args() : () -> () {
    dtensor.yield
  }
  return
}

// A constraint may name partial placements: the value is held as pieces.
// CHECK-LABEL: func.func @partial_constraint
// CHECK: dtensor.constrain %{{.*}} [partial<max>] : tensor<8xf32>
func.func @partial_constraint(%x: !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [replicate]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [replicate]> {
  ^bb0(%g: tensor<8xf32>):
    %p = dtensor.constrain %g [partial<max>] : tensor<8xf32>
    dtensor.yield %p : tensor<8xf32>
  }
  return %y : !dtensor.tensor<8xf32, @tp, [replicate]>
}
