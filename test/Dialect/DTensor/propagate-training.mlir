// A training step in global view, as hp.torch.Trainer builds it: the
// forward (y = x @ w), the loss (sum of y * y), the backward
// (dw = x^T @ 2y) and the optimizer's update, one program. dtensor-propagate
// places the gradient by cost: a data-parallel gradient is a partial sum
// (its contraction runs over the split batch) reduced to its parameter's
// placement; a tensor-parallel gradient is computed where its parameter
// lies.
// Bytes alone decide (latency-bytes=0): at these small sizes a collective's
// latency would outweigh the bytes it saves.
// RUN: hp-opt %s -split-input-file -dtensor-propagate=latency-bytes=0 | FileCheck %s

dtensor.mesh @dp shape = [4] names = ["dp"]

// DDP: w replicated, x split by rows. x is never gathered: the gradient's
// contraction runs over each rank's rows and leaves a partial sum, which is
// reduce_scattered; each rank updates its quarter of w, and an all_gather
// makes w whole again (an all_reduce in two halves, the update between
// them on a quarter of the rows: the same bytes, a quarter of the flops).
// CHECK-LABEL: func.func @ddp_sgd
// CHECK-NOT: {{shard<[0-9]>|partial<sum>}}]> -> !dtensor.tensor<1024x16xf32, @dp, [replicate]>
// CHECK: dtensor.redistribute %{{.*}} : !dtensor.tensor<16x16xf32, @dp, [partial<sum>]> -> !dtensor.tensor<16x16xf32, @dp, [shard<0>]>
// CHECK: arith.subf %{{.*}}, %{{.*}} : tensor<4x16xf32>
// CHECK-DAG: dtensor.redistribute %{{.*}} : !dtensor.tensor<f32, @dp, [partial<sum>]> -> !dtensor.tensor<f32, @dp, [replicate]>
// CHECK-DAG: dtensor.redistribute %{{.*}} : !dtensor.tensor<16x16xf32, @dp, [shard<0>]> -> !dtensor.tensor<16x16xf32, @dp, [replicate]>
// CHECK: return
func.func @ddp_sgd(%x: !dtensor.tensor<1024x16xf32, @dp, [shard<0>]>, %w: !dtensor.tensor<16x16xf32, @dp, [replicate]>) -> (!dtensor.tensor<f32, @dp, [replicate]>, !dtensor.tensor<16x16xf32, @dp, [replicate]>) {
  %l, %nw = dtensor.global_region on @dp args(%x, %w) : (!dtensor.tensor<1024x16xf32, @dp, [shard<0>]>, !dtensor.tensor<16x16xf32, @dp, [replicate]>) -> (!dtensor.tensor<f32, @dp, [replicate]>, !dtensor.tensor<16x16xf32, @dp, [replicate]>) {
  ^bb0(%gx: tensor<1024x16xf32>, %gw: tensor<16x16xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1024x16xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x16xf32>) -> tensor<1024x16xf32>
    %y = linalg.matmul ins(%gx, %gw : tensor<1024x16xf32>, tensor<16x16xf32>) outs(%z : tensor<1024x16xf32>) -> tensor<1024x16xf32>
    %yy = arith.mulf %y, %y : tensor<1024x16xf32>
    %es = tensor.empty() : tensor<f32>
    %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<f32>) -> tensor<f32>
    %loss = linalg.reduce { arith.addf } ins(%yy : tensor<1024x16xf32>) outs(%zs : tensor<f32>) dimensions = [0, 1]
    %dy = arith.addf %y, %y : tensor<1024x16xf32>
    %et = tensor.empty() : tensor<16x1024xf32>
    %xt = linalg.transpose ins(%gx : tensor<1024x16xf32>) outs(%et : tensor<16x1024xf32>) permutation = [1, 0]
    %ew = tensor.empty() : tensor<16x16xf32>
    %zw = linalg.fill ins(%zero : f32) outs(%ew : tensor<16x16xf32>) -> tensor<16x16xf32>
    %dw = linalg.matmul ins(%xt, %dy : tensor<16x1024xf32>, tensor<1024x16xf32>) outs(%zw : tensor<16x16xf32>) -> tensor<16x16xf32>
    %lr = arith.constant dense<0.1> : tensor<16x16xf32>
    %step = arith.mulf %dw, %lr : tensor<16x16xf32>
    %new = arith.subf %gw, %step : tensor<16x16xf32>
    dtensor.yield %loss, %new : tensor<f32>, tensor<16x16xf32>
  }
  return %l, %nw : !dtensor.tensor<f32, @dp, [replicate]>, !dtensor.tensor<16x16xf32, @dp, [replicate]>
}

// -----

dtensor.mesh @dp shape = [4] names = ["dp"]

