// Partial sums pass only through ops linear in IEEE arithmetic
// (docs/Propagation.md, "the IEEE conditions"): one case per rule, and per
// way a rule is refused. A value
// arriving as partial<sum> and leaving as partial<sum> either passes through
// (nothing moves) or is reduced first (an all_reduce, then the op on every
// rank, then the free local step back to a partial).
// RUN: hp-opt %s -dtensor-propagate=print-strategies --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s
// Replacing a passing case's CHECK by a refusal (or the other way) fails:
// every refused case reduces its partial operand first (reduce_scatter).

dtensor.mesh @tp shape = [4] names = ["tp"]

func.func @mul_finite_const(%x: !dtensor.tensor<8xf32, @tp, [partial<sum>]>, %w: !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]> {
  %y = dtensor.global_region on @tp args(%x, %w) : (!dtensor.tensor<8xf32, @tp, [partial<sum>]>, !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]> {
  ^bb0(%g: tensor<8xf32>, %gw: tensor<8xf32>):
    %c = arith.constant dense<[-0.5, 1.0, -1.0, 0.0, 0.25, -0.0, 0.125, 1.0]> : tensor<8xf32>
    // CHECK: :[[@LINE+1]]:10: remark: strategy {{.*}}; arith.mulf, partial sums pass through on tp
    %r = arith.mulf %g, %c : tensor<8xf32>
    dtensor.yield %r : tensor<8xf32>
  }
  return %y : !dtensor.tensor<8xf32, @tp, [partial<sum>]>
}

func.func @mul_inf_const(%x: !dtensor.tensor<8xf32, @tp, [partial<sum>]>, %w: !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]> {
  %y = dtensor.global_region on @tp args(%x, %w) : (!dtensor.tensor<8xf32, @tp, [partial<sum>]>, !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]> {
  ^bb0(%g: tensor<8xf32>, %gw: tensor<8xf32>):
    %c = arith.constant dense<0x7F800000> : tensor<8xf32>
    // CHECK: :[[@LINE+2]]:10: remark: strategy {{.*}}; arith.mulf, loop 0 on tp
    // CHECK: remark: redistribute 'tensor<8xf32>' [P(sum)] -> [S(0)] for operand #{{[0-9]}} of 'arith.mulf': {{.*}}reduce_scatter
    %r = arith.mulf %c, %g : tensor<8xf32>
    dtensor.yield %r : tensor<8xf32>
  }
  return %y : !dtensor.tensor<8xf32, @tp, [partial<sum>]>
}

func.func @mul_large_const(%x: !dtensor.tensor<8xf32, @tp, [partial<sum>]>, %w: !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]> {
  %y = dtensor.global_region on @tp args(%x, %w) : (!dtensor.tensor<8xf32, @tp, [partial<sum>]>, !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]> {
  ^bb0(%g: tensor<8xf32>, %gw: tensor<8xf32>):
    %c = arith.constant dense<2.0> : tensor<8xf32>
    // CHECK: :[[@LINE+2]]:10: remark: strategy {{.*}}; arith.mulf, loop 0 on tp
    // CHECK: remark: redistribute 'tensor<8xf32>' [P(sum)] -> [S(0)] for operand #{{[0-9]}} of 'arith.mulf': {{.*}}reduce_scatter
    %r = arith.mulf %c, %g : tensor<8xf32>
    dtensor.yield %r : tensor<8xf32>
  }
  return %y : !dtensor.tensor<8xf32, @tp, [partial<sum>]>
}

func.func @mul_nan_in_dense(%x: !dtensor.tensor<8xf32, @tp, [partial<sum>]>, %w: !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]> {
  %y = dtensor.global_region on @tp args(%x, %w) : (!dtensor.tensor<8xf32, @tp, [partial<sum>]>, !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]> {
  ^bb0(%g: tensor<8xf32>, %gw: tensor<8xf32>):
    %c = arith.constant dense<[1.0, 2.0, 0x7FC00000, 1.0, 1.0, 1.0, 1.0, 1.0]> : tensor<8xf32>
    // CHECK: :[[@LINE+2]]:10: remark: strategy {{.*}}; arith.mulf, loop 0 on tp
    // CHECK: remark: redistribute 'tensor<8xf32>' [P(sum)] -> [S(0)] for operand #{{[0-9]}} of 'arith.mulf': {{.*}}reduce_scatter
    %r = arith.mulf %g, %c : tensor<8xf32>
    dtensor.yield %r : tensor<8xf32>
  }
  return %y : !dtensor.tensor<8xf32, @tp, [partial<sum>]>
}

