// RUN: hp-opt %s -convert-linalg-to-blas | FileCheck %s
// RUN: hp-opt %s -convert-linalg-to-blas=target=gpu | FileCheck %s --check-prefix=GPU
// RUN: not hp-opt %s -convert-linalg-to-blas=target=tpu 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: error: convert-linalg-to-blas: target must be 'cpu' or 'gpu', got 'tpu'

// Each contraction becomes one call of the runtime: the operands as unranked
// memrefs, the number of loops and two words packing, for each loop, the
// dim of A, B and C it indexes (4 bits each, dim + 1, 0 for none; 12 bits
// per loop from the low end), one private declaration per element type with
// the C interface.
// CHECK-DAG: func.func private @hp_contract_f32(memref<*xf32>, memref<*xf32>, memref<*xf32>, i64, i64, i64) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @hp_contract_f64(memref<*xf64>, memref<*xf64>, memref<*xf64>, i64, i64, i64) attributes {llvm.emit_c_interface}
// The matmul's loops m, n, k index A (0, -, 1), B (-, 1, 0), C (0, 1, -):
// fields 0x101, 0x220, 0x012, so 0x12220101 = 304218369.
// CHECK-LABEL: func.func @matmul
// CHECK: %[[A:.*]] = memref.cast %arg0 : memref<8x4xf32> to memref<*xf32>
// CHECK: %[[B:.*]] = memref.cast %arg1 : memref<4x6xf32, strided<[12, 2], offset: 3>> to memref<*xf32>
// CHECK: %[[C:.*]] = memref.cast %arg2 : memref<8x6xf32> to memref<*xf32>
// CHECK: %[[N:.*]] = arith.constant 3 : i64
// CHECK: %[[W0:.*]] = arith.constant 304218369 : i64
// CHECK: %[[W1:.*]] = arith.constant 0 : i64
// CHECK: call @hp_contract_f32(%[[A]], %[[B]], %[[C]], %[[N]], %[[W0]], %[[W1]])
// CHECK-NOT: linalg.matmul
// On GPUs the same call of the cuBLAS entry point, only where the static
// layout fits a BLAS: B's columns are strided here (a kernel instead).
// GPU-DAG: func.func private @hp_gpu_contract_f32(memref<*xf32>, memref<*xf32>, memref<*xf32>, i64, i64, i64) attributes {llvm.emit_c_interface}
// GPU-DAG: func.func private @hp_gpu_contract_f64(
// GPU-LABEL: func.func @matmul
// GPU: linalg.matmul
// GPU-NOT: call
func.func @matmul(%a: memref<8x4xf32>, %b: memref<4x6xf32, strided<[12, 2], offset: 3>>, %c: memref<8x6xf32>) {
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x6xf32, strided<[12, 2], offset: 3>>) outs(%c : memref<8x6xf32>)
  return
}

// Transposed operands through the indexing maps: the spec says which dim
// each loop indexes (fields 0x102, 0x210, 0x021); the runtime passes the
// BLAS flags, no copy. A dynamic offset does not stop the GPU call.
// CHECK-LABEL: func.func @transposed
// CHECK: arith.constant 555811074 : i64
// CHECK: call @hp_contract_f32(
// GPU-LABEL: func.func @transposed
// GPU: arith.constant 555811074 : i64
// GPU: call @hp_gpu_contract_f32(
func.func @transposed(%a: memref<4x8xf32, strided<[8, 1], offset: ?>>, %b: memref<6x4xf32>, %c: memref<8x6xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : memref<4x8xf32, strided<[8, 1], offset: ?>>, memref<6x4xf32>) outs(%c : memref<8x6xf32>)
  return
}

// A linalg.generic of the same shape is a contraction too, the product in
// either order; f64 has its own entry point.
// CHECK-LABEL: func.func @generic_f64
// CHECK: arith.constant 555811074 : i64
// CHECK: call @hp_contract_f64(
// GPU-LABEL: func.func @generic_f64
// GPU: call @hp_gpu_contract_f64(
func.func @generic_f64(%a: memref<4x8xf64>, %b: memref<6x4xf64>, %c: memref<8x6xf64>) {
  linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<4x8xf64>, memref<6x4xf64>) outs(%c : memref<8x6xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %y, %x : f64
    %s = arith.addf %p, %acc : f64
    linalg.yield %s : f64
  }
  return
}

// Four loops b, m, n, k: fields 0x111, 0x202, 0x330, 0x023.
// CHECK-LABEL: func.func @batched
// CHECK: arith.constant 4 : i64
// CHECK: arith.constant 2418873999633 : i64
// CHECK: call @hp_contract_f64(
func.func @batched(%a: memref<2x8x4xf64>, %b: memref<2x4x6xf64>, %c: memref<2x8x6xf64>) {
  linalg.batch_matmul ins(%a, %b : memref<2x8x4xf64>, memref<2x4x6xf64>) outs(%c : memref<2x8x6xf64>)
  return
}

