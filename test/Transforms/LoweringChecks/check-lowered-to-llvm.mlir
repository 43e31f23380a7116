// RUN: hp-opt %s -split-input-file -check-lowered-to-llvm -verify-diagnostics | FileCheck %s

// A module of LLVM ops passes unchanged.
// CHECK-LABEL: llvm.func @ok
// CHECK: llvm.return
llvm.func @ok(%a: i32) -> i32 {
  llvm.return %a : i32
}

// -----

// An op no lowering took is an error naming it; its body is not reported
// again.
// expected-error @+1 {{'func.func' has no lowering to LLVM in this pipeline}}
func.func @left(%a: i32) -> i32 {
  %b = arith.addi %a, %a : i32
  return %b : i32
}

// -----

llvm.func @inner(%a: f32) -> f32 {
  // expected-error @+1 {{'arith.addf' has no lowering to LLVM in this pipeline}}
  %b = arith.addf %a, %a : f32
  llvm.return %b : f32
}

// -----

// A cast a conversion left is a symptom: with the op it could not convert
// beside it, only that op is reported.
llvm.func @symptom(%a: !llvm.struct<(f32, f32)>) -> f32 {
  %c = builtin.unrealized_conversion_cast %a : !llvm.struct<(f32, f32)> to complex<f32>
  // expected-error @+1 {{'complex.abs' has no lowering to LLVM in this pipeline}}
  %r = complex.abs %c : complex<f32>
  llvm.return %r : f32
}

// -----

llvm.func @only_cast(%a: f32) -> i32 {
  // expected-error @+1 {{'builtin.unrealized_conversion_cast' has no lowering to LLVM in this pipeline}}
  %c = builtin.unrealized_conversion_cast %a : f32 to i32
  llvm.return %c : i32
}
