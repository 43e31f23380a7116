// RUN: hp-opt %s --split-input-file --split-independent-deallocs | FileCheck %s

// Buffers of distinct allocations (directly, through a view's base buffer)
// are freed by deallocs of their own, with their conditions. The one the
// op retains (%r, returned) is not freed: its result is its condition.
// CHECK-LABEL: func.func @independent
// CHECK-SAME: (%[[C0:.*]]: i1, %[[C1:.*]]: i1, %[[C2:.*]]: i1)
// CHECK: %[[A:.*]] = memref.alloc() : memref<4xf32>
// CHECK: %[[B:.*]] = memref.alloc() : memref<8xf32>
// CHECK: %[[R:.*]] = memref.alloc() : memref<2xf32>
// CHECK: %[[BASE:.*]], %{{.*}}, %{{.*}}, %{{.*}} = memref.extract_strided_metadata %[[V:.*]] :
// CHECK: bufferization.dealloc (%[[A]] : memref<4xf32>) if (%[[C0]])
// CHECK-NEXT: bufferization.dealloc (%[[BASE]] : memref<f32>) if (%[[C1]])
// CHECK-NEXT: bufferization.dealloc retain (%[[R]] : memref<2xf32>)
// CHECK-NEXT: return %[[R]], %[[C2]]
func.func @independent(%c0: i1, %c1: i1, %c2: i1) -> (memref<2xf32>, i1) {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<8xf32>
  %r = memref.alloc() : memref<2xf32>
  %v = memref.subview %b[2] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 2>>
  %base, %offset, %size, %stride = memref.extract_strided_metadata %v : memref<4xf32, strided<[1], offset: 2>> -> memref<f32>, index, index, index
  %owned = bufferization.dealloc (%a, %base, %r : memref<4xf32>, memref<f32>, memref<2xf32>) if (%c0, %c1, %c2) retain (%r : memref<2xf32>)
  return %r, %owned : memref<2xf32>, i1
}

// -----

// Two memrefs of one allocation (the buffer and a view of it) stay
// together: the op frees the buffer once. The third goes alone.
// CHECK-LABEL: func.func @same_allocation
// CHECK: %[[A:.*]] = memref.alloc() : memref<8xf32>
// CHECK: %[[B:.*]] = memref.alloc() : memref<8xf32>
// CHECK: %[[V:.*]] = memref.subview %[[A]]
// CHECK: bufferization.dealloc (%[[B]] : memref<8xf32>) if (%{{.*}})
// CHECK-NEXT: bufferization.dealloc (%[[A]], %[[V]] : memref<8xf32>, memref<4xf32, strided<[1], offset: 2>>) if
func.func @same_allocation(%c: i1) {
  %a = memref.alloc() : memref<8xf32>
  %b = memref.alloc() : memref<8xf32>
  %v = memref.subview %a[2] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 2>>
  bufferization.dealloc (%a, %v, %b : memref<8xf32>, memref<4xf32, strided<[1], offset: 2>>, memref<8xf32>) if (%c, %c, %c)
  return
}

// -----

// A caller may pass one buffer as two arguments: arguments are one
// allocation, kept together, and a retained argument keeps the other back.
// CHECK-LABEL: func.func @arguments
// CHECK: bufferization.dealloc (%arg0, %arg1 : memref<4xf32>, memref<4xf32>) if (%arg2, %arg3)
// CHECK-NEXT: return
func.func @arguments(%x: memref<4xf32>, %y: memref<4xf32>, %cx: i1, %cy: i1) {
  bufferization.dealloc (%x, %y : memref<4xf32>, memref<4xf32>) if (%cx, %cy)
  return
}
// CHECK-LABEL: func.func @retained_argument_and_another
// CHECK: %[[OWNED:.*]] = bufferization.dealloc (%arg0, %arg1 : memref<4xf32>, memref<4xf32>) if (%arg2, %arg3) retain (%arg0 : memref<4xf32>)
// CHECK-NEXT: return %arg0, %[[OWNED]]
func.func @retained_argument_and_another(%x: memref<4xf32>, %y: memref<4xf32>, %cx: i1, %cy: i1) -> (memref<4xf32>, i1) {
  %o = bufferization.dealloc (%x, %y : memref<4xf32>, memref<4xf32>) if (%cx, %cy) retain (%x : memref<4xf32>)
  return %x, %o : memref<4xf32>, i1
}

