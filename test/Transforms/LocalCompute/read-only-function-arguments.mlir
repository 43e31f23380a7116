// RUN: hp-opt %s --read-only-function-arguments | FileCheck %s
// RUN: hp-opt %s --read-only-function-arguments --one-shot-bufferize=bufferize-function-boundaries | FileCheck %s --check-prefix=BUF

// Tensor arguments of functions with a body become read-only; an argument
// that says bufferization.writable keeps it; declarations and non-tensor
// arguments are left as they are.
// CHECK-LABEL: func.func @exp(%arg0: tensor<8xf32> {bufferization.writable = false}) -> tensor<8xf32>
// CHECK-LABEL: func.func @main(%arg0: tensor<8xf32> {bufferization.writable = false}, %arg1: tensor<8xf32> {bufferization.writable = true}, %arg2: index)
// CHECK: func.func private @external(tensor<8xf32>)

// Bufferized, @exp writes into a buffer of its own (one copy of its input,
// since the op reads and writes one operand) and @main passes its buffer to
// both calls without copying it.
// BUF-LABEL: func.func @exp(
// BUF: %[[A:.*]] = memref.alloc
// BUF: memref.copy %arg0, %[[A]]
// BUF: linalg.generic {{.*}} outs(%[[A]]
// BUF-LABEL: func.func @main
// BUF-NOT: memref.copy
// BUF: call @exp(%arg0)
// BUF-NOT: memref.copy
// BUF: call @exp(%arg0)
#id = affine_map<(d0) -> (d0)>
func.func @exp(%a: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]} outs(%a : tensor<8xf32>) {
  ^bb0(%x: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
func.func @main(%x: tensor<8xf32>, %y: tensor<8xf32> {bufferization.writable = true}, %n: index) -> (tensor<8xf32>, tensor<8xf32>) {
  %a = call @exp(%x) : (tensor<8xf32>) -> tensor<8xf32>
  %b = call @exp(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %a, %b : tensor<8xf32>, tensor<8xf32>
}
func.func private @external(tensor<8xf32>)