func.func @mul_replicated(%x: !dtensor.tensor<8xf32, @tp, [partial<sum>]>, %w: !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]> {
  %y = dtensor.global_region on @tp args(%x, %w) : (!dtensor.tensor<8xf32, @tp, [partial<sum>]>, !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]> {
  ^bb0(%g: tensor<8xf32>, %gw: tensor<8xf32>):
    // CHECK: :[[@LINE+2]]:10: remark: strategy {{.*}}; arith.mulf, loop 0 on tp
    // CHECK: remark: redistribute 'tensor<8xf32>' [P(sum)] -> [S(0)] for operand #{{[0-9]}} of 'arith.mulf': {{.*}}reduce_scatter
    %r = arith.mulf %g, %gw : tensor<8xf32>
    dtensor.yield %r : tensor<8xf32>
  }
  return %y : !dtensor.tensor<8xf32, @tp, [partial<sum>]>
}

func.func @div_const(%x: !dtensor.tensor<8xf32, @tp, [partial<sum>]>, %w: !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]> {
  %y = dtensor.global_region on @tp args(%x, %w) : (!dtensor.tensor<8xf32, @tp, [partial<sum>]>, !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]> {
  ^bb0(%g: tensor<8xf32>, %gw: tensor<8xf32>):
    %c = arith.constant dense<2.0> : tensor<8xf32>
    // CHECK: :[[@LINE+1]]:10: remark: strategy {{.*}}; arith.divf, partial sums pass through on tp
    %r = arith.divf %g, %c : tensor<8xf32>
    dtensor.yield %r : tensor<8xf32>
  }
  return %y : !dtensor.tensor<8xf32, @tp, [partial<sum>]>
}

func.func @div_zero_const(%x: !dtensor.tensor<8xf32, @tp, [partial<sum>]>, %w: !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]> {
  %y = dtensor.global_region on @tp args(%x, %w) : (!dtensor.tensor<8xf32, @tp, [partial<sum>]>, !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]> {
  ^bb0(%g: tensor<8xf32>, %gw: tensor<8xf32>):
    %c = arith.constant dense<0.0> : tensor<8xf32>
    // CHECK: :[[@LINE+2]]:10: remark: strategy {{.*}}; arith.divf, loop 0 on tp
    // CHECK: remark: redistribute 'tensor<8xf32>' [P(sum)] -> [S(0)] for operand #{{[0-9]}} of 'arith.divf': {{.*}}reduce_scatter
    %r = arith.divf %g, %c : tensor<8xf32>
    dtensor.yield %r : tensor<8xf32>
  }
  return %y : !dtensor.tensor<8xf32, @tp, [partial<sum>]>
}

func.func @div_small_const(%x: !dtensor.tensor<8xf32, @tp, [partial<sum>]>, %w: !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]> {
  %y = dtensor.global_region on @tp args(%x, %w) : (!dtensor.tensor<8xf32, @tp, [partial<sum>]>, !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]> {
  ^bb0(%g: tensor<8xf32>, %gw: tensor<8xf32>):
    %c = arith.constant dense<0.5> : tensor<8xf32>
    // CHECK: :[[@LINE+2]]:10: remark: strategy {{.*}}; arith.divf, loop 0 on tp
    // CHECK: remark: redistribute 'tensor<8xf32>' [P(sum)] -> [S(0)] for operand #{{[0-9]}} of 'arith.divf': {{.*}}reduce_scatter
    %r = arith.divf %g, %c : tensor<8xf32>
    dtensor.yield %r : tensor<8xf32>
  }
  return %y : !dtensor.tensor<8xf32, @tp, [partial<sum>]>
}

