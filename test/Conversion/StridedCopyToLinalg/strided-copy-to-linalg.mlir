// RUN: hp-opt %s --split-input-file --convert-strided-copy-to-linalg | FileCheck %s
// RUN: hp-opt %s --split-input-file --convert-strided-copy-to-linalg=keep-contiguous=true | FileCheck %s --check-prefix=KEEP

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

// -----

// Rows of a slice at a dynamic offset that make one contiguous block: a
// linalg.copy by default, kept as memref.copy (one memcpy) with
// keep-contiguous; a slice of part of each row is a linalg.copy either way.
// CHECK-LABEL: func.func @block
// CHECK-COUNT-2: linalg.copy
// CHECK-NOT: memref.copy
// KEEP-LABEL: func.func @block
// KEEP: memref.copy %{{.*}}, %{{.*}} : memref<2x4xf32, strided<[4, 1], offset: ?>> to memref<2x4xf32>
// KEEP: linalg.copy ins(%{{.*}} : memref<4x2xf32, strided<[4, 1], offset: ?>>)
// KEEP-NOT: memref.copy
func.func @block(%a: memref<4x4xf32>, %b: memref<2x4xf32>, %c: memref<4x2xf32>, %i: index) {
  %rows = memref.subview %a[%i, 0] [2, 4] [1, 1] : memref<4x4xf32> to memref<2x4xf32, strided<[4, 1], offset: ?>>
  memref.copy %rows, %b : memref<2x4xf32, strided<[4, 1], offset: ?>> to memref<2x4xf32>
  %cols = memref.subview %a[0, %i] [4, 2] [1, 1] : memref<4x4xf32> to memref<4x2xf32, strided<[4, 1], offset: ?>>
  memref.copy %cols, %c : memref<4x2xf32, strided<[4, 1], offset: ?>> to memref<4x2xf32>
  return
}
