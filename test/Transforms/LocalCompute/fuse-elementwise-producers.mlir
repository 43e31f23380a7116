// RUN: hp-opt %s --fuse-elementwise-producers -split-input-file | FileCheck %s
// RUN: hp-opt %s --fuse-elementwise-producers=propagate-reshapes=true -split-input-file | FileCheck %s --check-prefix=PROP
// RUN: hp-opt %s --fuse-elementwise-producers -split-input-file --mlir-print-local-scope | FileCheck %s --check-prefix=LOCAL

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

// -----

// A contraction's producer stays apart: inside q k^T the scaled q would be
// recomputed for every key, and the contraction would no longer be the
// multiply-add a BLAS takes. Other consumers take theirs (the exp under a
// row sum).
// CHECK-LABEL: func.func @projection
// CHECK: %[[Q:.*]] = linalg.generic
// CHECK: arith.mulf
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[Q]], %arg1 : tensor<4x8xf32>, tensor<6x8xf32>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%arg3 : tensor<4x8xf32>)
// CHECK: math.exp
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
func.func @projection(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %scale: tensor<4x8xf32>,
                      %x: tensor<4x8xf32>) -> (tensor<4x6xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %qs = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%q, %scale : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.mulf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<4x6xf32>
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<4x6xf32>) -> tensor<4x6xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%qs, %k : tensor<4x8xf32>, tensor<6x8xf32>) outs(%f : tensor<4x6xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %t = arith.addf %acc, %p : f32
    linalg.yield %t : f32
  } -> tensor<4x6xf32>
  %ex = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                        iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %e3 = tensor.empty() : tensor<4xf32>
  %f3 = linalg.fill ins(%z : f32) outs(%e3 : tensor<4xf32>) -> tensor<4xf32>
  %rs = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                        iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<4x8xf32>) outs(%f3 : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %acc, %a : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  return %s, %rs : tensor<4x6xf32>, tensor<4xf32>
}

// -----

// propagate-reshapes (what hp.torch runs on an import): the expand_shape
// splitting heads moves into the matmul, which becomes a generic with two
// output loops (convert-linalg-to-blas takes it); the default leaves it.
// PROP-LABEL: func.func @propagated
// PROP: tensor.expand_shape %arg1 {{\[}}[0], [1, 2]]
// PROP: linalg.generic
// PROP-SAME: iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// PROP-SAME: ins(%arg0, %{{.*}} : tensor<4x16xf32>, tensor<16x2x4xf32>)
// PROP-NOT: linalg.matmul
// CHECK-LABEL: func.func @propagated
// CHECK: linalg.matmul
// CHECK: tensor.expand_shape
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @propagated(%a: tensor<4x16xf32>, %w: tensor<16x8xf32>, %b: tensor<4x2x4xf32>) -> tensor<4x2x4xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %mm = linalg.matmul ins(%a, %w : tensor<4x16xf32>, tensor<16x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  %heads = tensor.expand_shape %mm [[0], [1, 2]] output_shape [4, 2, 4] : tensor<4x8xf32> into tensor<4x2x4xf32>
  %e3 = tensor.empty() : tensor<4x2x4xf32>
  %r = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%heads, %b : tensor<4x2x4xf32>, tensor<4x2x4xf32>) outs(%e3 : tensor<4x2x4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %t = arith.addf %x, %y : f32
    linalg.yield %t : f32
  } -> tensor<4x2x4xf32>
  return %r : tensor<4x2x4xf32>
}

// -----

// A transpose feeding a contraction (torch's x @ W.T) is read through its
// permutation: the contraction indexes W itself, no transposed copy is
// made. A transpose with another use, or one feeding an elementwise op
// only, is left to the usual rules.
// CHECK-LABEL: func.func @transposed_weight
// CHECK-SAME: (%[[X:.*]]: tensor<2x64xf32>, %[[W:.*]]: tensor<256x64xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%[[X]], %[[W]] : tensor<2x64xf32>, tensor<256x64xf32>)
// PROP-LABEL: func.func @transposed_weight
// LOCAL-LABEL: func.func @transposed_weight
// LOCAL: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-LABEL: func.func @transpose_used_twice
// CHECK: linalg.transpose
// CHECK: linalg.matmul
func.func @transposed_weight(%x: tensor<2x64xf32>, %w: tensor<256x64xf32>) -> tensor<2x256xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x256xf32>
  %t = linalg.transpose ins(%w : tensor<256x64xf32>) outs(%e : tensor<64x256xf32>) permutation = [1, 0]
  %o = tensor.empty() : tensor<2x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%o : tensor<2x256xf32>) -> tensor<2x256xf32>
  %mm = linalg.matmul ins(%x, %t : tensor<2x64xf32>, tensor<64x256xf32>) outs(%f : tensor<2x256xf32>) -> tensor<2x256xf32>
  return %mm : tensor<2x256xf32>
}
func.func @transpose_used_twice(%x: tensor<2x64xf32>, %w: tensor<256x64xf32>) -> (tensor<2x256xf32>, tensor<64x256xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x256xf32>
  %t = linalg.transpose ins(%w : tensor<256x64xf32>) outs(%e : tensor<64x256xf32>) permutation = [1, 0]
  %o = tensor.empty() : tensor<2x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%o : tensor<2x256xf32>) -> tensor<2x256xf32>
  %mm = linalg.matmul ins(%x, %t : tensor<2x64xf32>, tensor<64x256xf32>) outs(%f : tensor<2x256xf32>) -> tensor<2x256xf32>
  return %mm, %t : tensor<2x256xf32>, tensor<64x256xf32>
}
// A transposed accumulator (the contraction's init) stays as it is.
// CHECK-LABEL: func.func @transposed_init
// CHECK: linalg.transpose
// CHECK: linalg.matmul
func.func @transposed_init(%x: tensor<2x64xf32>, %y: tensor<64x2xf32>, %c: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %e = tensor.empty() : tensor<2x2xf32>
  %t = linalg.transpose ins(%c : tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) permutation = [1, 0]
  %mm = linalg.matmul ins(%x, %y : tensor<2x64xf32>, tensor<64x2xf32>) outs(%t : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %mm : tensor<2x2xf32>
}
