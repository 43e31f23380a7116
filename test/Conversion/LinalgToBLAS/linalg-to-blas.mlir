// RUN: hp-opt %s -convert-linalg-to-blas | FileCheck %s

// A matmul on buffers: operands cast to any layout, no transposes, one
// private declaration with the C interface.
// CHECK: func.func private @hp_matvec_f32(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?xf32, strided<[?], offset: ?>>, memref<?xf32, strided<[?], offset: ?>>, i32) attributes {llvm.emit_c_interface}
// CHECK: func.func private @hp_batch_matmul_f64(
// CHECK: func.func private @hp_matmul_f64(
// CHECK: func.func private @hp_matmul_f32(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32, i32) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @matmul
// CHECK: %[[A:.*]] = memref.cast %arg0 : memref<8x4xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK: %[[B:.*]] = memref.cast %arg1 : memref<4x6xf32, strided<[12, 2], offset: 3>> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK: %[[C:.*]] = memref.cast %arg2 : memref<8x6xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK: %[[F:.*]] = arith.constant 0 : i32
// CHECK: %[[G:.*]] = arith.constant 0 : i32
// CHECK: call @hp_matmul_f32(%[[A]], %[[B]], %[[C]], %[[F]], %[[G]])
// CHECK-NOT: linalg.matmul
func.func @matmul(%a: memref<8x4xf32>, %b: memref<4x6xf32, strided<[12, 2], offset: 3>>, %c: memref<8x6xf32>) {
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x6xf32, strided<[12, 2], offset: 3>>) outs(%c : memref<8x6xf32>)
  return
}

// Transposed operands through the indexing maps: the BLAS flags, no copy.
// CHECK-LABEL: func.func @transposed
// CHECK: %[[T:.*]] = arith.constant 1 : i32
// CHECK: %[[U:.*]] = arith.constant 1 : i32
// CHECK: call @hp_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[T]], %[[U]])
func.func @transposed(%a: memref<4x8xf32>, %b: memref<6x4xf32>, %c: memref<8x6xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : memref<4x8xf32>, memref<6x4xf32>) outs(%c : memref<8x6xf32>)
  return
}

// A linalg.generic of the same shape is a contraction too; f64 calls dgemm.
// CHECK-LABEL: func.func @generic_f64
// CHECK: %[[N:.*]] = arith.constant 0 : i32
// CHECK: %[[Y:.*]] = arith.constant 1 : i32
// CHECK: call @hp_matmul_f64(%{{.*}}, %{{.*}}, %{{.*}}, %[[N]], %[[Y]])
func.func @generic_f64(%a: memref<8x4xf64>, %b: memref<6x4xf64>, %c: memref<8x6xf64>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<8x4xf64>, memref<6x4xf64>) outs(%c : memref<8x6xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  }
  return
}

// CHECK-LABEL: func.func @batched
// CHECK: call @hp_batch_matmul_f64(
func.func @batched(%a: memref<2x8x4xf64>, %b: memref<2x4x6xf64>, %c: memref<2x8x6xf64>) {
  linalg.batch_matmul ins(%a, %b : memref<2x8x4xf64>, memref<2x4x6xf64>) outs(%c : memref<2x8x6xf64>)
  return
}

// CHECK-LABEL: func.func @matvec
// CHECK: %[[Z:.*]] = arith.constant 0 : i32
// CHECK: call @hp_matvec_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[Z]])
func.func @matvec(%a: memref<8x4xf32>, %x: memref<4xf32>, %y: memref<8xf32>) {
  linalg.matvec ins(%a, %x : memref<8x4xf32>, memref<4xf32>) outs(%y : memref<8xf32>)
  return
}

// An output that is a view of an input's buffer keeps the loops: a BLAS
// reads its inputs before it writes.
// CHECK-LABEL: func.func @aliased
// CHECK-NOT: call @hp_
// CHECK: linalg.matmul
func.func @aliased(%buf: memref<8x8xf32>, %b: memref<4x4xf32>) {
  %a = memref.subview %buf[0, 0] [4, 4] [1, 1] : memref<8x8xf32> to memref<4x4xf32, strided<[8, 1]>>
  %c = memref.subview %buf[2, 2] [4, 4] [1, 1] : memref<8x8xf32> to memref<4x4xf32, strided<[8, 1], offset: 18>>
  linalg.matmul ins(%a, %b : memref<4x4xf32, strided<[8, 1]>>, memref<4x4xf32>) outs(%c : memref<4x4xf32, strided<[8, 1], offset: 18>>)
  return
}

// What a BLAS does not take stays a linalg op: integers, f16, a body that is
// not a multiply-add, mixed element types, tensors (before bufferization).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: call @hp_
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<8x4xi32>, memref<4x6xi32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<8x4xf16>, memref<4x6xf16>)
// CHECK: linalg.generic
// CHECK: arith.maximumf
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<8x4xf16>, memref<4x6xf16>) outs(%{{.*}} : memref<8x6xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x4xf32>, tensor<4x6xf32>)
// CHECK-NOT: call @hp_
func.func @left_alone(%ai: memref<8x4xi32>, %bi: memref<4x6xi32>, %ci: memref<8x6xi32>,
                      %ah: memref<8x4xf16>, %bh: memref<4x6xf16>, %ch: memref<8x6xf16>,
                      %af: memref<8x4xf32>, %bf: memref<4x6xf32>, %cf: memref<8x6xf32>,
                      %ta: tensor<8x4xf32>, %tb: tensor<4x6xf32>, %tc: tensor<8x6xf32>) -> tensor<8x6xf32> {
  linalg.matmul ins(%ai, %bi : memref<8x4xi32>, memref<4x6xi32>) outs(%ci : memref<8x6xi32>)
  linalg.matmul ins(%ah, %bh : memref<8x4xf16>, memref<4x6xf16>) outs(%ch : memref<8x6xf16>)
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%af, %bf : memref<8x4xf32>, memref<4x6xf32>) outs(%cf : memref<8x6xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.maximumf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.matmul ins(%ah, %bh : memref<8x4xf16>, memref<4x6xf16>) outs(%cf : memref<8x6xf32>)
  %r = linalg.matmul ins(%ta, %tb : tensor<8x4xf32>, tensor<4x6xf32>) outs(%tc : tensor<8x6xf32>) -> tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}