// FSDP with Adam: w and its state (m, v) split by rows. w is all_gathered
// for the forward; the gradient's partial sum is reduce_scattered to w's
// rows (the update is not linear: v takes the gradient squared), and w, m
// and v are updated on each rank's rows: nothing else is gathered.
// CHECK-LABEL: func.func @fsdp_adam
// CHECK: dtensor.redistribute %{{.*}} : !dtensor.tensor<16x16xf32, @dp, [shard<0>]> -> !dtensor.tensor<16x16xf32, @dp, [replicate]>
// CHECK-NOT: {{shard<[0-9]>|partial<sum>}}]> -> !dtensor.tensor<{{[0-9x]+}}xf32, @dp, [replicate]>
// CHECK: dtensor.redistribute %{{.*}} : !dtensor.tensor<16x16xf32, @dp, [partial<sum>]> -> !dtensor.tensor<16x16xf32, @dp, [shard<0>]>
// CHECK-NOT: {{shard<[0-9]>|partial<sum>}}]> -> !dtensor.tensor<{{[0-9x]+}}xf32, @dp, [replicate]>
// CHECK: math.sqrt %{{.*}} : tensor<4x16xf32>
// CHECK-NOT: {{shard<[0-9]>|partial<sum>}}]> -> !dtensor.tensor<{{[0-9x]+}}xf32, @dp, [replicate]>
// CHECK: return
func.func @fsdp_adam(%x: !dtensor.tensor<1024x16xf32, @dp, [shard<0>]>, %w: !dtensor.tensor<16x16xf32, @dp, [shard<0>]>, %m: !dtensor.tensor<16x16xf32, @dp, [shard<0>]>, %v: !dtensor.tensor<16x16xf32, @dp, [shard<0>]>) -> (!dtensor.tensor<f32, @dp, [replicate]>, !dtensor.tensor<16x16xf32, @dp, [shard<0>]>, !dtensor.tensor<16x16xf32, @dp, [shard<0>]>, !dtensor.tensor<16x16xf32, @dp, [shard<0>]>) {
  %l, %nw, %nm, %nv = dtensor.global_region on @dp args(%x, %w, %m, %v) : (!dtensor.tensor<1024x16xf32, @dp, [shard<0>]>, !dtensor.tensor<16x16xf32, @dp, [shard<0>]>, !dtensor.tensor<16x16xf32, @dp, [shard<0>]>, !dtensor.tensor<16x16xf32, @dp, [shard<0>]>) -> (!dtensor.tensor<f32, @dp, [replicate]>, !dtensor.tensor<16x16xf32, @dp, [shard<0>]>, !dtensor.tensor<16x16xf32, @dp, [shard<0>]>, !dtensor.tensor<16x16xf32, @dp, [shard<0>]>) {
  ^bb0(%gx: tensor<1024x16xf32>, %gw: tensor<16x16xf32>, %gm: tensor<16x16xf32>, %gv: tensor<16x16xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1024x16xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x16xf32>) -> tensor<1024x16xf32>
    %y = linalg.matmul ins(%gx, %gw : tensor<1024x16xf32>, tensor<16x16xf32>) outs(%z : tensor<1024x16xf32>) -> tensor<1024x16xf32>
    %yy = arith.mulf %y, %y : tensor<1024x16xf32>
    %es = tensor.empty() : tensor<f32>
    %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<f32>) -> tensor<f32>
    %loss = linalg.reduce { arith.addf } ins(%yy : tensor<1024x16xf32>) outs(%zs : tensor<f32>) dimensions = [0, 1]
    %dy = arith.addf %y, %y : tensor<1024x16xf32>
    %et = tensor.empty() : tensor<16x1024xf32>
    %xt = linalg.transpose ins(%gx : tensor<1024x16xf32>) outs(%et : tensor<16x1024xf32>) permutation = [1, 0]
    %ew = tensor.empty() : tensor<16x16xf32>
    %zw = linalg.fill ins(%zero : f32) outs(%ew : tensor<16x16xf32>) -> tensor<16x16xf32>
    %dw = linalg.matmul ins(%xt, %dy : tensor<16x1024xf32>, tensor<1024x16xf32>) outs(%zw : tensor<16x16xf32>) -> tensor<16x16xf32>
    %b1 = arith.constant dense<0.9> : tensor<16x16xf32>
    %c1 = arith.constant dense<0.1> : tensor<16x16xf32>
    %b2 = arith.constant dense<0.999> : tensor<16x16xf32>
    %c2 = arith.constant dense<0.001> : tensor<16x16xf32>
    %eps = arith.constant dense<1.0e-8> : tensor<16x16xf32>
    %lr = arith.constant dense<0.01> : tensor<16x16xf32>
    %m1 = arith.mulf %gm, %b1 : tensor<16x16xf32>
    %m2 = arith.mulf %dw, %c1 : tensor<16x16xf32>
    %mn = arith.addf %m1, %m2 : tensor<16x16xf32>
    %v1 = arith.mulf %gv, %b2 : tensor<16x16xf32>
    %g2 = arith.mulf %dw, %dw : tensor<16x16xf32>
    %v2 = arith.mulf %g2, %c2 : tensor<16x16xf32>
    %vn = arith.addf %v1, %v2 : tensor<16x16xf32>
    %sq = math.sqrt %vn : tensor<16x16xf32>
    %den = arith.addf %sq, %eps : tensor<16x16xf32>
    %q = arith.divf %mn, %den : tensor<16x16xf32>
    %st = arith.mulf %q, %lr : tensor<16x16xf32>
    %new = arith.subf %gw, %st : tensor<16x16xf32>
    dtensor.yield %loss, %new, %mn, %vn : tensor<f32>, tensor<16x16xf32>, tensor<16x16xf32>, tensor<16x16xf32>
  }
  return %l, %nw, %nm, %nv : !dtensor.tensor<f32, @dp, [replicate]>, !dtensor.tensor<16x16xf32, @dp, [shard<0>]>, !dtensor.tensor<16x16xf32, @dp, [shard<0>]>, !dtensor.tensor<16x16xf32, @dp, [shard<0>]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// Tensor parallel: w split by columns (ColwiseParallel), x replicated. The