// No n loop: a matrix-vector product (fields 0x101, 0x012).
// CHECK-LABEL: func.func @matvec
// CHECK: arith.constant 2 : i64
// CHECK: arith.constant 73985 : i64
// CHECK: call @hp_contract_f32(
func.func @matvec(%a: memref<8x4xf32>, %x: memref<4xf32>, %y: memref<8xf32>) {
  linalg.matvec ins(%a, %x : memref<8x4xf32>, memref<4xf32>) outs(%y : memref<8xf32>)
  return
}

// Several loops of a kind: a projection whose output is split into heads
// (two n loops) is one call; the runtime merges the loops. Fields 0x101,
// 0x220, 0x330, 0x012. On GPUs the static plan is one gemm: converted.
// CHECK-LABEL: func.func @heads
// CHECK: arith.constant 1250643017985 : i64
// CHECK: call @hp_contract_f32(
// GPU-LABEL: func.func @heads
// GPU: call @hp_gpu_contract_f32(
func.func @heads(%x: memref<16x32xf32>, %w: memref<32x4x8xf32>, %y: memref<16x4x8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(m, h, d, k) -> (m, k)>, affine_map<(m, h, d, k) -> (k, h, d)>, affine_map<(m, h, d, k) -> (m, h, d)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<16x32xf32>, memref<32x4x8xf32>) outs(%y : memref<16x4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// On GPUs a dynamic size or stride leaves the contraction to a kernel: the
// plan cannot be checked before it runs. CPUs take it.
// CHECK-LABEL: func.func @dynamic
// CHECK: call @hp_contract_f32(
// GPU-LABEL: func.func @dynamic
// GPU: linalg.matmul
// GPU-NOT: call
func.func @dynamic(%a: memref<?x4xf32>, %b: memref<4x6xf32>, %c: memref<?x6xf32>) {
  linalg.matmul ins(%a, %b : memref<?x4xf32>, memref<4x6xf32>) outs(%c : memref<?x6xf32>)
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
// not a multiply-add, mixed element types, tensors (before bufferization),
// a loop only the output indexes (a broadcast), a reduction over A alone, a
// dot product (no m or n loop), and an elementwise multiply-add (no k loop).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: call @hp_
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<8x4xi32>, memref<4x6xi32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<8x4xf16>, memref<4x6xf16>)
// CHECK: linalg.generic
// CHECK: arith.maximumf
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<8x4xf16>, memref<4x6xf16>) outs(%{{.*}} : memref<8x6xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x4xf32>, tensor<4x6xf32>)
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT: call @hp_
func.func @left_alone(%ai: memref<8x4xi32>, %bi: memref<4x6xi32>, %ci: memref<8x6xi32>,
                      %ah: memref<8x4xf16>, %bh: memref<4x6xf16>, %ch: memref<8x6xf16>,
                      %af: memref<8x4xf32>, %bf: memref<4x6xf32>, %cf: memref<8x6xf32>,
                      %ta: tensor<8x4xf32>, %tb: tensor<4x6xf32>, %tc: tensor<8x6xf32>,
                      %x4: memref<4xf32>, %a3: memref<8x4x2xf32>, %y8: memref<8xf32>,
                      %s0: memref<f32>) -> tensor<8x6xf32> {
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
  // C[m, j] += A[m, k] B[k]: j indexes C alone.
  linalg.generic {indexing_maps = [affine_map<(m, j, k) -> (m, k)>, affine_map<(m, j, k) -> (k)>, affine_map<(m, j, k) -> (m, j)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%af, %x4 : memref<8x4xf32>, memref<4xf32>) outs(%cf : memref<8x6xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  // C[m] += A[m, k, r] B[k]: r is a reduction of A alone.
  linalg.generic {indexing_maps = [affine_map<(m, k, r) -> (m, k, r)>, affine_map<(m, k, r) -> (k)>, affine_map<(m, k, r) -> (m)>],
                  iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%a3, %x4 : memref<8x4x2xf32>, memref<4xf32>) outs(%y8 : memref<8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  // A dot product: no m or n loop.
  linalg.generic {indexing_maps = [affine_map<(k) -> (k)>, affine_map<(k) -> (k)>, affine_map<(k) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%x4, %x4 : memref<4xf32>, memref<4xf32>) outs(%s0 : memref<f32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  // An elementwise multiply-add: no k loop.
  linalg.generic {indexing_maps = [affine_map<(m) -> (m)>, affine_map<(m) -> (m)>, affine_map<(m) -> (m)>],
                  iterator_types = ["parallel"]}
      ins(%y8, %y8 : memref<8xf32>, memref<8xf32>) outs(%y8 : memref<8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return %r : tensor<8x6xf32>
}

