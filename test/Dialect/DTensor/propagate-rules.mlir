// The strategies dtensor-propagate derives, rule by rule: shape ops keep the
// dims they do not cut split, reductions leave their combiner's partial,
// linear bodies pass partial sums, uneven and nested splits get dynamic local
// types and the layout model's offsets, anything else runs replicated.
// RUN: hp-opt %s -dtensor-propagate=print-strategies --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRAT
// RUN: hp-opt %s -dtensor-propagate 2>/dev/null | FileCheck %s

// STRAT: remark: strategy [S(0)] -> [S(0)]; tensor.collapse_shape, result dim 0 on tp; 0 flops per device
// CHECK-LABEL: func.func @collapse
// CHECK-NOT: dtensor.redistribute
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<2x4x3xf32> into tensor<8x3xf32>

// STRAT: remark: strategy [S(0)] -> [S(0)]; tensor.extract_slice, result dim 0 on tp
// STRAT: remark: strategy [S(0)], [S(0)] -> [S(0)]; tensor.insert_slice, result dim 0 on tp
// STRAT: remark: strategy [S(0)] -> [S(0)]; tensor.pad, result dim 0 on tp
// STRAT: remark: dtensor-choose-strategies: 3 ops; cost 0 =
// STRAT: remark: dtensor-apply-strategies: 3 ops, 0 redistributes
// CHECK-LABEL: func.func @slices
// CHECK-NOT: dtensor.redistribute
// CHECK: tensor.extract_slice %{{.*}}[0, 1] [2, 4] [1, 1] : tensor<2x6xf32> to tensor<2x4xf32>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 3] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<2x10xf32>
// CHECK: tensor.pad %{{.*}} low[0, 1] high[0, 1]

// STRAT: remark: strategy [S(1)], [S(1)] -> [S(1)]; tensor.concat, result dim 1 on tp
// CHECK-LABEL: func.func @concat
// CHECK: tensor.concat dim(0) %{{.*}}, %{{.*}} : (tensor<6x1xf32>, tensor<6x1xf32>) -> tensor<12x1xf32>

// 7 rows on 4 ranks: blocks of 2, 2, 2 and 1 rows, a dynamic local dim; the
// largest block counts for the flops.
// STRAT: remark: strategy [S(0)] -> [S(0)]; math.exp, loop 0 on tp; 6 flops per device
// CHECK-LABEL: func.func @uneven
// CHECK: math.exp %{{.*}} : tensor<?x3xf32>

// STRAT: remark: strategy [S(1)], [P(sum)] -> [P(sum)]; linalg.reduce, loop 1 on tp; 8 flops per device
// STRAT: remark: strategy [S(1)], [P(prod)] -> [P(prod)]; linalg.reduce, loop 1 on tp; 8 flops per device
// STRAT: remark: strategy [S(1)], [P(min)] -> [P(min)]; linalg.reduce, loop 1 on tp; 8 flops per device

// STRAT: remark: strategy [P(sum)], [P(sum)] -> [P(sum)]; arith.subf, partial sums pass through on tp
// STRAT: remark: strategy [P(sum)], [R] -> [P(sum)]; arith.divf, partial sums pass through on tp
// STRAT: remark: strategy [P(sum)], [P(sum)] -> [P(sum)]; linalg.map, partial sums pass through on tp

// 7 rows split on both axes of a 2x2 mesh: the offset of this rank's rows
// reads both coordinates.
// STRAT: remark: strategy [S(0), S(0)], [S(0), S(0)] -> [S(0), S(0)]; linalg.generic, loop 0 on a, loop 0 on b; 24 flops per device
// CHECK-LABEL: func.func @nested
// CHECK: dtensor.axis_index @m2 "a" : index
// CHECK: dtensor.axis_index @m2 "b" : index
// CHECK: linalg.generic
// CHECK: linalg.index 0 : index
// CHECK-NEXT: arith.addi

// STRAT: remark: runs replicated (no sharding rule for this op): dtensor-propagate gives every operand and result `replicate`
// STRAT: remark: runs replicated (results that are not tensors): dtensor-propagate gives every operand and result `replicate`
// STRAT: remark: strategy [R] -> [R]; tensor.extract_slice; 6 flops per device
// STRAT: remark: strategy [R] ->; tensor.extract; 0 flops per device

dtensor.mesh @tp shape = [4] names = ["tp"]
dtensor.mesh @m2 shape = [2, 2] names = ["a", "b"]