func.func @div_replicated(%x: !dtensor.tensor<8xf32, @tp, [partial<sum>]>, %w: !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]> {
  %y = dtensor.global_region on @tp args(%x, %w) : (!dtensor.tensor<8xf32, @tp, [partial<sum>]>, !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]> {
  ^bb0(%g: tensor<8xf32>, %gw: tensor<8xf32>):
    // CHECK: :[[@LINE+2]]:10: remark: strategy {{.*}}; arith.divf, loop 0 on tp
    // CHECK: remark: redistribute 'tensor<8xf32>' [P(sum)] -> [S(0)] for operand #{{[0-9]}} of 'arith.divf': {{.*}}reduce_scatter
    %r = arith.divf %g, %gw : tensor<8xf32>
    dtensor.yield %r : tensor<8xf32>
  }
  return %y : !dtensor.tensor<8xf32, @tp, [partial<sum>]>
}

func.func @const_over_partial(%x: !dtensor.tensor<8xf32, @tp, [partial<sum>]>, %w: !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]> {
  %y = dtensor.global_region on @tp args(%x, %w) : (!dtensor.tensor<8xf32, @tp, [partial<sum>]>, !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]> {
  ^bb0(%g: tensor<8xf32>, %gw: tensor<8xf32>):
    %c = arith.constant dense<2.0> : tensor<8xf32>
    // CHECK: :[[@LINE+2]]:10: remark: strategy {{.*}}; arith.divf, loop 0 on tp
    // CHECK: remark: redistribute 'tensor<8xf32>' [P(sum)] -> [S(0)] for operand #{{[0-9]}} of 'arith.divf': {{.*}}reduce_scatter
    %r = arith.divf %c, %g : tensor<8xf32>
    dtensor.yield %r : tensor<8xf32>
  }
  return %y : !dtensor.tensor<8xf32, @tp, [partial<sum>]>
}

