// RUN: hp-opt %s -split-input-file -convert-nccl-to-llvm -verify-diagnostics

// The calls and their strings are emitted into a function; an nccl op at
// module level gets an error, not a crash.
nccl.grid @g(shape = 2)
// expected-error @+1 {{'nccl.comm' op must be inside a function to be lowered to NCCL calls}}
%c = nccl.comm @g axes = [0] : !nccl.comm

// -----

// A buffer whose layout is not provably contiguous is refused.
nccl.grid @g(shape = 2)
func.func @unproven(%a: memref<4xf32, strided<[?], offset: ?>>, %b: memref<4xf32>) {
  %c = nccl.comm @g axes = [0] : !nccl.comm
  // expected-error @+1 {{'nccl.all_reduce' op buffer 'memref<4xf32, strided<[?], offset: ?>>' is not provably contiguous; run nccl-contiguous-buffers first}}
  nccl.all_reduce %a, %b on %c op = sum : memref<4xf32, strided<[?], offset: ?>>, memref<4xf32>
  return
}
