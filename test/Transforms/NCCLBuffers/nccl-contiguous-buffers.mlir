// RUN: hp-opt %s -split-input-file -nccl-contiguous-buffers | FileCheck %s

nccl.grid @g(shape = 4)

// A strided column block cast to the dynamic layout convert-shard-to-nccl
// asks for: not contiguous, so it is copied into a contiguous buffer first.
// CHECK-LABEL: func @strided_send
// CHECK-SAME: (%[[B:.*]]: memref<7x5xi32>, %[[N:.*]]: index, %[[R:.*]]: memref<7x?xi32>)
// CHECK: %[[V:.*]] = memref.subview %[[B]][0, 1] [7, %[[N]]] [1, 1]
// CHECK: %[[D:.*]] = memref.dim %[[V]], %{{.*}} : memref<7x?xi32, strided<[5, 1], offset: 1>>
// CHECK: %[[S:.*]] = memref.alloc(%[[D]]) : memref<7x?xi32>
// CHECK: linalg.copy ins(%[[V]] : memref<7x?xi32, strided<[5, 1], offset: 1>>) outs(%[[S]] : memref<7x?xi32>)
// CHECK: nccl.all_reduce %[[S]], %[[R]] on %{{.*}} op = max : memref<7x?xi32>, memref<7x?xi32>
func.func @strided_send(%b: memref<7x5xi32>, %n: index, %r: memref<7x?xi32>) {
  %v = memref.subview %b[0, 1] [7, %n] [1, 1] : memref<7x5xi32> to memref<7x?xi32, strided<[5, 1], offset: 1>>
  %d = memref.cast %v : memref<7x?xi32, strided<[5, 1], offset: 1>> to memref<7x?xi32, strided<[?, ?], offset: ?>>
  %c = nccl.comm @g axes = [0] : !nccl.comm
  nccl.all_reduce %d, %r on %c op = max : memref<7x?xi32, strided<[?, ?], offset: ?>>, memref<7x?xi32>
  return
}

// -----

nccl.grid @g(shape = 4)

// A row block is contiguous whatever its offset: used as it is, no copy.
// CHECK-LABEL: func @row_block
// CHECK: %[[V:.*]] = memref.subview
// CHECK-NOT: linalg.copy
// CHECK: nccl.all_gather %[[V]], %{{.*}} on %{{.*}} : memref<2x5xf32, strided<[5, 1], offset: ?>>, memref<8x5xf32>
func.func @row_block(%b: memref<8x5xf32>, %i: index, %r: memref<8x5xf32>) {
  %v = memref.subview %b[%i, 0] [2, 5] [1, 1] : memref<8x5xf32> to memref<2x5xf32, strided<[5, 1], offset: ?>>
  %d = memref.cast %v : memref<2x5xf32, strided<[5, 1], offset: ?>> to memref<2x5xf32, strided<[?, ?], offset: ?>>
  %c = nccl.comm @g axes = [0] : !nccl.comm
  nccl.all_gather %d, %r on %c : memref<2x5xf32, strided<[?, ?], offset: ?>>, memref<8x5xf32>
  return
}

// -----

nccl.grid @g(shape = 4)

// A fresh identity buffer behind the cast: the cast goes, no copy.
// CHECK-LABEL: func @identity
// CHECK-SAME: (%[[A:.*]]: memref<4xf32>
// CHECK-NOT: linalg.copy
// CHECK: nccl.send %[[A]] to %{{.*}} on %{{.*}} : memref<4xf32>
func.func @identity(%a: memref<4xf32>, %p: index) {
  %d = memref.cast %a : memref<4xf32> to memref<4xf32, strided<[?], offset: ?>>
  %c = nccl.comm @g axes = [0] : !nccl.comm
  nccl.send %d to %p on %c : memref<4xf32, strided<[?], offset: ?>>
  return
}

// -----

nccl.grid @g(shape = 4)

// A received buffer that is not contiguous is received into a contiguous
// one and copied back after the call.
// CHECK-LABEL: func @strided_recv
// CHECK: %[[S:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT: nccl.recv %[[S]] from %{{.*}} on %{{.*}} : memref<4xf32>
// CHECK-NEXT: linalg.copy ins(%[[S]] : memref<4xf32>) outs(%{{.*}} : memref<4xf32, strided<[2]>>)
func.func @strided_recv(%a: memref<4xf32, strided<[2]>>, %p: index) {
  %d = memref.cast %a : memref<4xf32, strided<[2]>> to memref<4xf32, strided<[?], offset: ?>>
  %c = nccl.comm @g axes = [0] : !nccl.comm
  nccl.recv %d from %p on %c : memref<4xf32, strided<[?], offset: ?>>
  return
}

// -----

nccl.grid @g(shape = 4)

// Inside nccl.group (its calls are issued together) no copy may sit
// between the calls: staging goes before the group, copy-back after it.
// CHECK-LABEL: func @grouped
// CHECK: %[[S:.*]] = memref.alloc() : memref<2x3xf32>
// CHECK: linalg.copy ins(%{{.*}} : memref<2x3xf32, strided<[5, 1], offset: 1>>) outs(%[[S]]
// CHECK: %[[R:.*]] = memref.alloc() : memref<2x3xf32>
// CHECK: nccl.group {
// CHECK-NEXT: nccl.send %[[S]]
// CHECK-NEXT: nccl.recv %[[R]]
// CHECK-NEXT: }
// CHECK-NEXT: linalg.copy ins(%[[R]] : memref<2x3xf32>) outs(%{{.*}} : memref<2x3xf32, strided<[5, 1], offset: 1>>)
func.func @grouped(%b: memref<2x5xf32>, %peer: index) {
  %c = nccl.comm @g axes = [0] : !nccl.comm
  %v = memref.subview %b[0, 1] [2, 3] [1, 1] : memref<2x5xf32> to memref<2x3xf32, strided<[5, 1], offset: 1>>
  %vd = memref.cast %v : memref<2x3xf32, strided<[5, 1], offset: 1>> to memref<2x3xf32, strided<[?, ?], offset: ?>>
  nccl.group {
    nccl.send %vd to %peer on %c : memref<2x3xf32, strided<[?, ?], offset: ?>>
    nccl.recv %vd from %peer on %c : memref<2x3xf32, strided<[?, ?], offset: ?>>
  }
  return
}
