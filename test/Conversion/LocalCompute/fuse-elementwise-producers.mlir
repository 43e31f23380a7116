// RUN: hp-opt %s --fuse-elementwise-producers -split-input-file | FileCheck %s

// A chain of pointwise ops becomes one generic; a matmul followed by the
// expand_shape that splits heads stays a matmul (upstream's
// linalg-fuse-elementwise-ops would fold the reshape into it, leaving a
// generic with two output dims that no BLAS call takes).
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @chain_and_matmul
// CHECK: %[[MM:.*]] = linalg.matmul
// CHECK: tensor.expand_shape %[[MM]] {{\[}}[0], [1, 2]]
// CHECK: linalg.generic
// CHECK-SAME: ins(%arg2, %arg3 : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK: arith.addf
// CHECK: arith.mulf
// CHECK-NOT: linalg.generic
func.func @chain_and_matmul(%a: tensor<4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<4x8xf32>,
                            %c: tensor<4x8xf32>) -> (tensor<4x2x4xf32>, tensor<4x8xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %mm = linalg.matmul ins(%a, %w : tensor<4x16xf32>, tensor<16x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  %heads = tensor.expand_shape %mm [[0], [1, 2]] output_shape [4, 2, 4] : tensor<4x8xf32> into tensor<4x2x4xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b, %c : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %t = arith.addf %x, %y : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %p = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %c : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %t = arith.mulf %x, %y : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  return %heads, %p : tensor<4x2x4xf32>, tensor<4x8xf32>
}

// -----

// A producer with two consumers is not fused (it would be computed twice).
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @shared
// CHECK-COUNT-3: linalg.generic
func.func @shared(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = math.exp %x : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  %u = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%s : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = arith.negf %x : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  %v = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%s : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = arith.mulf %x, %x : f32
    linalg.yield %t : f32
  } -> tensor<8xf32>
  return %u, %v : tensor<8xf32>, tensor<8xf32>
}
