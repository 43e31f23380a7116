// RUN: hp-opt %s --split-input-file --convert-memref-to-gpu | FileCheck %s

// Allocations, deallocations and copies of host code go to device memory.
// CHECK-LABEL: func.func @buffers
// CHECK: %[[A:.*]] = gpu.alloc () : memref<4xf32>
// CHECK: %[[B:.*]] = gpu.alloc (%{{.*}}) : memref<?xf32>
// CHECK: %[[C:.*]] = memref.cast %[[A]]
// CHECK: gpu.memcpy %[[B]], %[[C]]
// CHECK: gpu.dealloc %[[A]]
// CHECK: gpu.dealloc %[[B]]
// CHECK-NOT: memref.{{alloc|dealloc|copy}}
// CHECK: return
func.func @buffers(%n: index) {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc(%n) : memref<?xf32>
  %c = memref.cast %a : memref<4xf32> to memref<?xf32>
  memref.copy %c, %b : memref<?xf32> to memref<?xf32>
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<?xf32>
  return
}

// -----

// A constant global is read on the device through a copy freed at the end
// of its block.
memref.global "private" constant @w : memref<2xf32> = dense<[1.0, 2.0]>
func.func private @use(memref<2xf32>)
// CHECK-LABEL: func.func @constant
// CHECK: %[[G:.*]] = memref.get_global @w
// CHECK: %[[D:.*]] = gpu.alloc () : memref<2xf32>
// CHECK: gpu.memcpy %[[D]], %[[G]]
// CHECK: call @use(%[[D]])
// CHECK: gpu.dealloc %[[D]]
// CHECK-NEXT: return
func.func @constant() {
  %g = memref.get_global @w : memref<2xf32>
  func.call @use(%g) : (memref<2xf32>) -> ()
  return
}

// -----

// A host load of a device buffer (one a kernel or collective may use, here
// an external function) reads a host copy.
func.func private @device_use(memref<4xf32>)
// CHECK-LABEL: func.func @load
// CHECK: %[[D:.*]] = gpu.alloc () : memref<4xf32>
// CHECK: call @device_use(%[[D]])
// CHECK: %[[H:.*]] = memref.alloc() : memref<4xf32>
// CHECK: gpu.memcpy %[[H]], %[[D]]
// CHECK: %[[V:.*]] = memref.load %[[H]]
// CHECK: memref.dealloc %[[H]]
// CHECK: return %[[V]]
func.func @load(%i: index) -> f32 {
  %a = memref.alloc() : memref<4xf32>
  func.call @device_use(%a) : (memref<4xf32>) -> ()
  %v = memref.load %a[%i] : memref<4xf32>
  return %v : f32
}

// -----

// A host store to a device buffer writes a host copy and copies it back.
func.func private @device_use(memref<4xf32>)
// CHECK-LABEL: func.func @store
// CHECK: %[[D:.*]] = gpu.alloc () : memref<4xf32>
// CHECK: %[[H:.*]] = memref.alloc() : memref<4xf32>
// CHECK: gpu.memcpy %[[H]], %[[D]]
// CHECK: memref.store %{{.*}}, %[[H]]
// CHECK: gpu.memcpy %[[D]], %[[H]]
// CHECK: memref.dealloc %[[H]]
// CHECK: call @device_use(%[[D]])
func.func @store(%i: index, %v: f32) {
  %a = memref.alloc() : memref<4xf32>
  memref.store %v, %a[%i] : memref<4xf32>
  func.call @device_use(%a) : (memref<4xf32>) -> ()
  return
}

// -----

// Buffers only host code touches (loads, stores, deallocation, functions
// doing the same: the bookkeeping of ownership-based deallocation) and
// constants only read on the host stay in host memory, with no copies.
memref.global "private" constant @table : memref<2xindex> = dense<[3, 4]>
// CHECK-LABEL: func.func private @helper
// CHECK-NOT: gpu.
// CHECK: return
func.func private @helper(%flags: memref<?xi1>) -> i1 {
  %c0 = arith.constant 0 : index
  %n = memref.dim %flags, %c0 : memref<?xi1>
  %last = arith.subi %n, %n : index
  %f = memref.load %flags[%last] : memref<?xi1>
  return %f : i1
}
// CHECK-LABEL: func.func @bookkeeping
// CHECK-NOT: gpu.
// CHECK: return
func.func @bookkeeping(%i: index) -> (i1, index) {
  %true = arith.constant true
  %flags = memref.alloc() : memref<2xi1>
  memref.store %true, %flags[%i] : memref<2xi1>
  %dyn = memref.cast %flags : memref<2xi1> to memref<?xi1>
  %f = func.call @helper(%dyn) : (memref<?xi1>) -> i1
  memref.dealloc %flags : memref<2xi1>
  %t = memref.get_global @table : memref<2xindex>
  %v = memref.load %t[%i] : memref<2xindex>
  return %f, %v : i1, index
}

// Only the entry point's buffer arguments and results are host memory:
// they are copied in on entry and out before returning. Other functions
// take device buffers as they are.
// CHECK-LABEL: func.func @step
// CHECK-NOT: gpu.memcpy
// CHECK: return
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[ARG:.*]]: memref<4xf32>)
// CHECK: %[[D:.*]] = gpu.alloc () : memref<4xf32>
// CHECK: gpu.memcpy %[[D]], %[[ARG]]
// CHECK: %[[R:.*]] = call @step(%[[D]])
// CHECK: %[[H:.*]] = memref.alloc() : memref<4xf32>
// CHECK: gpu.memcpy %[[H]], %[[R]]
// CHECK: return %[[H]]
func.func @step(%x: memref<4xf32>) -> memref<4xf32> {
  return %x : memref<4xf32>
}
func.func @main(%x: memref<4xf32>) -> memref<4xf32> {
  %r = func.call @step(%x) : (memref<4xf32>) -> memref<4xf32>
  return %r : memref<4xf32>
}
