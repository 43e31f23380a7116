// RUN: hp-opt %s -decompose-aggregated-ops -split-input-file -verify-diagnostics

// linalg.softmax verifies with any element type, but exp and -inf need
// floats: refused with a diagnostic (upstream's decomposition would crash).
func.func @softmax_integers(%x: tensor<2x4xi64>) -> tensor<2x4xi64> {
  %e = tensor.empty() : tensor<2x4xi64>
  // expected-error @+1 {{'linalg.softmax' op needs a floating-point element type, got 'i64'}}
  %p = linalg.softmax dimension(1) ins(%x : tensor<2x4xi64>) outs(%e : tensor<2x4xi64>) -> tensor<2x4xi64>
  return %p : tensor<2x4xi64>
}
