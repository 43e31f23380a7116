// RUN: hp-opt %s --convert-memref-to-gpu --verify-diagnostics

// A strided copy left in host code (convert-strided-copy-to-linalg turns
// these into kernels first in hp-lower-to-gpu) is reported.
func.func @strided(%a: memref<4x4xf32>, %b: memref<4x2xf32>) {
  %s = memref.subview %a[0, 0] [4, 2] [1, 1] : memref<4x4xf32> to memref<4x2xf32, strided<[4, 1]>>
  // expected-error @+1 {{copies a strided view; device buffers are copied whole (gpu.memcpy) in the GPU pipeline}}
  memref.copy %s, %b : memref<4x2xf32, strided<[4, 1]>> to memref<4x2xf32>
  return
}

