// dtensor-lower-scans{gpu=true} (hp-lower-to-gpu) refuses a scan at the op.
// RUN: hp-opt %s -dtensor-lower-scans="gpu=true" -verify-diagnostics -o /dev/null

func.func @on_gpu(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{has no GPU kernel yet: hp-lower-to-gpu refuses scans}}
  %c = dtensor.scan sum %x dim = 0 : tensor<8xf32>
  return %c : tensor<8xf32>
}
