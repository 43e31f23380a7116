// Math ops LLVM has no intrinsic for (erf: exact GELU, as torch's
// nn.GELU() imports) call the C library at the end of hp-lower-to-cpu.
// The tensor case is vectorized, so its erf is upstream's f32 polynomial
// approximation instead (vectorize-linalg-on-buffers): same digits.
// REQUIRES: mpi
// RUN: %hp-runner %s | FileCheck %s
// erf(0.5) = 0.5204998778, erf(-1) = -0.8427007929, atan(1) = pi/4, cbrt(27) = 3
// CHECK: 0.5205
// CHECK-NEXT: -0.842701
// CHECK-NEXT: 0.785398
// CHECK-NEXT: 3
// CHECK-NEXT: ( 0, 0.5205, 0.842701, 0.995322 )

func.func @main() {
  %h = arith.constant 0.5 : f32
  %m = arith.constant -1.0 : f32
  %one = arith.constant 1.0 : f64
  %c = arith.constant 27.0 : f32
  %e1 = math.erf %h : f32
  vector.print %e1 : f32
  %e2 = math.erf %m : f32
  vector.print %e2 : f32
  %a = math.atan %one : f64
  vector.print %a : f64
  %r = math.cbrt %c : f32
  vector.print %r : f32
  %t = arith.constant dense<[0.0, 0.5, 1.0, 2.0]> : tensor<4xf32>
  %e = math.erf %t : tensor<4xf32>
  %c0 = arith.constant 0 : index
  %p = arith.constant 0.0 : f32
  %v = vector.transfer_read %e[%c0], %p : tensor<4xf32>, vector<4xf32>
  vector.print %v : vector<4xf32>
  return
}
