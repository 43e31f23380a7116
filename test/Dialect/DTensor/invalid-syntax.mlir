// RUN: hp-opt %s -split-input-file -verify-diagnostics

// Malformed syntax gives a located parse error, never a crash.

// expected-error @+1 {{expected a placement (shard<d>, strided_shard<d, f>, replicate or partial<op>), got 'shrd'}}
func.func @bad_keyword(%a: !dtensor.tensor<4xf32, @m, [shrd<0>]>) { return }

// -----

// expected-error @+1 {{expected a placement, got 1 : i64}}
func.func @not_placement(%a: !dtensor.tensor<4xf32, @m, [1 : i64]>) { return }

// -----

// expected-error @+2 {{expected ::hp::dtensor::ReduceOp to be one of: sum, avg, max, min, prod}}
// expected-error @+1 {{failed to parse DTensor_PartialAttr parameter 'reduceOp'}}
func.func @bad_reduction(%a: !dtensor.tensor<4xf32, @m, [partial<add>]>) { return }

// -----

// expected-error @+1 {{expected a flat mesh symbol like @mesh}}
func.func @nested_mesh_ref(%a: !dtensor.tensor<4xf32, @a::@b, [replicate]>) { return }

// -----

// expected-error @+1 {{expected ','}}
func.func @missing_mesh(%a: !dtensor.tensor<4xf32 [replicate]>) { return }

// -----

func.func @missing_on(%y: tensor<2xf32>) {
  // expected-error @+1 {{expected 'on'}}
  dtensor.local_region @m args(%y as "y") : (tensor<2xf32>) -> () {
  ^bb0(%k: tensor<2xf32>):
    dtensor.yield
  }
  return
}

// -----

func.func @missing_as(%y: tensor<2xf32>) {
  // expected-error @+1 {{expected 'as'}}
  dtensor.local_region on @m args(%y "y") : (tensor<2xf32>) -> () {
  ^bb0(%k: tensor<2xf32>):
    dtensor.yield
  }
  return
}

// -----

func.func @bad_in_entry(%y: tensor<2xf32>) {
  // expected-error @+1 {{expected '['}}
  dtensor.local_region on @m args(%y as "y") in_placements = {y = replicate} : (tensor<2xf32>) -> () {
  ^bb0(%k: tensor<2xf32>):
    dtensor.yield
  }
  return
}

// -----

func.func @bad_out_entry(%y: tensor<2xf32>) {
  // expected-error @+1 {{expected a placement (shard<d>, strided_shard<d, f>, replicate or partial<op>), got 'nothing'}}
  dtensor.local_region on @m args(%y as "y") out_placements = [nothing] : (tensor<2xf32>) -> () {
  ^bb0(%k: tensor<2xf32>):
    dtensor.yield
  }
  return
}

// -----

func.func @operand_types(%y: tensor<2xf32>) {
  // expected-error @+1 {{number of operands and types do not match: got 1 operands and 2 types}}
  dtensor.local_region on @m args(%y as "y") : (tensor<2xf32>, i64) -> () {
  ^bb0(%k: tensor<2xf32>):
    dtensor.yield
  }
  return
}

// -----

func.func @empty_body(%y: tensor<2xf32>) {
  // expected-error @+1 {{'dtensor.local_region' op expects a non-empty block}}
  dtensor.local_region on @m args(%y as "y") : (tensor<2xf32>) -> () {}
  return
}

// -----

// expected-error @+1 {{expected 'shape'}}
dtensor.mesh @m [2, 2]

// -----

// expected-error @+1 {{expected 'global'}}
func.func @sharding_syntax(%a: tensor<4xf32> {dtensor.sharding = #dtensor.sharding<@m, [replicate], [8]>}) { return }

// -----

dtensor.mesh @m shape = [2] names = ["ep"]
func.func @bad_reduction_kind(%a: tensor<4xf32>) {
  // expected-error @+2 {{expected ::hp::dtensor::ReduceOp to be one of: sum, avg, max, min, prod}}
  // expected-error @+1 {{failed to parse DTensor_ReduceOpAttr parameter 'value'}}
  %r = dtensor.all_reduce %a on @m axes = ["ep"] reduction = bitwise_or : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

dtensor.mesh @m shape = [2]
func.func @empty_key(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>) {
  // expected-error @+1 {{in_placements keys must not be empty}}
  dtensor.local_region on @m args(%x as "x") in_placements = {"" = none} : (!dtensor.tensor<8xf32, @m, [shard<0>]>) -> () {
  ^bb0(%l: tensor<4xf32>):
    dtensor.yield
  }
  return
}

// -----

dtensor.mesh @m shape = [2]
func.func @duplicate_key(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>) {
  // expected-error @+1 {{in_placements names 'x' more than once}}
  dtensor.local_region on @m args(%x as "x") in_placements = {x = [shard<0>], x = none} : (!dtensor.tensor<8xf32, @m, [shard<0>]>) -> () {
  ^bb0(%l: tensor<4xf32>):
    dtensor.yield
  }
  return
}

// -----

dtensor.mesh @m shape = [2, 2]
// expected-error @+1 {{expected ','}}
func.func private @f(!dtensor.tensor<8xf32, @m, [strided_shard<0>, shard<0>]>)

// -----

dtensor.mesh @m shape = [2]
func.func @out_mixed(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>) {
  // expected-error @+1 {{out_placements is either one placement list (a single output) or one placement list or none per output, not a mix}}
  %r:2 = dtensor.local_region on @m args(%x as "x") out_placements = [shard<0>, none]
      : (!dtensor.tensor<8xf32, @m, [shard<0>]>) -> (!dtensor.tensor<8xf32, @m, [shard<0>]>, i64) {
  ^bb0(%l: tensor<4xf32>):
    %c = arith.constant 0 : i64
    dtensor.yield %l, %c : tensor<4xf32>, i64
  }
  return
}
