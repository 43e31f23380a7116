// RUN: hp-opt %s --split-input-file --free-buffers-after-last-use | FileCheck %s

// A buffer is freed right after its last use, not at the end of the block.
// CHECK-LABEL: func.func @last_use
// CHECK: %[[A:.*]] = memref.alloc
// CHECK: %[[B:.*]] = memref.alloc
// CHECK: linalg.fill ins(%{{.*}}) outs(%[[A]]
// CHECK-NEXT: linalg.copy ins(%[[A]] {{.*}} outs(%[[B]]
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: linalg.fill ins(%{{.*}}) outs(%[[B]]
// CHECK-NEXT: memref.dealloc %[[B]]
// CHECK-NEXT: return
func.func @last_use(%f: f32) {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  linalg.fill ins(%f : f32) outs(%a : memref<4xf32>)
  linalg.copy ins(%a : memref<4xf32>) outs(%b : memref<4xf32>)
  linalg.fill ins(%f : f32) outs(%b : memref<4xf32>)
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  return
}

// -----

// A use of a view (subview, reshape) is a use of the buffer.
// CHECK-LABEL: func.func @views
// CHECK: %[[A:.*]] = memref.alloc
// CHECK: %[[V:.*]] = memref.subview %[[A]]
// CHECK: %[[R:.*]] = memref.expand_shape %[[V]]
// CHECK: linalg.fill ins(%{{.*}}) outs(%[[R]]
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: return
func.func @views(%f: f32, %out: memref<4xf32>) {
  %a = memref.alloc() : memref<8xf32>
  %v = memref.subview %a[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
  %r = memref.expand_shape %v [[0, 1]] output_shape [2, 2] : memref<4xf32, strided<[1]>> into memref<2x2xf32>
  linalg.fill ins(%f : f32) outs(%a : memref<8xf32>)
  linalg.fill ins(%f : f32) outs(%r : memref<2x2xf32>)
  linalg.fill ins(%f : f32) outs(%out : memref<4xf32>)
  memref.dealloc %a : memref<8xf32>
  return
}

// -----

// A use inside a region (a loop body) is a use by the loop.
// CHECK-LABEL: func.func @region_use
// CHECK: %[[A:.*]] = memref.alloc
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[A]]
// CHECK: }
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: return
func.func @region_use(%f: f32, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    memref.store %f, %a[%i] : memref<4xf32>
  }
  linalg.fill ins(%f : f32) outs(%out : memref<4xf32>)
  memref.dealloc %a : memref<4xf32>
  return
}

// -----

// A buffer carried through a loop: the loop's result is a view of it.
// CHECK-LABEL: func.func @loop_carried
// CHECK: %[[A:.*]] = memref.alloc
// CHECK: %[[L:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[A]])
// CHECK: linalg.fill ins(%{{.*}}) outs(%[[L]]
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: return
func.func @loop_carried(%f: f32, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<4xf32>
  %l = scf.for %i = %c0 to %c4 step %c1 iter_args(%x = %a) -> (memref<4xf32>) {
    scf.yield %x : memref<4xf32>
  }
  linalg.fill ins(%f : f32) outs(%l : memref<4xf32>)
  linalg.fill ins(%f : f32) outs(%out : memref<4xf32>)
  memref.dealloc %a : memref<4xf32>
  return
}

// -----