func.func @collapse(%x: !dtensor.tensor<8x4x3xf32, @tp, [shard<0>]>) -> !dtensor.tensor<32x3xf32, @tp, [shard<0>]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8x4x3xf32, @tp, [shard<0>]>) -> !dtensor.tensor<32x3xf32, @tp, [shard<0>]> {
  ^bb0(%g: tensor<8x4x3xf32>):
    %c = tensor.collapse_shape %g [[0, 1], [2]] : tensor<8x4x3xf32> into tensor<32x3xf32>
    dtensor.yield %c : tensor<32x3xf32>
  }
  return %y : !dtensor.tensor<32x3xf32, @tp, [shard<0>]>
}
func.func @slices(%x: !dtensor.tensor<8x6xf32, @tp, [shard<0>]>, %d: !dtensor.tensor<8x10xf32, @tp, [shard<0>]>) -> (!dtensor.tensor<8x10xf32, @tp, [shard<0>]>, !dtensor.tensor<8x6xf32, @tp, [shard<0>]>) {
  %y, %z = dtensor.global_region on @tp args(%x, %d) : (!dtensor.tensor<8x6xf32, @tp, [shard<0>]>, !dtensor.tensor<8x10xf32, @tp, [shard<0>]>) -> (!dtensor.tensor<8x10xf32, @tp, [shard<0>]>, !dtensor.tensor<8x6xf32, @tp, [shard<0>]>) {
  ^bb0(%g: tensor<8x6xf32>, %gd: tensor<8x10xf32>):
    %s = tensor.extract_slice %g[0, 1] [8, 4] [1, 1] : tensor<8x6xf32> to tensor<8x4xf32>
    %i = tensor.insert_slice %s into %gd[0, 3] [8, 4] [1, 1] : tensor<8x4xf32> into tensor<8x10xf32>
    %cst = arith.constant 0.0 : f32
    %p = tensor.pad %s low[0, 1] high[0, 1] {
    ^bb0(%a: index, %b: index):
      tensor.yield %cst : f32
    } : tensor<8x4xf32> to tensor<8x6xf32>
    dtensor.yield %i, %p : tensor<8x10xf32>, tensor<8x6xf32>
  }
  return %y, %z : !dtensor.tensor<8x10xf32, @tp, [shard<0>]>, !dtensor.tensor<8x6xf32, @tp, [shard<0>]>
}
func.func @concat(%x: !dtensor.tensor<6x4xf32, @tp, [shard<1>]>, %w: !dtensor.tensor<6x4xf32, @tp, [shard<1>]>) -> !dtensor.tensor<12x4xf32, @tp, [shard<1>]> {
  %y = dtensor.global_region on @tp args(%x, %w) : (!dtensor.tensor<6x4xf32, @tp, [shard<1>]>, !dtensor.tensor<6x4xf32, @tp, [shard<1>]>) -> !dtensor.tensor<12x4xf32, @tp, [shard<1>]> {
  ^bb0(%g: tensor<6x4xf32>, %h: tensor<6x4xf32>):
    %c = tensor.concat dim(0) %g, %h : (tensor<6x4xf32>, tensor<6x4xf32>) -> tensor<12x4xf32>
    dtensor.yield %c : tensor<12x4xf32>
  }
  return %y : !dtensor.tensor<12x4xf32, @tp, [shard<1>]>
}
func.func @uneven(%x: !dtensor.tensor<7x3xf32, @tp, [shard<0>]>) -> !dtensor.tensor<7x3xf32, @tp, [shard<0>]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<7x3xf32, @tp, [shard<0>]>) -> !dtensor.tensor<7x3xf32, @tp, [shard<0>]> {
  ^bb0(%g: tensor<7x3xf32>):
    %e = math.exp %g : tensor<7x3xf32>
    dtensor.yield %e : tensor<7x3xf32>
  }
  return %y : !dtensor.tensor<7x3xf32, @tp, [shard<0>]>
}
func.func @sum_prod_min(%x: !dtensor.tensor<4x8xf32, @tp, [shard<1>]>) -> (!dtensor.tensor<4xf32, @tp, [partial<sum>]>, !dtensor.tensor<4xf32, @tp, [partial<prod>]>, !dtensor.tensor<4xf32, @tp, [partial<min>]>) {
  %a, %b, %c = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<4x8xf32, @tp, [shard<1>]>) -> (!dtensor.tensor<4xf32, @tp, [partial<sum>]>, !dtensor.tensor<4xf32, @tp, [partial<prod>]>, !dtensor.tensor<4xf32, @tp, [partial<min>]>) {
  ^bb0(%g: tensor<4x8xf32>):
    %e = tensor.empty() : tensor<4xf32>
    %s = linalg.reduce ins(%g : tensor<4x8xf32>) outs(%e : tensor<4xf32>) dimensions = [1]
      (%in: f32, %acc: f32) {
        %r = arith.addf %in, %acc : f32
        linalg.yield %r : f32
      }
    %p = linalg.reduce ins(%g : tensor<4x8xf32>) outs(%e : tensor<4xf32>) dimensions = [1]
      (%in: f32, %acc: f32) {
        %r = arith.mulf %in, %acc : f32
        linalg.yield %r : f32
      }
    %m = linalg.reduce ins(%g : tensor<4x8xf32>) outs(%e : tensor<4xf32>) dimensions = [1]
      (%in: f32, %acc: f32) {
        %r = arith.minimumf %in, %acc : f32
        linalg.yield %r : f32
      }
    dtensor.yield %s, %p, %m : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
  return %a, %b, %c : !dtensor.tensor<4xf32, @tp, [partial<sum>]>, !dtensor.tensor<4xf32, @tp, [partial<prod>]>, !dtensor.tensor<4xf32, @tp, [partial<min>]>
}
func.func @linear_more(%x: !dtensor.tensor<8xf32, @tp, [partial<sum>]>, %y: !dtensor.tensor<8xf32, @tp, [partial<sum>]>, %w: !dtensor.tensor<8xf32, @tp, [replicate]>, %c: !dtensor.tensor<8xi8, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]> {
  %r = dtensor.global_region on @tp args(%x, %y, %w, %c) : (!dtensor.tensor<8xf32, @tp, [partial<sum>]>, !dtensor.tensor<8xf32, @tp, [partial<sum>]>, !dtensor.tensor<8xf32, @tp, [replicate]>, !dtensor.tensor<8xi8, @tp, [replicate]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]> {
  ^bb0(%gx: tensor<8xf32>, %gy: tensor<8xf32>, %gw: tensor<8xf32>, %gc: tensor<8xi8>):
    %d = arith.subf %gx, %gy : tensor<8xf32>
    %four = arith.constant dense<4.0> : tensor<8xf32>
    %q = arith.divf %d, %four : tensor<8xf32>
    %e = tensor.empty() : tensor<8xf32>
    %m = linalg.map { arith.negf } ins(%q : tensor<8xf32>) outs(%e : tensor<8xf32>)
    dtensor.yield %m : tensor<8xf32>
  }
  return %r : !dtensor.tensor<8xf32, @tp, [partial<sum>]>
}
func.func @nested(%x: !dtensor.tensor<7x4xf32, @m2, [shard<0>, shard<0>]>) -> !dtensor.tensor<7x4xf32, @m2, [shard<0>, shard<0>]> {
  %y = dtensor.global_region on @m2 args(%x) : (!dtensor.tensor<7x4xf32, @m2, [shard<0>, shard<0>]>) -> !dtensor.tensor<7x4xf32, @m2, [shard<0>, shard<0>]> {
  ^bb0(%g: tensor<7x4xf32>):
    %e = tensor.empty() : tensor<7x4xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
        ins(%g : tensor<7x4xf32>) outs(%e : tensor<7x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %i = linalg.index 0 : index
      %ii = arith.index_cast %i : index to i64
      %fi = arith.sitofp %ii : i64 to f32
      %s = arith.addf %in, %fi : f32
      linalg.yield %s : f32
    } -> tensor<7x4xf32>
    dtensor.yield %r : tensor<7x4xf32>
  }
  return %y : !dtensor.tensor<7x4xf32, @m2, [shard<0>, shard<0>]>
}
func.func @fallbacks(%x: !dtensor.tensor<8x6xf32, @tp, [shard<0>]>) -> (!dtensor.tensor<6xf32, @tp, [replicate]>, f32) {
  %y, %v = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8x6xf32, @tp, [shard<0>]>) -> (!dtensor.tensor<6xf32, @tp, [replicate]>, f32) {
  ^bb0(%g: tensor<8x6xf32>):
    %s = tensor.extract_slice %g[2, 0] [1, 6] [1, 1] : tensor<8x6xf32> to tensor<6xf32>
    %c0 = arith.constant 0 : index
    %e = tensor.extract %g[%c0, %c0] : tensor<8x6xf32>
    dtensor.yield %s, %e : tensor<6xf32>, f32
  }
  return %y, %v : !dtensor.tensor<6xf32, @tp, [replicate]>, f32
}
// A generic with no outputs (torch-mlir's index checks: a body of cf.assert)
// checks each rank's block where its operand lies: no gather.
// STRAT: remark: strategy [S(0)] ->; linalg.generic, loop 0 on tp; 8 flops per device
// CHECK-LABEL: func.func @checks_only
// CHECK-NOT: dtensor.redistribute
// CHECK: dtensor.local_region on @tp args(%{{.*}} as "a0", %{{.*}} as "a1") out_placements = [] : (!dtensor.tensor<8x2xi64, @tp, [shard<0>]>, i64) -> () {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<2x2xi64>, %{{.*}}: i64):
// CHECK: cf.assert
func.func @checks_only(%x: !dtensor.tensor<8x2xi64, @tp, [shard<0>]>) -> !dtensor.tensor<8x2xi64, @tp, [shard<0>]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8x2xi64, @tp, [shard<0>]>) -> !dtensor.tensor<8x2xi64, @tp, [shard<0>]> {
  ^bb0(%g: tensor<8x2xi64>):
    %c0 = arith.constant 0 : i64
    linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
        ins(%g : tensor<8x2xi64>) {
    ^bb0(%in: i64):
      %ok = arith.cmpi sge, %in, %c0 : i64
      cf.assert %ok, "index must be larger or equal to 0"
      linalg.yield
    }
    dtensor.yield %g : tensor<8x2xi64>
  }
  return %y : !dtensor.tensor<8x2xi64, @tp, [shard<0>]>
}
