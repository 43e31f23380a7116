// RUN: hp-opt %s -convert-linalg-to-blas -verify-diagnostics

// A function of the program already holds the runtime entry point's name.
// expected-error @+1 {{'hp_matmul_f32' is the name of hp's runtime entry point that convert-linalg-to-blas calls}}
func.func @hp_matmul_f32(%x: i32) {
  return
}
func.func @user(%a: memref<8x4xf32>, %b: memref<4x6xf32>, %c: memref<8x6xf32>) {
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x6xf32>) outs(%c : memref<8x6xf32>)
  return
}