// A view the terminator uses escapes the block: the dealloc stays.
// CHECK-LABEL: func.func @escapes
// CHECK: linalg.fill
// CHECK-NEXT: memref.dealloc
// CHECK-NEXT: return
func.func @escapes(%f: f32) -> memref<4xf32, strided<[1]>> {
  %a = memref.alloc() : memref<8xf32>
  %v = memref.subview %a[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
  linalg.fill ins(%f : f32) outs(%a : memref<8xf32>)
  memref.dealloc %a : memref<8xf32>
  return %v : memref<4xf32, strided<[1]>>
}

// -----

// A buffer from another block (here the function's, freed in a branch) is
// left alone; so is a dealloc with a use after it (never moved later).
// CHECK-LABEL: func.func @other_block
// CHECK: scf.if
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: memref.dealloc
// CHECK-LABEL: func.func @used_after
// CHECK: linalg.fill
// CHECK-NEXT: memref.dealloc
// CHECK-NEXT: linalg.fill
func.func @other_block(%f: f32, %c: i1, %out: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  linalg.fill ins(%f : f32) outs(%a : memref<4xf32>)
  scf.if %c {
    linalg.fill ins(%f : f32) outs(%out : memref<4xf32>)
    memref.dealloc %a : memref<4xf32>
  }
  return
}
func.func @used_after(%f: f32) {
  %a = memref.alloc() : memref<4xf32>
  linalg.fill ins(%f : f32) outs(%a : memref<4xf32>)
  memref.dealloc %a : memref<4xf32>
  linalg.fill ins(%f : f32) outs(%a : memref<4xf32>)
  return
}

// -----

// The buffer's address taken as an index (a driver hands it to the
// runtime this way): what reads it through the index is invisible here, so
// the dealloc stays.
// CHECK-LABEL: func.func @address_taken
// CHECK: call @write
// CHECK-NEXT: memref.dealloc
// CHECK-NEXT: return
func.func private @write(i64)
func.func @address_taken(%f: f32) {
  %a = memref.alloc() : memref<4xf32>
  linalg.fill ins(%f : f32) outs(%a : memref<4xf32>)
  %pi = memref.extract_aligned_pointer_as_index %a : memref<4xf32> -> index
  %p = arith.index_cast %pi : index to i64
  call @write(%p) : (i64) -> ()
  memref.dealloc %a : memref<4xf32>
  return
}

// -----

// A view the analysis does not follow (memref.transpose is not a view-like
// op to it) could be read later: the dealloc stays.
// CHECK-LABEL: func.func @untracked_view
// CHECK: linalg.fill ins(%{{.*}}) outs(%{{.*}} : memref<8x4xf32, strided<[1, 8]>>)
// CHECK-NEXT: memref.dealloc
// CHECK-NEXT: return
func.func @untracked_view(%f: f32) {
  %a = memref.alloc() : memref<4x8xf32>
  %t = memref.transpose %a (i, j) -> (j, i) : memref<4x8xf32> to memref<8x4xf32, strided<[1, 8]>>
  linalg.fill ins(%f : f32) outs(%a : memref<4x8xf32>)
  linalg.fill ins(%f : f32) outs(%t : memref<8x4xf32, strided<[1, 8]>>)
  memref.dealloc %a : memref<4x8xf32>
  return
}

// -----

// Only a fresh allocation of the block moves: a call's result (which may
// share memory with what the call was given) and a block argument stay.
// CHECK-LABEL: func.func @not_an_allocation
// CHECK: linalg.fill
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: memref.dealloc %{{.*}} : memref<4xf32>
// CHECK-NEXT: memref.dealloc %{{.*}} : memref<4xf32>
// CHECK-NEXT: return
func.func private @make() -> memref<4xf32>
func.func @not_an_allocation(%f: f32, %arg: memref<4xf32>) {
  %r = call @make() : () -> memref<4xf32>
  linalg.fill ins(%f : f32) outs(%r : memref<4xf32>)
  linalg.fill ins(%f : f32) outs(%arg : memref<4xf32>)
  memref.dealloc %r : memref<4xf32>
  memref.dealloc %arg : memref<4xf32>
  return
}

// -----

// A buffer stored as a value can be loaded back and used later: it stays.
// CHECK-LABEL: func.func @stored
// CHECK: memref.store
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: memref.dealloc
// CHECK-NEXT: return
func.func @stored(%f: f32, %h: memref<memref<4xf32>>, %out: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  memref.store %a, %h[] : memref<memref<4xf32>>
  linalg.fill ins(%f : f32) outs(%out : memref<4xf32>)
  memref.dealloc %a : memref<4xf32>
  return
}
