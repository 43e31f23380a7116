// RUN: hp-opt %s -split-input-file -dtensor-check-contracts -verify-diagnostics | FileCheck %s

// Claims the body keeps pass unchanged.

dtensor.mesh @m shape = [2, 4] names = ["dp", "tp"]

// Elementwise on shards, declared with the input's layout.
// CHECK-LABEL: func @elementwise_on_shards
func.func @elementwise_on_shards(%x: !dtensor.tensor<8x16xf32, @m, [replicate, shard<1>]>) -> !dtensor.tensor<8x16xf32, @m, [replicate, shard<1>]> {
  %r = dtensor.local_region on @m args(%x as "x") out_placements = [replicate, shard<1>]
      : (!dtensor.tensor<8x16xf32, @m, [replicate, shard<1>]>) -> !dtensor.tensor<8x16xf32, @m, [replicate, shard<1>]> {
  ^bb0(%l: tensor<8x4xf32>):
    %s = arith.addf %l, %l : tensor<8x4xf32>
    dtensor.yield %s : tensor<8x4xf32>
  }
  return %r : !dtensor.tensor<8x16xf32, @m, [replicate, shard<1>]>
}

// A contraction over the split dim, declared partial<sum>.
// CHECK-LABEL: func @partial_output
func.func @partial_output(%h: !dtensor.tensor<8x16xf32, @m, [replicate, shard<1>]>, %w: !dtensor.tensor<16x4xf32, @m, [replicate, shard<0>]>) -> !dtensor.tensor<8x4xf32, @m, [replicate, partial<sum>]> {
  %r = dtensor.local_region on @m args(%h as "h", %w as "w") out_placements = [replicate, partial<sum>]
      : (!dtensor.tensor<8x16xf32, @m, [replicate, shard<1>]>, !dtensor.tensor<16x4xf32, @m, [replicate, shard<0>]>) -> !dtensor.tensor<8x4xf32, @m, [replicate, partial<sum>]> {
  ^bb0(%hl: tensor<8x4xf32>, %wl: tensor<4x4xf32>):
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<8x4xf32>
    %acc = linalg.fill ins(%z : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
    %mm = linalg.matmul ins(%hl, %wl : tensor<8x4xf32>, tensor<4x4xf32>) outs(%acc : tensor<8x4xf32>) -> tensor<8x4xf32>
    dtensor.yield %mm : tensor<8x4xf32>
  }
  return %r : !dtensor.tensor<8x4xf32, @m, [replicate, partial<sum>]>
}

// The same contraction all-reduced in the body is replicated.
// CHECK-LABEL: func @all_reduce_inside
func.func @all_reduce_inside(%h: !dtensor.tensor<8x16xf32, @m, [replicate, shard<1>]>, %w: !dtensor.tensor<16x4xf32, @m, [replicate, shard<0>]>) -> !dtensor.tensor<8x4xf32, @m, [replicate, replicate]> {
  %r = dtensor.local_region on @m args(%h as "h", %w as "w") out_placements = [replicate, replicate]
      : (!dtensor.tensor<8x16xf32, @m, [replicate, shard<1>]>, !dtensor.tensor<16x4xf32, @m, [replicate, shard<0>]>) -> !dtensor.tensor<8x4xf32, @m, [replicate, replicate]> {
  ^bb0(%hl: tensor<8x4xf32>, %wl: tensor<4x4xf32>):
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<8x4xf32>
    %acc = linalg.fill ins(%z : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
    %mm = linalg.matmul ins(%hl, %wl : tensor<8x4xf32>, tensor<4x4xf32>) outs(%acc : tensor<8x4xf32>) -> tensor<8x4xf32>
    %s = dtensor.all_reduce %mm on @m axes = ["tp"] reduction = sum : tensor<8x4xf32> -> tensor<8x4xf32>
    dtensor.yield %s : tensor<8x4xf32>
  }
  return %r : !dtensor.tensor<8x4xf32, @m, [replicate, replicate]>
}

// A shard gathered in the body is replicated; a declared input layout
// (redistribute_inputs) is what the body sees.
// CHECK-LABEL: func @gathered
func.func @gathered(%x: !dtensor.tensor<8x16xf32, @m, [replicate, shard<1>]>, %y: !dtensor.tensor<8x16xf32, @m, [shard<0>, replicate]>) -> (!dtensor.tensor<8x16xf32, @m, [replicate, replicate]>, !dtensor.tensor<8x16xf32, @m, [replicate, replicate]>) {
  %r, %q = dtensor.local_region on @m args(%x as "x", %y as "y") in_placements = {y = [replicate, replicate]}
      out_placements = [[replicate, replicate], [replicate, replicate]] redistribute_inputs
      : (!dtensor.tensor<8x16xf32, @m, [replicate, shard<1>]>, !dtensor.tensor<8x16xf32, @m, [shard<0>, replicate]>) -> (!dtensor.tensor<8x16xf32, @m, [replicate, replicate]>, !dtensor.tensor<8x16xf32, @m, [replicate, replicate]>) {
  ^bb0(%l: tensor<8x4xf32>, %yl: tensor<8x16xf32>):
    %g = dtensor.all_gather %l on @m axes = ["tp"] gather_axis = 1 : tensor<8x4xf32> -> tensor<8x16xf32>
    %s = arith.addf %g, %yl : tensor<8x16xf32>
    dtensor.yield %s, %yl : tensor<8x16xf32>, tensor<8x16xf32>
  }
  return %r, %q : !dtensor.tensor<8x16xf32, @m, [replicate, replicate]>, !dtensor.tensor<8x16xf32, @m, [replicate, replicate]>
}

// An axis_index on another axis than the declared replicate one, and
// control flow on invariant values.
// CHECK-LABEL: func @other_axis
func.func @other_axis(%x: !dtensor.tensor<8xf32, @m, [replicate, replicate]>) -> !dtensor.tensor<16xf32, @m, [shard<0>, replicate]> {
  %r = dtensor.local_region on @m args(%x as "x") out_placements = [shard<0>, replicate]
      : (!dtensor.tensor<8xf32, @m, [replicate, replicate]>) -> !dtensor.tensor<16xf32, @m, [shard<0>, replicate]> {
  ^bb0(%l: tensor<8xf32>):
    %i = dtensor.axis_index @m "dp" : index
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %i, %c0 : index
    %s = scf.if %first -> tensor<8xf32> {
      scf.yield %l : tensor<8xf32>
    } else {
      %d = arith.addf %l, %l : tensor<8xf32>
      scf.yield %d : tensor<8xf32>
    }
    dtensor.yield %s : tensor<8xf32>
  }
  return %r : !dtensor.tensor<16xf32, @m, [shard<0>, replicate]>
}

// unchecked turns the check off.
// CHECK-LABEL: func @opt_out
// CHECK: out_placements = [replicate, replicate] unchecked
func.func @opt_out(%x: !dtensor.tensor<8xf32, @m, [replicate, shard<0>]>) -> !dtensor.tensor<8xf32, @m, [replicate, replicate]> {
  %r = dtensor.local_region on @m args(%x as "x") out_placements = [replicate, replicate] unchecked
      : (!dtensor.tensor<8xf32, @m, [replicate, shard<0>]>) -> !dtensor.tensor<8xf32, @m, [replicate, replicate]> {
  ^bb0(%l: tensor<2xf32>):
    %e = tensor.empty() : tensor<8xf32>
    %c = tensor.insert_slice %l into %e[0] [2] [1] : tensor<2xf32> into tensor<8xf32>
    dtensor.yield %c : tensor<8xf32>
  }
  return %r : !dtensor.tensor<8xf32, @m, [replicate, replicate]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// The tp_mlp down projection declared replicate instead of partial<sum>.
func.func @matmul_declared_replicate(%h: !dtensor.tensor<8x32xf32, @tp, [shard<1>]>, %w: !dtensor.tensor<32x16xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8x16xf32, @tp, [replicate]> {
  // expected-error @+1 {{out_placements declare result #0 replicate over mesh axis 'tp', but the yielded value varies over 'tp': it depends on argument 'hidden' ([shard<1>]); a contraction over a dim split along 'tp' leaves per-rank partial sums: declare partial<sum>}}
  %y = dtensor.local_region on @tp args(%h as "hidden", %w as "weight") out_placements = [replicate]
      : (!dtensor.tensor<8x32xf32, @tp, [shard<1>]>, !dtensor.tensor<32x16xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8x16xf32, @tp, [replicate]> {
  ^bb0(%hl: tensor<8x8xf32>, %wl: tensor<8x16xf32>):
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<8x16xf32>
    %acc = linalg.fill ins(%z : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
    %mm = linalg.matmul ins(%hl, %wl : tensor<8x8xf32>, tensor<8x16xf32>) outs(%acc : tensor<8x16xf32>) -> tensor<8x16xf32>
    dtensor.yield %mm : tensor<8x16xf32>
  }
  return %y : !dtensor.tensor<8x16xf32, @tp, [replicate]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// A value computed from the rank's coordinate.
func.func @axis_index_declared_replicate(%x: !dtensor.tensor<4xi64, @tp, [replicate]>) -> !dtensor.tensor<4xi64, @tp, [replicate]> {
  // expected-error @+1 {{out_placements declare result #0 replicate over mesh axis 'tp', but the yielded value varies over 'tp': it depends on dtensor.axis_index over 'tp'; declare the placement it has, all_reduce or all_gather it over 'tp' in the body, or mark the region `unchecked`}}
  %r = dtensor.local_region on @tp args(%x as "x") out_placements = [replicate]
      : (!dtensor.tensor<4xi64, @tp, [replicate]>) -> !dtensor.tensor<4xi64, @tp, [replicate]> {
  ^bb0(%l: tensor<4xi64>):
    // expected-note @+1 {{the variation comes from here}}
    %i = dtensor.axis_index @tp "tp" : index
    %v = arith.index_cast %i : index to i64
    %t = tensor.splat %v : tensor<4xi64>
    %s = arith.addi %l, %t : tensor<4xi64>
    dtensor.yield %s : tensor<4xi64>
  }
  return %r : !dtensor.tensor<4xi64, @tp, [replicate]>
}

// -----

dtensor.mesh @cp shape = [4] names = ["cp"]

// A ring shift leaves per-rank data.
func.func @shift_declared_replicate(%x: !dtensor.tensor<8xf32, @cp, [replicate]>) -> !dtensor.tensor<8xf32, @cp, [replicate]> {
  // expected-error @+1 {{it depends on dtensor.shift over 'cp'}}
  %r = dtensor.local_region on @cp args(%x as "x") out_placements = [replicate]
      : (!dtensor.tensor<8xf32, @cp, [replicate]>) -> !dtensor.tensor<8xf32, @cp, [replicate]> {
  ^bb0(%l: tensor<8xf32>):
    // expected-note @+1 {{the variation comes from here}}
    %n = dtensor.shift %l on @cp axes = ["cp"] offset = 1 rotate : tensor<8xf32> -> tensor<8xf32>
    dtensor.yield %n : tensor<8xf32>
  }
  return %r : !dtensor.tensor<8xf32, @cp, [replicate]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// A branch on the coordinate selects what is yielded: the result varies even
// though both yielded values are replicated.
func.func @if_on_coordinate(%x: !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [replicate]> {
  // expected-error @+1 {{it depends on dtensor.axis_index over 'tp'}}
  %r = dtensor.local_region on @tp args(%x as "x") out_placements = [replicate]
      : (!dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [replicate]> {
  ^bb0(%l: tensor<8xf32>):
    // expected-note @+1 {{the variation comes from here}}
    %i = dtensor.axis_index @tp "tp" : index
    %c0 = arith.constant 0 : index
    %first = arith.cmpi eq, %i, %c0 : index
    %s = scf.if %first -> tensor<8xf32> {
      scf.yield %l : tensor<8xf32>
    } else {
      %d = arith.addf %l, %l : tensor<8xf32>
      scf.yield %d : tensor<8xf32>
    }
    dtensor.yield %s : tensor<8xf32>
  }
  return %r : !dtensor.tensor<8xf32, @tp, [replicate]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// A loop carries a shard's values into the yielded accumulator.
func.func @loop_carry(%x: !dtensor.tensor<4x8xf32, @tp, [shard<0>]>, %acc0: !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [replicate]> {
  // expected-error @+1 {{it depends on argument 'x' ([shard<0>])}}
  %r = dtensor.local_region on @tp args(%x as "x", %acc0 as "acc") out_placements = [replicate]
      : (!dtensor.tensor<4x8xf32, @tp, [shard<0>]>, !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [replicate]> {
  ^bb0(%l: tensor<1x8xf32>, %a: tensor<8xf32>):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %s = scf.for %k = %c0 to %c3 step %c1 iter_args(%it = %a) -> tensor<8xf32> {
      %row = tensor.extract_slice %l[0, 0] [1, 8] [1, 1] : tensor<1x8xf32> to tensor<8xf32>
      %n = arith.addf %it, %row : tensor<8xf32>
      scf.yield %n : tensor<8xf32>
    }
    dtensor.yield %s : tensor<8xf32>
  }
  return %r : !dtensor.tensor<8xf32, @tp, [replicate]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

func.func private @scale(%t: tensor<2xf32>) -> tensor<2xf32>

// A call propagates the union of its operands.
func.func @call(%x: !dtensor.tensor<8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<2xf32, @tp, [replicate]> {
  // expected-error @+1 {{it depends on argument 'x' ([shard<0>])}}
  %r = dtensor.local_region on @tp args(%x as "x") out_placements = [replicate]
      : (!dtensor.tensor<8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<2xf32, @tp, [replicate]> {
  ^bb0(%l: tensor<2xf32>):
    %s = func.call @scale(%l) : (tensor<2xf32>) -> tensor<2xf32>
    dtensor.yield %s : tensor<2xf32>
  }
  return %r : !dtensor.tensor<2xf32, @tp, [replicate]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// Through a local_call the callee's body is checked with the call's layouts.
func.func @rows_sum(%x: tensor<2x8xf32> {dtensor.arg_name = "x"}) -> tensor<8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.reduce ins(%x : tensor<2x8xf32>) outs(%acc : tensor<8xf32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %t = arith.addf %a, %b : f32
      linalg.yield %t : f32
    }
  return %s : tensor<8xf32>
}

func.func @call_declared_replicate(%x: !dtensor.tensor<8x8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8xf32, @tp, [replicate]> {
  // expected-error @+1 {{out_placements declare result #0 replicate over mesh axis 'tp', but the returned value varies over 'tp': it depends on argument 'x' ([shard<0>]); a contraction over a dim split along 'tp' leaves per-rank partial sums: declare partial<sum>}}
  %y = dtensor.local_call @rows_sum(%x) on @tp out_placements = [replicate]
      : (!dtensor.tensor<8x8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8xf32, @tp, [replicate]>
  return %y : !dtensor.tensor<8xf32, @tp, [replicate]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

func.func @rows_sum(%x: tensor<2x8xf32> {dtensor.arg_name = "x"}) -> tensor<8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.reduce ins(%x : tensor<2x8xf32>) outs(%acc : tensor<8xf32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %t = arith.addf %a, %b : f32
      linalg.yield %t : f32
    }
  return %s : tensor<8xf32>
}

// CHECK-LABEL: func @call_partial
func.func @call_partial(%x: !dtensor.tensor<8x8xf32, @tp, [shard<0>]>) -> (!dtensor.tensor<8xf32, @tp, [partial<sum>]>, !dtensor.tensor<8xf32, @tp, [replicate]>) {
  %y = dtensor.local_call @rows_sum(%x) on @tp out_placements = [partial<sum>]
      : (!dtensor.tensor<8x8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]>
  %u = dtensor.local_call @rows_sum(%x) on @tp out_placements = [replicate] unchecked
      : (!dtensor.tensor<8x8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8xf32, @tp, [replicate]>
  return %y, %u : !dtensor.tensor<8xf32, @tp, [partial<sum>]>, !dtensor.tensor<8xf32, @tp, [replicate]>
}

// -----

// A value the same on every rank of an axis, declared partial<sum> (or prod)
// there, would be reduced once per rank.

dtensor.mesh @m shape = [2, 4] names = ["dp", "tp"]

func.func @copies_declared_partial_sum(%b: !dtensor.tensor<16xf32, @m, [replicate, replicate]>) -> !dtensor.tensor<16xf32, @m, [partial<sum>, replicate]> {
  // expected-error @+1 {{out_placements declare result #0 partial<sum> over mesh axis 'dp', but the yielded value is the same on every rank of 'dp': reducing it would add 2 copies; declare replicate over 'dp' (or, if the body already scaled it for the reduction, mark the region `unchecked`)}}
  %r = dtensor.local_region on @m args(%b as "bias_grad") out_placements = [partial<sum>, replicate]
      : (!dtensor.tensor<16xf32, @m, [replicate, replicate]>) -> !dtensor.tensor<16xf32, @m, [partial<sum>, replicate]> {
  ^bb0(%l: tensor<16xf32>):
    %s = arith.addf %l, %l : tensor<16xf32>
    dtensor.yield %s : tensor<16xf32>
  }
  return %r : !dtensor.tensor<16xf32, @m, [partial<sum>, replicate]>
}

// -----

dtensor.mesh @m shape = [2, 4] names = ["dp", "tp"]

// An all_reduce made the value the same on every rank of 'tp'.
func.func @reduced_then_declared_partial_prod(%x: !dtensor.tensor<8x16xf32, @m, [replicate, shard<1>]>) -> !dtensor.tensor<8x4xf32, @m, [replicate, partial<prod>]> {
  // expected-error @+1 {{out_placements declare result #0 partial<prod> over mesh axis 'tp', but the yielded value is the same on every rank of 'tp': reducing it would multiply 4 copies}}
  %r = dtensor.local_region on @m args(%x as "x") out_placements = [replicate, partial<prod>]
      : (!dtensor.tensor<8x16xf32, @m, [replicate, shard<1>]>) -> !dtensor.tensor<8x4xf32, @m, [replicate, partial<prod>]> {
  ^bb0(%l: tensor<8x4xf32>):
    %s = dtensor.all_reduce %l on @m axes = ["tp"] reduction = prod : tensor<8x4xf32> -> tensor<8x4xf32>
    dtensor.yield %s : tensor<8x4xf32>
  }
  return %r : !dtensor.tensor<8x4xf32, @m, [replicate, partial<prod>]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

func.func @scale(%x: tensor<8xf32> {dtensor.arg_name = "x"}) -> tensor<8xf32> {
  %s = arith.addf %x, %x : tensor<8xf32>
  return %s : tensor<8xf32>
}

func.func @call_copies_partial(%x: !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]> {
  // expected-error @+1 {{out_placements declare result #0 partial<sum> over mesh axis 'tp', but the returned value is the same on every rank of 'tp': reducing it would add 4 copies; declare replicate over 'tp' (or, if the body already scaled it for the reduction, mark the call `unchecked`)}}
  %y = dtensor.local_call @scale(%x) on @tp out_placements = [partial<sum>]
      : (!dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]>
  return %y : !dtensor.tensor<8xf32, @tp, [partial<sum>]>
}

// -----

// Idempotent reductions of copies are right, a size-1 axis reduces one copy,
// and `unchecked` takes a body that scaled its copies (x / n summed n times).

dtensor.mesh @m shape = [1, 4] names = ["one", "tp"]

// CHECK-LABEL: func @copies_idempotent_or_unchecked
func.func @copies_idempotent_or_unchecked(%b: !dtensor.tensor<16xf32, @m, [replicate, replicate]>) -> (!dtensor.tensor<16xf32, @m, [partial<sum>, partial<avg>]>, !dtensor.tensor<16xf32, @m, [replicate, partial<max>]>, !dtensor.tensor<16xf32, @m, [replicate, partial<sum>]>) {
  %r:2 = dtensor.local_region on @m args(%b as "b") out_placements = [[partial<sum>, partial<avg>], [replicate, partial<max>]]
      : (!dtensor.tensor<16xf32, @m, [replicate, replicate]>) -> (!dtensor.tensor<16xf32, @m, [partial<sum>, partial<avg>]>, !dtensor.tensor<16xf32, @m, [replicate, partial<max>]>) {
  ^bb0(%l: tensor<16xf32>):
    dtensor.yield %l, %l : tensor<16xf32>, tensor<16xf32>
  }
  %s = dtensor.local_region on @m args(%b as "b") out_placements = [replicate, partial<sum>] unchecked
      : (!dtensor.tensor<16xf32, @m, [replicate, replicate]>) -> !dtensor.tensor<16xf32, @m, [replicate, partial<sum>]> {
  ^bb0(%l: tensor<16xf32>):
    %q = arith.constant dense<0.25> : tensor<16xf32>
    %t = arith.mulf %l, %q : tensor<16xf32>
    dtensor.yield %t : tensor<16xf32>
  }
  return %r#0, %r#1, %s : !dtensor.tensor<16xf32, @m, [partial<sum>, partial<avg>]>, !dtensor.tensor<16xf32, @m, [replicate, partial<max>]>, !dtensor.tensor<16xf32, @m, [replicate, partial<sum>]>
}

// -----

// In a global_region the layouts are settled by dtensor-propagate, which
// hp-partition runs first; the check runs on what it produces. Here the
// operand is a global value that propagation lays out as shard<0>, so its
// block varies over 'tp' and partial<sum> is right.
dtensor.mesh @tp shape = [4] names = ["tp"]

// CHECK-LABEL: func @global_view_is_checked_after_propagation
func.func @global_view_is_checked_after_propagation(%x: !dtensor.tensor<8xf32, @tp, [shard<0>]>) {
  dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8xf32, @tp, [shard<0>]>) -> () {
  ^bb0(%g: tensor<8xf32>):
    %p = dtensor.local_region on @tp args(%g as "g") in_placements = {g = [shard<0>]} out_placements = [partial<sum>]
        : (tensor<8xf32>) -> tensor<2xf32> {
    ^bb0(%l: tensor<2xf32>):
      dtensor.yield %l : tensor<2xf32>
    }
    dtensor.yield
  }
  return
}
