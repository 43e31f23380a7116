// RUN: hp-opt %s -split-input-file -verify-diagnostics

func.func @no_grid() {
  // expected-error @+1 {{'@nope' does not name an nccl.grid}}
  %c = nccl.comm @nope axes = [0] : !nccl.comm
  return
}

// -----

nccl.grid @g(shape = 2x2)
func.func @axis_range() {
  // expected-error @+1 {{axis 2 is out of range for grid @g of rank 2}}
  %c = nccl.comm @g axes = [2] : !nccl.comm
  return
}

// -----

nccl.grid @g(shape = 2x2)
func.func @axis_twice() {
  // expected-error @+1 {{axis 1 is listed more than once}}
  %c = nccl.comm @g axes = [1, 1] : !nccl.comm
  return
}

// -----

nccl.grid @g(shape = 4)
func.func @dtype(%a: memref<4xi16>) {
  %c = nccl.comm @g axes = [0] : !nccl.comm
  // expected-error @+1 {{send element type 'i16' has no NCCL data type}}
  nccl.all_reduce %a, %a on %c op = sum : memref<4xi16>, memref<4xi16>
  return
}

// -----

nccl.grid @g(shape = 4)
func.func @layout(%a: memref<4xf32, strided<[2]>>, %b: memref<4xf32>) {
  %c = nccl.comm @g axes = [0] : !nccl.comm
  // expected-error @+1 {{send is not contiguous: 'memref<4xf32, strided<[2]>>'}}
  nccl.all_reduce %a, %b on %c op = sum : memref<4xf32, strided<[2]>>, memref<4xf32>
  return
}

// -----

nccl.grid @g(shape = 4)
func.func @elt(%a: memref<4xf32>, %b: memref<4xf64>) {
  %c = nccl.comm @g axes = [0] : !nccl.comm
  // expected-error @+1 {{send and recv must have the same element type}}
  nccl.all_reduce %a, %b on %c op = sum : memref<4xf32>, memref<4xf64>
  return
}

// -----

nccl.grid @g(shape = 4)
func.func @rank(%a: memref<4xf32>, %b: memref<4x1xf32>) {
  %c = nccl.comm @g axes = [0] : !nccl.comm
  // expected-error @+1 {{send and recv must have the same rank}}
  nccl.all_to_all %a, %b on %c : memref<4xf32>, memref<4x1xf32>
  return
}

// -----

nccl.grid @g(shape = 4)
func.func @trailing(%a: memref<2x3xf32>, %b: memref<8x4xf32>) {
  %c = nccl.comm @g axes = [0] : !nccl.comm
  // expected-error @+1 {{send and recv differ in dim 1}}
  nccl.all_gather %a, %b on %c : memref<2x3xf32>, memref<8x4xf32>
  return
}

// -----

nccl.grid @g(shape = 4)
func.func @gather_size(%a: memref<2x3xf32>, %b: memref<6x3xf32>) {
  %c = nccl.comm @g axes = [0] : !nccl.comm
  // expected-error @+1 {{recv leading dim 6 must be 4 (the group size) times send's 2}}
  nccl.all_gather %a, %b on %c : memref<2x3xf32>, memref<6x3xf32>
  return
}

// -----

nccl.grid @g(shape = 4)
func.func @scatter_size(%a: memref<6x3xf32>, %b: memref<2x3xf32>) {
  %c = nccl.comm @g axes = [0] : !nccl.comm
  // expected-error @+1 {{send leading dim 6 must be 4 (the group size) times recv's 2}}
  nccl.reduce_scatter %a, %b on %c op = sum : memref<6x3xf32>, memref<2x3xf32>
  return
}

// -----

nccl.grid @g(shape = 4)
func.func @scalar_gather(%a: memref<f32>, %b: memref<f32>) {
  %c = nccl.comm @g axes = [0] : !nccl.comm
  // expected-error @+1 {{send must have a leading dimension}}
  nccl.all_gather %a, %b on %c : memref<f32>, memref<f32>
  return
}

// -----

