// A whole program in global view, placed by dtensor-propagate and run on 4
// ranks: every rank compares the result with the same ops on one device.
// The body mixes plain ops (matmul, relu, a scalar), a constraint, a
// local_region in global view (per-rank code on column blocks) and results
// of several kinds (a sharded DTensor, a plain tensor, a scalar).
// REQUIRES: mpi
// RUN: hp-opt %s --hp-partition -o /dev/null
// RUN: %hp-runner -np 4 %s -e main --entry-point-result=void | FileCheck %s
// CHECK-COUNT-4: global_region: this rank matches the single-device result
// CHECK-NOT: MISMATCH

dtensor.mesh @tp shape = [4] names = ["tp"]

// y = (2 * relu(x @ w1)) @ w2 + s, t = x @ w1, and s back.
func.func @program(%x: !dtensor.tensor<8x16xf32, @tp, [replicate]>,
                   %w1: !dtensor.tensor<16x32xf32, @tp, [shard<1>]>,
                   %w2: !dtensor.tensor<32x16xf32, @tp, [shard<0>]>, %s: f32)
    -> (!dtensor.tensor<8x16xf32, @tp, [shard<0>]>, tensor<8x32xf32>, f32) {
  %y, %t, %so = dtensor.global_region on @tp args(%x, %w1, %w2, %s)
      : (!dtensor.tensor<8x16xf32, @tp, [replicate]>, !dtensor.tensor<16x32xf32, @tp, [shard<1>]>,
         !dtensor.tensor<32x16xf32, @tp, [shard<0>]>, f32)
     -> (!dtensor.tensor<8x16xf32, @tp, [shard<0>]>, tensor<8x32xf32>, f32) {
  ^bb0(%gx: tensor<8x16xf32>, %gw1: tensor<16x32xf32>, %gw2: tensor<32x16xf32>, %gs: f32):
    %zero = arith.constant 0.0 : f32
    %e1 = tensor.empty() : tensor<8x32xf32>
    %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x32xf32>) -> tensor<8x32xf32>
    %h = linalg.matmul ins(%gx, %gw1 : tensor<8x16xf32>, tensor<16x32xf32>) outs(%z1 : tensor<8x32xf32>) -> tensor<8x32xf32>
    %relu = linalg.map { arith.maximumf } ins(%h, %z1 : tensor<8x32xf32>, tensor<8x32xf32>) outs(%e1 : tensor<8x32xf32>)
    %pinned = dtensor.constrain %relu [shard<1>] : tensor<8x32xf32>
    %doubled = dtensor.local_region on @tp args(%pinned as "h") in_placements = {h = [shard<1>]} out_placements = [shard<1>]
        : (tensor<8x32xf32>) -> tensor<8x32xf32> {
    ^bb0(%hl: tensor<8x8xf32>):
      %d = arith.addf %hl, %hl : tensor<8x8xf32>
      dtensor.yield %d : tensor<8x8xf32>
    }
    %e2 = tensor.empty() : tensor<8x16xf32>
    %z2 = linalg.fill ins(%gs : f32) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
    %out = linalg.matmul ins(%doubled, %gw2 : tensor<8x32xf32>, tensor<32x16xf32>) outs(%z2 : tensor<8x16xf32>) -> tensor<8x16xf32>
    dtensor.yield %out, %h, %gs : tensor<8x16xf32>, tensor<8x32xf32>, f32
  }
  return %y, %t, %so : !dtensor.tensor<8x16xf32, @tp, [shard<0>]>, tensor<8x32xf32>, f32
}

