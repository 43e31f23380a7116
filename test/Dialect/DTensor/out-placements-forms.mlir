// RUN: hp-opt %s | FileCheck %s
// RUN: hp-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: hp-opt %s --mlir-print-op-generic | hp-opt | FileCheck %s

// out_placements holds one list or `none` per output. The flat form is
// syntax for a single output's list: stored per output, printed flat.

dtensor.mesh @m shape = [2, 2]

// CHECK-LABEL: func.func @flat
// CHECK: out_placements = [shard<0>, replicate] :
// GENERIC-LABEL: sym_name = "flat"
// GENERIC: out_placements = {{\[\[}}#dtensor.shard<0>, #dtensor.replicate]]
func.func @flat(%x: !dtensor.tensor<8xf32, @m, [shard<0>, replicate]>) -> !dtensor.tensor<8xf32, @m, [shard<0>, replicate]> {
  %r = dtensor.local_region on @m args(%x as "x") out_placements = [shard<0>, replicate]
      : (!dtensor.tensor<8xf32, @m, [shard<0>, replicate]>) -> !dtensor.tensor<8xf32, @m, [shard<0>, replicate]> {
  ^bb0(%l: tensor<4xf32>):
    dtensor.yield %l : tensor<4xf32>
  }
  return %r : !dtensor.tensor<8xf32, @m, [shard<0>, replicate]>
}

// The per-output form of one output prints flat.
// CHECK-LABEL: func.func @one_list
// CHECK: out_placements = [shard<0>, replicate] :
// GENERIC-LABEL: sym_name = "one_list"
// GENERIC: out_placements = {{\[\[}}#dtensor.shard<0>, #dtensor.replicate]]
func.func @one_list(%x: !dtensor.tensor<8xf32, @m, [shard<0>, replicate]>) -> !dtensor.tensor<8xf32, @m, [shard<0>, replicate]> {
  %r = dtensor.local_region on @m args(%x as "x") out_placements = [[shard<0>, replicate]]
      : (!dtensor.tensor<8xf32, @m, [shard<0>, replicate]>) -> !dtensor.tensor<8xf32, @m, [shard<0>, replicate]> {
  ^bb0(%l: tensor<4xf32>):
    dtensor.yield %l : tensor<4xf32>
  }
  return %r : !dtensor.tensor<8xf32, @m, [shard<0>, replicate]>
}

// One output with `none` has no flat form.
// CHECK-LABEL: func.func @one_none
// CHECK: out_placements = [none] :
// GENERIC-LABEL: sym_name = "one_none"
// GENERIC: out_placements = [unit]
func.func @one_none(%x: !dtensor.tensor<8xf32, @m, [shard<0>, replicate]>) -> i64 {
  %r = dtensor.local_region on @m args(%x as "x") out_placements = [none]
      : (!dtensor.tensor<8xf32, @m, [shard<0>, replicate]>) -> i64 {
  ^bb0(%l: tensor<4xf32>):
    %c = arith.constant 0 : i64
    dtensor.yield %c : i64
  }
  return %r : i64
}

// local_call likewise.
func.func private @f(tensor<4xf32> {dtensor.arg_name = "x"}) -> tensor<4xf32>
// CHECK-LABEL: func.func @call
// CHECK: dtensor.local_call @f(%{{.*}}) on @m out_placements = [shard<0>, replicate] :
// GENERIC-LABEL: sym_name = "call"
// GENERIC: out_placements = {{\[\[}}#dtensor.shard<0>, #dtensor.replicate]]
func.func @call(%x: !dtensor.tensor<8xf32, @m, [shard<0>, replicate]>) -> !dtensor.tensor<8xf32, @m, [shard<0>, replicate]> {
  %r = dtensor.local_call @f(%x) on @m out_placements = [[shard<0>, replicate]]
      : (!dtensor.tensor<8xf32, @m, [shard<0>, replicate]>) -> !dtensor.tensor<8xf32, @m, [shard<0>, replicate]>
  return %r : !dtensor.tensor<8xf32, @m, [shard<0>, replicate]>
}
