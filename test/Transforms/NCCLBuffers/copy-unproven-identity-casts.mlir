// RUN: hp-opt %s -split-input-file -copy-unproven-identity-casts -verify-diagnostics | FileCheck %s

// A column block returned as an identity layout: the cast holds only when
// the dynamic size is 3, so it becomes a copy.
// CHECK-LABEL: func @returned_column_block
// CHECK: %[[V:.*]] = memref.subview
// CHECK: %[[D:.*]] = memref.dim %[[V]], %{{.*}} : memref<2x2x?xi64, strided<[6, 3, 1]>>
// CHECK: %[[C:.*]] = memref.alloc(%[[D]]) : memref<2x2x?xi64>
// CHECK: linalg.copy ins(%[[V]] : memref<2x2x?xi64, strided<[6, 3, 1]>>) outs(%[[C]] : memref<2x2x?xi64>)
// CHECK-NOT: memref.cast
// CHECK: return %[[C]]
func.func @returned_column_block(%b: memref<2x2x3xi64>, %n: index) -> memref<2x2x?xi64> {
  %v = memref.subview %b[0, 0, 0] [2, 2, %n] [1, 1, 1] : memref<2x2x3xi64> to memref<2x2x?xi64, strided<[6, 3, 1]>>
  %c = memref.cast %v : memref<2x2x?xi64, strided<[6, 3, 1]>> to memref<2x2x?xi64>
  return %c : memref<2x2x?xi64>
}

// -----

// A row block is contiguous: its cast stays.
// CHECK-LABEL: func @returned_row_block
// CHECK: memref.cast
// CHECK-NOT: linalg.copy
func.func @returned_row_block(%b: memref<8x5xf32>, %n: index) -> memref<?x5xf32> {
  %v = memref.subview %b[0, 0] [%n, 5] [1, 1] : memref<8x5xf32> to memref<?x5xf32, strided<[5, 1]>>
  %c = memref.cast %v : memref<?x5xf32, strided<[5, 1]>> to memref<?x5xf32>
  return %c : memref<?x5xf32>
}

// -----

// Written through: a copy would lose the write, so it stays, with a warning.
func.func @written(%b: memref<2x3xf32>, %n: index, %x: f32) {
  %v = memref.subview %b[0, 0] [2, %n] [1, 1] : memref<2x3xf32> to memref<2x?xf32, strided<[3, 1]>>
  // expected-warning @+1 {{cast of a strided buffer to an identity layout is written through; it is right only for some run-time sizes}}
  %c = memref.cast %v : memref<2x?xf32, strided<[3, 1]>> to memref<2x?xf32>
  linalg.fill ins(%x : f32) outs(%c : memref<2x?xf32>)
  return
}
