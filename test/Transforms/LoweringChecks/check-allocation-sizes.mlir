// Buffers whose size in bytes overflows 64 bits: a static shape is an
// error at the op; dynamic sizes get a run-time check.
// RUN: hp-opt %s --check-allocation-sizes --split-input-file --verify-diagnostics | FileCheck %s

// 2^62 f32 is 2^64 bytes, which finalize-memref-to-llvm would wrap to 0.
func.func @wraps() {
  // expected-error @below {{a buffer of type 'memref<4611686018427387904xf32>' needs more than 2^63 - 1 bytes: its size would overflow when it is allocated}}
  %a = memref.alloc() : memref<4611686018427387904xf32>
  return
}

// -----

func.func @product_wraps() {
  // expected-error @below {{a buffer of type 'memref<4294967296x4294967296xi8>' needs more than 2^63 - 1 bytes}}
  %a = memref.alloca() : memref<4294967296x4294967296xi8>
  return
}

// -----

// expected-error @below {{a buffer of type 'memref<4611686018427387904xf64>' needs more than 2^63 - 1 bytes}}
memref.global "private" @g : memref<4611686018427387904xf64>

// -----

// The largest size that fits, and sizes known only at run time.
// CHECK-LABEL: func.func @fits
// CHECK-NOT: cf.assert
// CHECK: memref.alloc() : memref<1152921504606846975xf64>
// CHECK-NOT: cf.assert
// CHECK: %[[E:.*]] = arith.constant 4 : i64
// CHECK: %[[N:.*]] = arith.index_castui %{{.*}} : index to i64
// CHECK: %[[LOW:.*]], %[[HIGH:.*]] = arith.mului_extended %[[E]], %[[N]] : i64
// CHECK: cf.assert %{{.*}}, "memref.alloc of memref<?xf32> at {{.*}}: its size in bytes overflows a 64-bit integer"
// CHECK: memref.alloc(%{{.*}}) : memref<?xf32>
func.func @fits(%n: index) {
  %a = memref.alloc() : memref<1152921504606846975xf64>
  %b = memref.alloc(%n) : memref<?xf32>
  return
}
