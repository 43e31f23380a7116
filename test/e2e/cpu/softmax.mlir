// linalg.softmax through hp-lower-to-cpu (decomposed into linalg ops before
// bufferization) runs on one rank; softmax([1, 2, 3, 4])[0] =
// e / (e + e^2 + e^3 + e^4) = 0.0320586 and a row of equal values gives 1/4.
// An op no lowering takes is an error naming it, not a module that fails to
// translate.
// RUN: %hp-runner -np 1 %s -e main --entry-point-result=void | FileCheck %s
// RUN: not hp-opt %S/../../Transforms/LoweringChecks/Inputs/complex.mlir --hp-lower-to-cpu -o /dev/null 2>&1 | FileCheck %s --check-prefix=LEFT
// CHECK: 0.0320586
// CHECK-NEXT: 0.25
// LEFT: error: '{{.*}}' has no lowering to LLVM in this pipeline

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [0.5, 0.5, 0.5, 0.5]]> : tensor<2x4xf32>
  %e = tensor.empty() : tensor<2x4xf32>
  %p = linalg.softmax dimension(1) ins(%x : tensor<2x4xf32>) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  %a = tensor.extract %p[%c0, %c0] : tensor<2x4xf32>
  %b = tensor.extract %p[%c1, %c0] : tensor<2x4xf32>
  vector.print %a : f32
  vector.print %b : f32
  return
}