// The same ops on one device.
func.func @reference(%x: tensor<8x16xf32>, %w1: tensor<16x32xf32>, %w2: tensor<32x16xf32>, %s: f32)
    -> (tensor<8x16xf32>, tensor<8x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x32xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<8x16xf32>, tensor<16x32xf32>) outs(%z1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %relu = linalg.map { arith.maximumf } ins(%h, %z1 : tensor<8x32xf32>, tensor<8x32xf32>) outs(%e1 : tensor<8x32xf32>)
  %d = arith.addf %relu, %relu : tensor<8x32xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %z2 = linalg.fill ins(%s : f32) outs(%e2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %out = linalg.matmul ins(%d, %w2 : tensor<8x32xf32>, tensor<32x16xf32>) outs(%z2 : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %out, %h : tensor<8x16xf32>, tensor<8x32xf32>
}

// value[i, j] = ((a i + b j) mod m) - off: small integers, exact in f32.
func.func @pattern(%rows: index, %cols: index, %a: index, %b: index, %m: index, %off: index) -> tensor<?x?xf32> {
  %e = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<?x?xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ai = arith.muli %i, %a : index
    %bj = arith.muli %j, %b : index
    %sum = arith.addi %ai, %bj : index
    %r = arith.remui %sum, %m : index
    %v = arith.subi %r, %off : index
    %v64 = arith.index_cast %v : index to i64
    %f = arith.sitofp %v64 : i64 to f32
    linalg.yield %f : f32
  } -> tensor<?x?xf32>
  return %t : tensor<?x?xf32>
}

func.func @max_abs_diff(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> f32 {
  %zero = arith.constant 0.0 : f32
  %init = tensor.from_elements %zero : tensor<f32>
  %d = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                       iterator_types = ["reduction", "reduction"]}
      ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%init : tensor<f32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %s = arith.subf %p, %q : f32
    %abs = math.absf %s : f32
    %m = arith.maximumf %acc, %abs : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  %v = tensor.extract %d[] : tensor<f32>
  return %v : f32
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %s = arith.constant 3.0 : f32
  %xd = func.call @pattern(%c8, %c16, %c1, %c2, %c5, %c2) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %w1d = func.call @pattern(%c16, %c32, %c3, %c1, %c4, %c1) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %w2d = func.call @pattern(%c32, %c16, %c2, %c3, %c7, %c3) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<8x16xf32>
  %w1 = tensor.cast %w1d : tensor<?x?xf32> to tensor<16x32xf32>
  %w2 = tensor.cast %w2d : tensor<?x?xf32> to tensor<32x16xf32>
  %want:2 = func.call @reference(%x, %w1, %w2, %s) : (tensor<8x16xf32>, tensor<16x32xf32>, tensor<32x16xf32>, f32) -> (tensor<8x16xf32>, tensor<8x32xf32>)

  %dx = dtensor.from_local %x : tensor<8x16xf32> -> !dtensor.tensor<8x16xf32, @tp, [replicate]>
  %rw1 = dtensor.from_local %w1 : tensor<16x32xf32> -> !dtensor.tensor<16x32xf32, @tp, [replicate]>
  %dw1 = dtensor.redistribute %rw1 : !dtensor.tensor<16x32xf32, @tp, [replicate]> -> !dtensor.tensor<16x32xf32, @tp, [shard<1>]>
  %rw2 = dtensor.from_local %w2 : tensor<32x16xf32> -> !dtensor.tensor<32x16xf32, @tp, [replicate]>
  %dw2 = dtensor.redistribute %rw2 : !dtensor.tensor<32x16xf32, @tp, [replicate]> -> !dtensor.tensor<32x16xf32, @tp, [shard<0>]>
  %dy, %t, %so = func.call @program(%dx, %dw1, %dw2, %s)
      : (!dtensor.tensor<8x16xf32, @tp, [replicate]>, !dtensor.tensor<16x32xf32, @tp, [shard<1>]>,
         !dtensor.tensor<32x16xf32, @tp, [shard<0>]>, f32) -> (!dtensor.tensor<8x16xf32, @tp, [shard<0>]>, tensor<8x32xf32>, f32)
  %ry = dtensor.redistribute %dy : !dtensor.tensor<8x16xf32, @tp, [shard<0>]> -> !dtensor.tensor<8x16xf32, @tp, [replicate]>
  %y = dtensor.to_local %ry : !dtensor.tensor<8x16xf32, @tp, [replicate]> -> tensor<8x16xf32>

  %yd = tensor.cast %y : tensor<8x16xf32> to tensor<?x?xf32>
  %wy = tensor.cast %want#0 : tensor<8x16xf32> to tensor<?x?xf32>
  %td = tensor.cast %t : tensor<8x32xf32> to tensor<?x?xf32>
  %wt = tensor.cast %want#1 : tensor<8x32xf32> to tensor<?x?xf32>
  %d1 = func.call @max_abs_diff(%yd, %wy) : (tensor<?x?xf32>, tensor<?x?xf32>) -> f32
  %d2 = func.call @max_abs_diff(%td, %wt) : (tensor<?x?xf32>, tensor<?x?xf32>) -> f32
  %d3 = arith.subf %so, %s : f32
  %d12 = arith.maximumf %d1, %d2 : f32
  %diff = arith.maximumf %d12, %d3 : f32
  %zero = arith.constant 0.0 : f32
  %ok = arith.cmpf oeq, %diff, %zero : f32
  scf.if %ok {
    vector.print str "global_region: this rank matches the single-device result\n"
  } else {
    vector.print str "global_region: MISMATCH with the single-device result, max |diff| = "
    vector.print %diff : f32
  }
  return
}
