// dtensor-lower-sorts{gpu=true} (hp-lower-to-gpu) refuses a sort at the op.
// RUN: hp-opt %s -dtensor-lower-sorts="gpu=true" -verify-diagnostics -o /dev/null

func.func @on_gpu(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{has no GPU kernel yet: hp-lower-to-gpu refuses sorts}}
  %v, %i = dtensor.sort %x dim = 0 : tensor<8xf32> -> tensor<8xi64>
  return %v : tensor<8xf32>
}