// -----

// A function's argument is memory no allocation in it aliases: a retained
// argument keeps no allocation back.
// CHECK-LABEL: func.func @retained_argument
// CHECK: bufferization.dealloc (%{{.*}} : memref<4xf32>) if (%{{.*}})
// CHECK-NEXT: %[[OWNED:.*]] = bufferization.dealloc retain (%arg0 : memref<4xf32>)
// CHECK-NEXT: return %[[OWNED]]
func.func @retained_argument(%arg: memref<4xf32>, %c: i1) -> i1 {
  %a = memref.alloc() : memref<4xf32>
  %owned = bufferization.dealloc (%a : memref<4xf32>) if (%c) retain (%arg : memref<4xf32>)
  return %owned : i1
}

// -----

// A select of two allocations may be either: it goes alone where no other
// operand may be one of them, and stays beside one that may.
// CHECK-LABEL: func.func @select
// CHECK: %[[A:.*]] = memref.alloc()
// CHECK: %[[B:.*]] = memref.alloc()
// CHECK: %[[C:.*]] = memref.alloc()
// CHECK: %[[S:.*]] = arith.select
// CHECK-NEXT: bufferization.dealloc (%[[S]] : memref<4xf32>)
// CHECK-NEXT: %[[T:.*]] = arith.select
// CHECK-NEXT: bufferization.dealloc (%[[T]], %[[C]] : memref<4xf32>, memref<4xf32>)
func.func @select(%p: i1, %c: i1) {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  %cc = memref.alloc() : memref<4xf32>
  %s = arith.select %p, %a, %b : memref<4xf32>
  bufferization.dealloc (%s : memref<4xf32>) if (%c)
  %t = arith.select %p, %cc, %a : memref<4xf32>
  bufferization.dealloc (%t, %cc : memref<4xf32>, memref<4xf32>) if (%c, %c)
  return
}

// -----

// A retained value that may be one of two allocations keeps the memref of
// one of them in the op: its result depends on which.
// CHECK-LABEL: func.func @retained_of_two
// CHECK: %[[A:.*]] = memref.alloc()
// CHECK: %[[B:.*]] = memref.alloc()
// CHECK: %[[S:.*]] = arith.select
// CHECK: bufferization.dealloc (%[[A]] : memref<4xf32>) if (%{{.*}}) retain (%[[S]] : memref<4xf32>)
func.func @retained_of_two(%p: i1, %c: i1) -> (memref<4xf32>, i1) {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  %s = arith.select %p, %a, %b : memref<4xf32>
  %owned = bufferization.dealloc (%a : memref<4xf32>) if (%c) retain (%s : memref<4xf32>)
  return %s, %owned : memref<4xf32>, i1
}

// -----

// Operands whose allocations are unknown (a call's result) may alias
// anything: the op stays as it is, as a memref or as a retained value.
// CHECK-LABEL: func.func @unknown
// CHECK: bufferization.dealloc (%{{.*}}, %{{.*}} : memref<4xf32>, memref<4xf32>) if (%{{.*}}, %{{.*}})
// CHECK: call @make
// CHECK-NEXT: bufferization.dealloc (%{{.*}} : memref<4xf32>) if (%{{.*}}) retain (%{{.*}} : memref<4xf32>)
// CHECK-NEXT: return
func.func private @make(memref<4xf32>) -> memref<4xf32>
func.func @unknown(%c: i1) -> (memref<4xf32>, i1) {
  %a = memref.alloc() : memref<4xf32>
  %u = func.call @make(%a) : (memref<4xf32>) -> memref<4xf32>
  bufferization.dealloc (%a, %u : memref<4xf32>, memref<4xf32>) if (%c, %c)
  %b = memref.alloc() : memref<4xf32>
  %w = func.call @make(%b) : (memref<4xf32>) -> memref<4xf32>
  %owned = bufferization.dealloc (%b : memref<4xf32>) if (%c) retain (%w : memref<4xf32>)
  return %w, %owned : memref<4xf32>, i1
}
