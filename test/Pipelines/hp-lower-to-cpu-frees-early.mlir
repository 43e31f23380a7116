// hp-lower-to-cpu frees each temporary after its last use (pass
// free-buffers-after-last-use), not at the end of the function where
// ownership-based deallocation puts it: %a is freed before the third
// matmul runs, %b right after it.
// RUN: hp-opt %s --hp-lower-to-cpu --mlir-print-ir-after=free-buffers-after-last-use -o /dev/null 2>&1 | FileCheck %s
// hp-lower-to-gpu leaves the deallocations where they are (a kernel or a
// collective queued on a stream may still read the buffer).
// RUN: hp-opt %s --hp-lower-to-gpu --mlir-print-ir-after=free-buffers-after-last-use -o /dev/null 2>&1 | count 0

// CHECK-LABEL: func.func @chain
// CHECK: %[[I:.*]] = memref.alloc
// CHECK: %[[A:.*]] = memref.alloc
// CHECK: linalg.matmul {{.*}} outs(%[[A]]
// CHECK: %[[B:.*]] = memref.alloc
// CHECK: linalg.matmul ins(%[[A]], %[[A]] {{.*}} outs(%[[B]]
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: linalg.matmul ins(%[[B]], %[[B]] {{.*}} outs(%[[I]]
// CHECK-NEXT: memref.dealloc %[[B]]
// CHECK-NEXT: return %[[I]]
func.func @chain(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %z = arith.constant 0.0 : f32
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %a = linalg.matmul ins(%x, %x : tensor<8x8xf32>, tensor<8x8xf32>) outs(%i : tensor<8x8xf32>) -> tensor<8x8xf32>
  %b = linalg.matmul ins(%a, %a : tensor<8x8xf32>, tensor<8x8xf32>) outs(%i : tensor<8x8xf32>) -> tensor<8x8xf32>
  %c = linalg.matmul ins(%b, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%i : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %c : tensor<8x8xf32>
}
