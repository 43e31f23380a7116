// RUN: hp-opt %s -split-input-file -convert-linalg-to-blas -verify-diagnostics

// A function of the program already holds the runtime entry point's name.
// expected-error @+1 {{'hp_matmul_f32' is the name of hp's runtime entry point that convert-linalg-to-blas calls}}
func.func @hp_matmul_f32(%x: i32) {
  return
}
func.func @user(%a: memref<8x4xf32>, %b: memref<4x6xf32>, %c: memref<8x6xf32>) {
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x6xf32>) outs(%c : memref<8x6xf32>)
  return
}

// -----

// Same signature, but a definition: it would be called instead of the
// runtime.
// expected-error @+1 {{'hp_matmul_f32' is the name of hp's runtime entry point that convert-linalg-to-blas calls}}
func.func @hp_matmul_f32(%a: memref<?x?xf32, strided<[?, ?], offset: ?>>, %b: memref<?x?xf32, strided<[?, ?], offset: ?>>, %c: memref<?x?xf32, strided<[?, ?], offset: ?>>, %ta: i32, %tb: i32) {
  return
}
func.func @user(%a: memref<8x4xf32>, %b: memref<4x6xf32>, %c: memref<8x6xf32>) {
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x6xf32>) outs(%c : memref<8x6xf32>)
  return
}

// -----

// A declaration without the C interface would call the runtime with the
// wrong ABI.
// expected-error @+1 {{'hp_matmul_f32' is the name of hp's runtime entry point that convert-linalg-to-blas calls}}
func.func private @hp_matmul_f32(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, i32, i32)
func.func @user(%a: memref<8x4xf32>, %b: memref<4x6xf32>, %c: memref<8x6xf32>) {
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x6xf32>) outs(%c : memref<8x6xf32>)
  return
}