nccl.grid @g(shape = 4)
func.func @a2a_divides(%a: memref<6xf32>, %b: memref<6xf32>) {
  %c = nccl.comm @g axes = [0] : !nccl.comm
  // expected-error @+1 {{leading dim 6 must divide by the group size 4}}
  nccl.all_to_all %a, %b on %c : memref<6xf32>, memref<6xf32>
  return
}

// -----

nccl.grid @g(shape = 4)
func.func @a2a_scalar(%a: memref<f32>, %b: memref<f32>) {
  %c = nccl.comm @g axes = [0] : !nccl.comm
  // expected-error @+1 {{send must have a leading dimension}}
  nccl.all_to_all %a, %b on %c : memref<f32>, memref<f32>
  return
}

// -----

nccl.grid @g(shape = 4)
func.func @root(%a: memref<4xf32>) {
  %c = nccl.comm @g axes = [0] : !nccl.comm
  // expected-error @+1 {{root 4 is not a rank of the group}}
  nccl.broadcast %a, %a on %c root = 4 : memref<4xf32>, memref<4xf32>
  return
}

// -----

nccl.grid @g(shape = 4)
func.func @two_roots(%a: memref<4xf32>, %r: index) {
  %c = nccl.comm @g axes = [0] : !nccl.comm
  // expected-error @+1 {{needs exactly one root: a constant or a value}}
  "nccl.broadcast"(%a, %a, %c, %r) <{root = 1 : i64, operandSegmentSizes = array<i32: 1, 1, 1, 1>}> : (memref<4xf32>, memref<4xf32>, !nccl.comm, index) -> ()
  return
}

// -----

nccl.grid @g(shape = 4)
func.func @send_dtype(%a: memref<4xi1>, %p: index) {
  %c = nccl.comm @g axes = [0] : !nccl.comm
  // expected-error @+1 {{buffer element type 'i1' has no NCCL data type}}
  nccl.send %a to %p on %c : memref<4xi1>
  return
}

// -----

nccl.grid @g(shape = 4)
func.func @recv_layout(%a: memref<4xf32, strided<[2]>>, %p: index) {
  %c = nccl.comm @g axes = [0] : !nccl.comm
  // expected-error @+1 {{buffer is not contiguous}}
  nccl.recv %a from %p on %c : memref<4xf32, strided<[2]>>
  return
}

// -----

nccl.grid @g(shape = 4)
func.func @group_body(%a: memref<4xf32>) {
  %c = nccl.comm @g axes = [0] : !nccl.comm
  nccl.group {
    // expected-error @+1 {{is not allowed in nccl.group; it holds only nccl.send, nccl.recv and index arithmetic}}
    nccl.all_reduce %a, %a on %c op = sum : memref<4xf32>, memref<4xf32>
  }
  return
}

// -----

// expected-error @+1 {{'nccl.grid' op shape must not be empty}}
"nccl.grid"() {sym_name = "g", shape = array<i64>} : () -> ()

// -----

// expected-error @+1 {{'nccl.grid' op axis 1 has size 0; sizes must be >= 1 or dynamic}}
nccl.grid @g(shape = 2x0)

// -----

// expected-error @+1 {{'nccl.grid' op devices need a static shape}}
nccl.grid @g(shape = 2x?) devices = [0, 1]

// -----

// The device list follows dtensor.mesh's rules (hp/Support/DeviceList.h).
// expected-error @+1 {{devices lists 3 ranks, but the grid has 4 devices}}
nccl.grid @g(shape = 2x2) devices = [0, 1, 2]

// -----

// expected-error @+1 {{devices must be non-negative ranks, got -1}}
nccl.grid @g(shape = 2) devices = [-1, 0]

// -----

// expected-error @+1 {{devices lists rank 1 more than once}}
nccl.grid @g(shape = 2x2) devices = [0, 1, 1, 3]

// -----

// expected-error @+1 {{devices must be a permutation of a contiguous rank range starting at 0, but rank 4 is out of it}}
nccl.grid @g(shape = 2x2) devices = [0, 1, 4, 3]

// -----

func.func @grid_outside_module() {
  // expected-error @+1 {{'nccl.grid' op expects parent op 'builtin.module'}}
  nccl.grid @g(shape = 2)
  return
}
