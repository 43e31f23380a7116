// RUN: hp-opt %s --dtensor-globalize -split-input-file | FileCheck %s
// RUN: hp-opt %s --dtensor-globalize -split-input-file | hp-opt -split-input-file | FileCheck %s

// Arguments and results take their dtensor.placements (replicated where
// absent); a non-tensor passes through; the body moves into one
// global_region; a dtensor.constrain result pins its value for every other
// use and leaves the signature; the annotations are gone.
dtensor.mesh @tp shape = [2]
// CHECK-LABEL: func.func @f(
// CHECK-SAME: %[[X:.*]]: !dtensor.tensor<8x16xf32, @tp, [replicate]>,
// CHECK-SAME: %[[W:.*]]: !dtensor.tensor<16x32xf32, @tp, [shard<1>]>,
// CHECK-SAME: %[[S:.*]]: f32)
// CHECK-SAME: -> (!dtensor.tensor<8x32xf32, @tp, [shard<1>]>, f32) {
// CHECK-NOT: dtensor.placements
// CHECK-NOT: dtensor.mesh =
// CHECK: %[[R:.*]]:2 = dtensor.global_region on @tp args(%[[X]], %[[W]], %[[S]])
// CHECK: ^bb0(%[[GX:.*]]: tensor<8x16xf32>, %[[GW:.*]]: tensor<16x32xf32>, %[[GS:.*]]: f32):
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[GX]], %[[GW]]
// CHECK-NEXT: %[[C:.*]] = dtensor.constrain %[[M]] [shard<1>] : tensor<8x32xf32>
// CHECK-NEXT: %[[N:.*]] = arith.negf %[[C]]
// CHECK-NEXT: dtensor.yield %[[N]], %[[GS]] : tensor<8x32xf32>, f32
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @f(%x: tensor<8x16xf32>,
             %w: tensor<16x32xf32> {dtensor.placements = [#dtensor.shard<1>]}, %s: f32)
    -> (tensor<8x32xf32> {dtensor.placements = [#dtensor.shard<1>]},
        tensor<8x32xf32> {dtensor.constrain = [#dtensor.shard<1>]}, f32)
    attributes {dtensor.mesh = @tp} {
  %e = tensor.empty() : tensor<8x32xf32>
  %m = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x32xf32>) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %n = arith.negf %m : tensor<8x32xf32>
  return %n, %m, %s : tensor<8x32xf32>, tensor<8x32xf32>, f32
}

// -----

// Pins on one value chain in result order; a pin on an argument is put at
// the top of the body; a returned pinned value is returned constrained; a
// function without dtensor.mesh is left alone.
dtensor.mesh @m shape = [2, 2]
// CHECK-LABEL: func.func @chain(
// CHECK-SAME: %{{.*}}: !dtensor.tensor<4x4xf32, @m, [shard<0>, replicate]>)
// CHECK-SAME: -> !dtensor.tensor<4x4xf32, @m, [replicate, replicate]>
// CHECK: ^bb0(%[[A:.*]]: tensor<4x4xf32>):
// CHECK-NEXT: %[[C1:.*]] = dtensor.constrain %[[A]] [shard<1>, replicate]
// CHECK-NEXT: %[[C2:.*]] = dtensor.constrain %[[C1]] [replicate, shard<0>]
// CHECK-NEXT: %[[E:.*]] = math.exp %[[C2]]
// CHECK-NEXT: dtensor.yield %[[E]]
func.func @chain(%a: tensor<4x4xf32> {dtensor.placements = [#dtensor.shard<0>, #dtensor.replicate]})
    -> (tensor<4x4xf32>, tensor<4x4xf32> {dtensor.constrain = [#dtensor.shard<1>, #dtensor.replicate]},
        tensor<4x4xf32> {dtensor.constrain = [#dtensor.replicate, #dtensor.shard<0>]})
    attributes {dtensor.mesh = @m} {
  %e = math.exp %a : tensor<4x4xf32>
  return %e, %a, %a : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}
// An output that is also pinned is returned constrained (hp.torch's plan
// pin on the model's own output).
// CHECK-LABEL: func.func @pinned_output
// CHECK: %[[C:.*]] = dtensor.constrain %{{.*}} [shard<0>, replicate]
// CHECK-NEXT: dtensor.yield %[[C]]
func.func @pinned_output(%a: tensor<4x4xf32>)
    -> (tensor<4x4xf32> {dtensor.placements = [#dtensor.shard<0>, #dtensor.replicate]},
        tensor<4x4xf32> {dtensor.constrain = [#dtensor.shard<0>, #dtensor.replicate]})
    attributes {dtensor.mesh = @m} {
  %e = math.exp %a : tensor<4x4xf32>
  return %e, %e : tensor<4x4xf32>, tensor<4x4xf32>
}
// CHECK-LABEL: func.func @plain(%{{.*}}: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: return
func.func @plain(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// A tensor a DTensor cannot hold (i1) passes through unannotated, as a
// plain operand of the region; so does a returned one.
dtensor.mesh @tp shape = [2]
// CHECK-LABEL: func.func @mask(
// CHECK-SAME: %{{.*}}: tensor<4xi1>, %{{.*}}: !dtensor.tensor<4xf32, @tp, [replicate]>)
// CHECK-SAME: -> (tensor<4xi1>, !dtensor.tensor<4xf32, @tp, [shard<0>]>)
func.func @mask(%m: tensor<4xi1>, %x: tensor<4xf32>)
    -> (tensor<4xi1>, tensor<4xf32> {dtensor.placements = [#dtensor.shard<0>]})
    attributes {dtensor.mesh = @tp} {
  return %m, %x : tensor<4xi1>, tensor<4xf32>
}

// -----

// So does a tensor of dynamic shape: the rule is the dialect's one
// (isPlaceableTensorType), which dtensor-propagate follows too, so no pass
// makes a DTensor that the next cannot place.
dtensor.mesh @tp shape = [2]
// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME: %{{.*}}: tensor<?x4xf32>, %{{.*}}: !dtensor.tensor<4xf32, @tp, [replicate]>)
// CHECK-SAME: -> (tensor<?x4xf32>, !dtensor.tensor<4xf32, @tp, [replicate]>)
// CHECK: dtensor.global_region on @tp args(%{{.*}}, %{{.*}}) : (tensor<?x4xf32>, !dtensor.tensor<4xf32, @tp, [replicate]>)
func.func @dynamic(%d: tensor<?x4xf32>, %x: tensor<4xf32>) -> (tensor<?x4xf32>, tensor<4xf32>)
    attributes {dtensor.mesh = @tp} {
  return %d, %x : tensor<?x4xf32>, tensor<4xf32>
}