func.func @truncf(%x: !dtensor.tensor<8xf32, @tp, [partial<sum>]>, %w: !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf16, @tp, [partial<sum>]> {
  %y = dtensor.global_region on @tp args(%x, %w) : (!dtensor.tensor<8xf32, @tp, [partial<sum>]>, !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf16, @tp, [partial<sum>]> {
  ^bb0(%g: tensor<8xf32>, %gw: tensor<8xf32>):
    // CHECK: :[[@LINE+2]]:10: remark: strategy {{.*}}; arith.truncf, loop 0 on tp
    // CHECK: remark: redistribute 'tensor<8xf32>' [P(sum)] -> [S(0)] for operand #{{[0-9]}} of 'arith.truncf': {{.*}}reduce_scatter
    %r = arith.truncf %g : tensor<8xf32> to tensor<8xf16>
    dtensor.yield %r : tensor<8xf16>
  }
  return %y : !dtensor.tensor<8xf16, @tp, [partial<sum>]>
}

func.func @extf(%x: !dtensor.tensor<8xf32, @tp, [partial<sum>]>, %w: !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf64, @tp, [partial<sum>]> {
  %y = dtensor.global_region on @tp args(%x, %w) : (!dtensor.tensor<8xf32, @tp, [partial<sum>]>, !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf64, @tp, [partial<sum>]> {
  ^bb0(%g: tensor<8xf32>, %gw: tensor<8xf32>):
    // CHECK: :[[@LINE+1]]:10: remark: strategy {{.*}}; arith.extf, partial sums pass through on tp
    %r = arith.extf %g : tensor<8xf32> to tensor<8xf64>
    dtensor.yield %r : tensor<8xf64>
  }
  return %y : !dtensor.tensor<8xf64, @tp, [partial<sum>]>
}
// In a linalg body: a product with a replicated input (a contraction's
// multiply-add) is refused, with a constant it passes; integer products
// wrap, so any factor passes; a select on a condition read from a
// replicated input passes.
func.func @body_mul_replicated(%x: !dtensor.tensor<8xf32, @tp, [partial<sum>]>, %w: !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]> {
  %y = dtensor.global_region on @tp args(%x, %w) : (!dtensor.tensor<8xf32, @tp, [partial<sum>]>, !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]> {
  ^bb0(%g: tensor<8xf32>, %gw: tensor<8xf32>):
    %e = tensor.empty() : tensor<8xf32>
    // CHECK: :[[@LINE+2]]:10: remark: strategy {{.*}}; linalg.generic, loop 0 on tp
    // CHECK: remark: redistribute 'tensor<8xf32>' [P(sum)] -> [S(0)] for operand #{{[0-9]}} of 'linalg.generic': {{.*}}reduce_scatter
    %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
        ins(%g, %gw : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %m = arith.mulf %a, %b : f32
      linalg.yield %m : f32
    } -> tensor<8xf32>
    dtensor.yield %r : tensor<8xf32>
  }
  return %y : !dtensor.tensor<8xf32, @tp, [partial<sum>]>
}

func.func @body_mul_const(%x: !dtensor.tensor<8xf32, @tp, [partial<sum>]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8xf32, @tp, [partial<sum>]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]> {
  ^bb0(%g: tensor<8xf32>):
    %e = tensor.empty() : tensor<8xf32>
    %s = arith.constant 0.125 : f32
    // CHECK: :[[@LINE+1]]:10: remark: strategy {{.*}}; linalg.generic, partial sums pass through on tp
    %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
        ins(%g : tensor<8xf32>) outs(%e : tensor<8xf32>) {
    ^bb0(%a: f32, %o: f32):
      %m = arith.mulf %a, %s : f32
      linalg.yield %m : f32
    } -> tensor<8xf32>
    dtensor.yield %r : tensor<8xf32>
  }
  return %y : !dtensor.tensor<8xf32, @tp, [partial<sum>]>
}

func.func @body_muli_replicated(%x: !dtensor.tensor<8xi32, @tp, [partial<sum>]>, %w: !dtensor.tensor<8xi32, @tp, [replicate]>) -> !dtensor.tensor<8xi32, @tp, [partial<sum>]> {
  %y = dtensor.global_region on @tp args(%x, %w) : (!dtensor.tensor<8xi32, @tp, [partial<sum>]>, !dtensor.tensor<8xi32, @tp, [replicate]>) -> !dtensor.tensor<8xi32, @tp, [partial<sum>]> {
  ^bb0(%g: tensor<8xi32>, %gw: tensor<8xi32>):
    // CHECK: :[[@LINE+1]]:10: remark: strategy {{.*}}; arith.muli, partial sums pass through on tp
    %r = arith.muli %g, %gw : tensor<8xi32>
    dtensor.yield %r : tensor<8xi32>
  }
  return %y : !dtensor.tensor<8xi32, @tp, [partial<sum>]>
}

func.func @body_select(%x: !dtensor.tensor<8xf32, @tp, [partial<sum>]>, %z: !dtensor.tensor<8xf32, @tp, [partial<sum>]>, %w: !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]> {
  %y = dtensor.global_region on @tp args(%x, %z, %w) : (!dtensor.tensor<8xf32, @tp, [partial<sum>]>, !dtensor.tensor<8xf32, @tp, [partial<sum>]>, !dtensor.tensor<8xf32, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]> {
  ^bb0(%g: tensor<8xf32>, %gz: tensor<8xf32>, %gw: tensor<8xf32>):
    %e = tensor.empty() : tensor<8xf32>
    %zero = arith.constant 0.0 : f32
    // CHECK: :[[@LINE+1]]:10: remark: strategy {{.*}}; linalg.generic, partial sums pass through on tp
    %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
        ins(%g, %gz, %gw : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32, %o: f32):
      %pos = arith.cmpf ogt, %c, %zero : f32
      %m = arith.select %pos, %a, %b : f32
      linalg.yield %m : f32
    } -> tensor<8xf32>
    dtensor.yield %r : tensor<8xf32>
  }
  return %y : !dtensor.tensor<8xf32, @tp, [partial<sum>]>
}
