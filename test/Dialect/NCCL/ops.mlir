// RUN: hp-opt %s | hp-opt | FileCheck %s
// RUN: hp-opt %s --mlir-print-op-generic | hp-opt | FileCheck %s

// CHECK: nccl.grid @g(shape = 2x4)
// CHECK: nccl.grid @odd(shape = 2x2) devices = [0, 2, 1, 3]
nccl.grid @g(shape = 2x4)
nccl.grid @odd(shape = 2x2) devices = [0, 2, 1, 3]

// CHECK-LABEL: func @collectives
func.func @collectives(%a: memref<2x6xf32>, %b: memref<8x6xf32>, %c: memref<8x6xf32>,
                       %h: memref<4xbf16>, %i: memref<?x3xi64>, %j: memref<?x3xi64>) {
  // CHECK: %[[C:.*]] = nccl.comm @g axes = [1] : !nccl.comm
  %c1 = nccl.comm @g axes = [1] : !nccl.comm
  // CHECK: %[[W:.*]] = nccl.comm @g axes = [0, 1] : !nccl.comm
  %cw = nccl.comm @g axes = [0, 1] : !nccl.comm
  // CHECK: nccl.comm @g axes = [] : !nccl.comm
  %cs = nccl.comm @g axes = [] : !nccl.comm
  // CHECK: nccl.comm_rank %[[W]] : index
  %r = nccl.comm_rank %cw : index
  // CHECK: nccl.comm_size %[[W]] : index
  %n = nccl.comm_size %cw : index
  // CHECK: nccl.all_gather %{{.*}}, %{{.*}} on %[[C]] : memref<2x6xf32>, memref<8x6xf32>
  nccl.all_gather %a, %b on %c1 : memref<2x6xf32>, memref<8x6xf32>
  // CHECK: nccl.reduce_scatter %{{.*}}, %{{.*}} on %[[C]] op = sum : memref<8x6xf32>, memref<2x6xf32>
  nccl.reduce_scatter %b, %a on %c1 op = sum : memref<8x6xf32>, memref<2x6xf32>
  // CHECK: nccl.all_reduce %{{.*}}, %{{.*}} on %[[W]] op = avg : memref<8x6xf32>, memref<8x6xf32>
  nccl.all_reduce %b, %c on %cw op = avg : memref<8x6xf32>, memref<8x6xf32>
  // CHECK: nccl.all_reduce %{{.*}}, %{{.*}} on %[[C]] op = prod : memref<4xbf16>, memref<4xbf16>
  nccl.all_reduce %h, %h on %c1 op = prod : memref<4xbf16>, memref<4xbf16>
  // CHECK: nccl.all_to_all %{{.*}}, %{{.*}} on %[[C]] : memref<8x6xf32>, memref<8x6xf32>
  nccl.all_to_all %b, %c on %c1 : memref<8x6xf32>, memref<8x6xf32>
  // CHECK: nccl.all_to_all %{{.*}}, %{{.*}} on %[[C]] : memref<?x3xi64>, memref<?x3xi64>
  nccl.all_to_all %i, %j on %c1 : memref<?x3xi64>, memref<?x3xi64>
  // CHECK: nccl.broadcast %{{.*}}, %{{.*}} on %[[C]] root = 3 : memref<8x6xf32>, memref<8x6xf32>
  nccl.broadcast %b, %c on %c1 root = 3 : memref<8x6xf32>, memref<8x6xf32>
  // CHECK: nccl.broadcast %{{.*}}, %{{.*}} on %[[C]] root = %{{.*}} : memref<8x6xf32>, memref<8x6xf32>
  nccl.broadcast %b, %c on %c1 root = %r : memref<8x6xf32>, memref<8x6xf32>
  // CHECK: nccl.group {
  // CHECK-NEXT: arith.constant
  // CHECK-NEXT: nccl.send %{{.*}} to %{{.*}} on %[[C]] : memref<4xbf16>
  // CHECK-NEXT: nccl.recv %{{.*}} from %{{.*}} on %[[C]] : memref<4xbf16>
  // CHECK-NEXT: }
  nccl.group {
    %peer = arith.constant 1 : index
    nccl.send %h to %peer on %c1 : memref<4xbf16>
    nccl.recv %h from %peer on %c1 : memref<4xbf16>
  }
  return
}

// Every NCCL data type.
// CHECK-LABEL: func @dtypes
func.func @dtypes(%a: memref<2xf16>, %b: memref<2xf64>, %c: memref<2xi8>, %d: memref<2xui8>,
                  %e: memref<2xi32>, %f: memref<2xui32>, %g: memref<2xui64>,
                  %h: memref<2xf8E4M3FN>, %i: memref<2xf8E5M2>) {
  %c0 = nccl.comm @g axes = [0] : !nccl.comm
  // CHECK-COUNT-9: nccl.all_reduce
  nccl.all_reduce %a, %a on %c0 op = max : memref<2xf16>, memref<2xf16>
  nccl.all_reduce %b, %b on %c0 op = min : memref<2xf64>, memref<2xf64>
  nccl.all_reduce %c, %c on %c0 op = sum : memref<2xi8>, memref<2xi8>
  nccl.all_reduce %d, %d on %c0 op = sum : memref<2xui8>, memref<2xui8>
  nccl.all_reduce %e, %e on %c0 op = sum : memref<2xi32>, memref<2xi32>
  nccl.all_reduce %f, %f on %c0 op = sum : memref<2xui32>, memref<2xui32>
  nccl.all_reduce %g, %g on %c0 op = sum : memref<2xui64>, memref<2xui64>
  nccl.all_reduce %h, %h on %c0 op = sum : memref<2xf8E4M3FN>, memref<2xf8E4M3FN>
  nccl.all_reduce %i, %i on %c0 op = sum : memref<2xf8E5M2>, memref<2xf8E5M2>
  return
}

// A grid with dynamic axes (sized at launch) has communicators too.
// CHECK: nccl.grid @d(shape = 2x?)
nccl.grid @d(shape = 2x?)
// CHECK-LABEL: func @dynamic_grid
func.func @dynamic_grid() -> index {
  // CHECK: %[[C:.*]] = nccl.comm @d axes = [1] : !nccl.comm
  %c = nccl.comm @d axes = [1] : !nccl.comm
  // CHECK: nccl.comm_size %[[C]] : index
  %n = nccl.comm_size %c : index
  return %n : index
}
