// RUN: hp-opt %s -dtensor-add-driver -split-input-file -verify-diagnostics
// RUN: not hp-opt %s -dtensor-add-driver="repeat=0" -split-input-file 2>&1 | FileCheck %s --check-prefix=REPEAT
// REPEAT: dtensor-add-driver: repeat must be at least 1, got 0

// expected-error @below {{dtensor-add-driver: the module has no function @forward with a body to drive (entry=forward)}}
module {
  func.func @other() {
    return
  }
}

// -----

// expected-error @below {{dtensor-add-driver: the module has no function @forward with a body to drive (entry=forward)}}
module {
  func.func private @forward(tensor<4xf32>)
}

// -----

func.func @forward(%x: tensor<4xf32>) {
  return
}
// expected-error @below {{dtensor-add-driver: the module already has a @main; the driver would be a second one}}
func.func @main() {
  return
}

// -----

// expected-error @below {{argument 0 of @forward has type 'i32': the driver reads and writes tensors only}}
func.func @forward(%x: i32) {
  return
}

// -----

// expected-error @below {{argument 0 of @forward has type 'tensor<?xf32>': the driver needs a static shape}}
func.func @forward(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}

// -----

// expected-error @below {{argument 0 of @forward has element type 'i1', which is not a whole number of bytes in a file}}
func.func @forward(%x: tensor<4xi1>) {
  return
}

// -----

// expected-error @below {{argument 0 of @forward ('tensor<4611686018427387904x4xf32>') needs more than 2^63 - 1 bytes}}
func.func @forward(%x: tensor<4611686018427387904x4xf32>) {
  return
}

// -----

func.func @forward(%x: tensor<4xf32>) {
  return
}
// expected-error @below {{@hp_write_tensor has type '(i64) -> ()', but the runtime's @hp_write_tensor is '(i64, i64, i64) -> ()'}}
func.func private @hp_write_tensor(i64)

// -----

func.func @forward(%x: tensor<4xf32>) {
  return
}
// expected-error @below {{@hp_read_tensor is the runtime's function, which the driver calls: rename this symbol}}
memref.global "private" @hp_read_tensor : memref<1xf32>

// -----

// A split argument is read by blocks, through the runtime's block reader.
dtensor.mesh @tp shape = [2]
func.func @forward(%x: !dtensor.tensor<4xf32, @tp, [shard<0>]>) {
  return
}
// expected-error @below {{@hp_read_tensor_block has type '(i64, i64, i64) -> ()', but the runtime's @hp_read_tensor_block is '(i64, i64, i64, i64, i64) -> ()'}}
func.func private @hp_read_tensor_block(i64, i64, i64)
