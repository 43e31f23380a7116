// RUN: hp-opt %s -split-input-file -convert-linalg-to-blas -verify-diagnostics

// A function of the program already holds the runtime entry point's name.
// expected-error @+1 {{'hp_contract_f32' is the name of hp's runtime entry point that convert-linalg-to-blas calls}}
func.func @hp_contract_f32(%x: i32) {
  return
}
func.func @user(%a: memref<8x4xf32>, %b: memref<4x6xf32>, %c: memref<8x6xf32>) {
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x6xf32>) outs(%c : memref<8x6xf32>)
  return
}

// -----

// Same signature, but a definition: it would be called instead of the
// runtime.
// expected-error @+1 {{'hp_contract_f32' is the name of hp's runtime entry point that convert-linalg-to-blas calls}}
func.func @hp_contract_f32(%a: memref<*xf32>, %b: memref<*xf32>, %c: memref<*xf32>, %n: i64, %w0: i64, %w1: i64) {
  return
}
func.func @user(%a: memref<8x4xf32>, %b: memref<4x6xf32>, %c: memref<8x6xf32>) {
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x6xf32>) outs(%c : memref<8x6xf32>)
  return
}

// -----

// A declaration without the C interface would call the runtime with the
// wrong ABI.
// expected-error @+1 {{'hp_contract_f32' is the name of hp's runtime entry point that convert-linalg-to-blas calls}}
func.func private @hp_contract_f32(memref<*xf32>, memref<*xf32>, memref<*xf32>, i64, i64, i64)
func.func @user(%a: memref<8x4xf32>, %b: memref<4x6xf32>, %c: memref<8x6xf32>) {
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x6xf32>) outs(%c : memref<8x6xf32>)
  return
}
