// RUN: hp-opt %s --split-input-file --convert-strided-copy-to-linalg | FileCheck %s

// A copy from or to a strided view becomes linalg.copy.
// CHECK-LABEL: func.func @strided
// CHECK: %[[S:.*]] = memref.subview
// CHECK: linalg.copy ins(%[[S]] : memref<4x2xf32, strided<[4, 1]>>) outs(%{{.*}} : memref<4x2xf32>)
// CHECK: %[[T:.*]] = memref.subview
// CHECK: linalg.copy ins(%{{.*}} : memref<4x2xf32>) outs(%[[T]] : memref<4x2xf32, strided<[4, 1], offset: 2>>)
// CHECK-NOT: memref.copy
func.func @strided(%a: memref<4x4xf32>, %b: memref<4x2xf32>) {
  %s = memref.subview %a[0, 0] [4, 2] [1, 1] : memref<4x4xf32> to memref<4x2xf32, strided<[4, 1]>>
  memref.copy %s, %b : memref<4x2xf32, strided<[4, 1]>> to memref<4x2xf32>
  %t = memref.subview %a[0, 2] [4, 2] [1, 1] : memref<4x4xf32> to memref<4x2xf32, strided<[4, 1], offset: 2>>
  memref.copy %b, %t : memref<4x2xf32> to memref<4x2xf32, strided<[4, 1], offset: 2>>
  return
}

// -----

// A copy between contiguous buffers stays a memref.copy (one memcpy).
// CHECK-LABEL: func.func @contiguous
// CHECK: memref.copy
// CHECK-NOT: linalg.copy
func.func @contiguous(%a: memref<4x4xf32>, %b: memref<4x4xf32>) {
  memref.copy %a, %b : memref<4x4xf32> to memref<4x4xf32>
  return
}
