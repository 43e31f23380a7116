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
