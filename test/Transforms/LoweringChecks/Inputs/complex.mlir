// complex.abs: hp-lower-to-cpu has no lowering for complex numbers (used by
// test/e2e/cpu/softmax.mlir to show the error).
func.func @main(%a: complex<f32>) -> f32 {
  %r = complex.abs %a : complex<f32>
  return %r : f32
}