// gradient x^T @ dy is computed on each rank's columns and updates them in
// place: no collective touches x, w or the gradient; only the loss's
// partial sum is reduced.
// CHECK-LABEL: func.func @tp_sgd
// CHECK-NOT: {{shard<[0-9]>|partial<sum>}}]> -> !dtensor.tensor<{{[0-9x]+}}xf32, @tp, [replicate]>
// CHECK-NOT: xf32, @tp, [partial<sum>]> ->
// CHECK: dtensor.redistribute %{{.*}} : !dtensor.tensor<f32, @tp, [partial<sum>]> -> !dtensor.tensor<f32, @tp, [replicate]>
// CHECK-NOT: {{shard<[0-9]>|partial<sum>}}]> -> !dtensor.tensor<{{[0-9x]+}}xf32, @tp, [replicate]>
// CHECK: return
func.func @tp_sgd(%x: !dtensor.tensor<256x16xf32, @tp, [replicate]>, %w: !dtensor.tensor<16x64xf32, @tp, [shard<1>]>) -> (!dtensor.tensor<f32, @tp, [replicate]>, !dtensor.tensor<16x64xf32, @tp, [shard<1>]>) {
  %l, %nw = dtensor.global_region on @tp args(%x, %w) : (!dtensor.tensor<256x16xf32, @tp, [replicate]>, !dtensor.tensor<16x64xf32, @tp, [shard<1>]>) -> (!dtensor.tensor<f32, @tp, [replicate]>, !dtensor.tensor<16x64xf32, @tp, [shard<1>]>) {
  ^bb0(%gx: tensor<256x16xf32>, %gw: tensor<16x64xf32>):
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x64xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<256x64xf32>) -> tensor<256x64xf32>
    %y = linalg.matmul ins(%gx, %gw : tensor<256x16xf32>, tensor<16x64xf32>) outs(%z : tensor<256x64xf32>) -> tensor<256x64xf32>
    %yy = arith.mulf %y, %y : tensor<256x64xf32>
    %es = tensor.empty() : tensor<f32>
    %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<f32>) -> tensor<f32>
    %loss = linalg.reduce { arith.addf } ins(%yy : tensor<256x64xf32>) outs(%zs : tensor<f32>) dimensions = [0, 1]
    %dy = arith.addf %y, %y : tensor<256x64xf32>
    %et = tensor.empty() : tensor<16x256xf32>
    %xt = linalg.transpose ins(%gx : tensor<256x16xf32>) outs(%et : tensor<16x256xf32>) permutation = [1, 0]
    %ew = tensor.empty() : tensor<16x64xf32>
    %zw = linalg.fill ins(%zero : f32) outs(%ew : tensor<16x64xf32>) -> tensor<16x64xf32>
    %dw = linalg.matmul ins(%xt, %dy : tensor<16x256xf32>, tensor<256x64xf32>) outs(%zw : tensor<16x64xf32>) -> tensor<16x64xf32>
    %lr = arith.constant dense<0.1> : tensor<16x64xf32>
    %step = arith.mulf %dw, %lr : tensor<16x64xf32>
    %new = arith.subf %gw, %step : tensor<16x64xf32>
    dtensor.yield %loss, %new : tensor<f32>, tensor<16x64xf32>
  }
  return %l, %nw : !dtensor.tensor<f32, @tp, [replicate]>, !dtensor.tensor<16x64xf32, @tp, [shard<1>]>
}
