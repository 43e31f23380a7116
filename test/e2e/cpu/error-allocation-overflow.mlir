// A buffer whose size in bytes overflows 64 bits (which upstream's lowering
// would wrap around, here to a malloc of 0 bytes) is refused: a static
// shape before any rank starts, at its source line; a dynamic one when the
// allocation runs, naming the op and its location.
// REQUIRES: mpi
// RUN: rm -rf %t && split-file %s %t
// RUN: not %hp-runner -np 2 %t/static.mlir 2>&1 | FileCheck %s --check-prefix=STATIC
// STATIC: static.mlir:3:8: error: a buffer of type 'memref<4611686018427387904xf32>' needs more than 2^63 - 1 bytes: its size would overflow when it is allocated
// STATIC-NOT: printed
// RUN: not --crash %hp-runner %t/dynamic.mlir 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// DYNAMIC: memref.alloc of memref<4294967296x?xf32> at {{.*}}dynamic.mlir":7:8): its size in bytes overflows a 64-bit integer
// DYNAMIC-NOT: printed

//--- static.mlir
func.func @main() {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<4611686018427387904xf32>
  %f = arith.constant 1.0 : f32
  memref.store %f, %a[%c0] : memref<4611686018427387904xf32>
  %x = memref.load %a[%c0] : memref<4611686018427387904xf32>
  vector.print %x : f32
  vector.print str "printed\n"
  return
}

//--- dynamic.mlir
func.func @main() {
  %c0 = arith.constant 0 : index
  // 2^32 x 2^30 f32: 2^64 bytes, sizes known only at run time.
  %m = arith.constant 4294967296 : index
  %n0 = arith.constant 1073741824 : index
  %n = call @opaque(%n0) : (index) -> index
  %a = memref.alloc(%m, %n) : memref<?x?xf32>
  %f = arith.constant 1.0 : f32
  memref.store %f, %a[%c0, %c0] : memref<?x?xf32>
  %x = memref.load %a[%c0, %c0] : memref<?x?xf32>
  vector.print %x : f32
  vector.print str "printed\n"
  return
}

// Not folded: the pipeline does not inline.
func.func @opaque(%x: index) -> index {
  return %x : index
}
