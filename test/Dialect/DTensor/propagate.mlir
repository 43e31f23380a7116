// RUN: hp-opt %s -dtensor-propagate -split-input-file -verify-diagnostics | FileCheck %s

dtensor.mesh @tp shape = [4] names = ["tp"]

// Elementwise ops on values split alike stay split: no redistribute, one
// local_region per op on the local blocks.
// CHECK-LABEL: func.func @run
// CHECK-SAME: (%[[X:.*]]: !dtensor.tensor<8xf32, @tp, [shard<0>]>)
// CHECK-NOT: dtensor.redistribute
// CHECK: %[[L:.*]] = dtensor.local_region on @tp args(%[[X]] as "a0", %[[X]] as "a1") out_placements = [shard<0>]
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<2xf32>, %[[B:.*]]: tensor<2xf32>):
// CHECK-NEXT: arith.addf %[[A]], %[[B]] : tensor<2xf32>
// CHECK: %[[M:.*]] = dtensor.local_region on @tp args(%[[L]] as "a0", %[[X]] as "a1") out_placements = [shard<0>]
// CHECK: arith.mulf %{{.*}}, %{{.*}} : tensor<2xf32>
// CHECK-NOT: dtensor.redistribute
// CHECK: return %[[M]]
// CHECK-NOT: dtensor.global_region
func.func @run(%x: !dtensor.tensor<8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8xf32, @tp, [shard<0>]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8xf32, @tp, [shard<0>]> {
  ^bb0(%g: tensor<8xf32>):
    %d = arith.addf %g, %g : tensor<8xf32>
    %m = arith.mulf %d, %g : tensor<8xf32>
    dtensor.yield %m : tensor<8xf32>
  }
  return %y : !dtensor.tensor<8xf32, @tp, [shard<0>]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// A constraint pins its value: the addf before it runs split like it; a
// local_region in global view gets its operands in its in_placements and
// lays its results out as its out_placements say; the mulf after it
// multiplies two partial sums, which is not linear, so it runs replicated.
// CHECK-LABEL: func.func @constrain_and_local
// CHECK: %[[C:.*]] = dtensor.redistribute %{{.*}} : !dtensor.tensor<8x4xf32, @tp, [replicate]> -> !dtensor.tensor<8x4xf32, @tp, [shard<0>]>
// CHECK: %[[L1:.*]] = dtensor.local_region on @tp args(%[[C]] as "a0", %[[C]] as "a1") out_placements = [shard<0>]
// CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<2x4xf32>
// CHECK: %[[IN:.*]] = dtensor.redistribute %[[L1]] : !dtensor.tensor<8x4xf32, @tp, [shard<0>]> -> !dtensor.tensor<8x4xf32, @tp, [shard<1>]>
// CHECK: %[[L2:.*]] = dtensor.local_region on @tp args(%[[IN]] as "h") in_placements = {h = [shard<1>]} out_placements = [partial<sum>] : (!dtensor.tensor<8x4xf32, @tp, [shard<1>]>) -> !dtensor.tensor<8x4xf32, @tp, [partial<sum>]> {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<8x1xf32>):
// CHECK: %[[R2:.*]] = dtensor.redistribute %[[L2]] : !dtensor.tensor<8x4xf32, @tp, [partial<sum>]> -> !dtensor.tensor<8x4xf32, @tp, [replicate]>
// CHECK: dtensor.local_region on @tp args(%[[R2]] as "a0", %[[R2]] as "a1") out_placements = [replicate]
// CHECK: arith.mulf %{{.*}}, %{{.*}} : tensor<8x4xf32>
func.func @constrain_and_local(%x: !dtensor.tensor<8x4xf32, @tp, [replicate]>) -> !dtensor.tensor<8x4xf32, @tp, [replicate]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8x4xf32, @tp, [replicate]>) -> !dtensor.tensor<8x4xf32, @tp, [replicate]> {
  ^bb0(%g: tensor<8x4xf32>):
    %d = arith.addf %g, %g : tensor<8x4xf32>
    %c = dtensor.constrain %d [shard<0>] : tensor<8x4xf32>
    %p = dtensor.local_region on @tp args(%c as "h") in_placements = {h = [shard<1>]} out_placements = [partial<sum>]
        : (tensor<8x4xf32>) -> tensor<8x4xf32> {
    ^bb0(%hl: tensor<8x1xf32>):
      %z = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<8x4xf32>
      %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
      %ins = tensor.insert_slice %hl into %f[0, 0] [8, 1] [1, 1] : tensor<8x1xf32> into tensor<8x4xf32>
      dtensor.yield %ins : tensor<8x4xf32>
    }
    %m = arith.mulf %p, %p : tensor<8x4xf32>
    dtensor.yield %m : tensor<8x4xf32>
  }
  return %y : !dtensor.tensor<8x4xf32, @tp, [replicate]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// Code on no global tensor (constants, empty tensors, scalars) runs in front
// of the region on every rank; a plain tensor result is the whole value on
// every rank; a scalar operand passes through.
// CHECK-LABEL: func.func @constants_and_plain_results
// CHECK-SAME: (%[[S:.*]]: f32)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[ED:.*]] = dtensor.from_local %[[E]] : tensor<4xf32> -> !dtensor.tensor<4xf32, @tp, [replicate]>
// CHECK: %[[F:.*]] = dtensor.local_region on @tp args(%[[ED]] as "a0", %[[S]] as "a1") out_placements = [replicate]
// CHECK: linalg.fill
// CHECK: %[[SH:.*]] = dtensor.redistribute %[[F]] : !dtensor.tensor<4xf32, @tp, [replicate]> -> !dtensor.tensor<4xf32, @tp, [shard<0>]>
// CHECK: %[[PL:.*]] = dtensor.to_local %[[F]] : !dtensor.tensor<4xf32, @tp, [replicate]> -> tensor<4xf32>
// CHECK: return %[[SH]], %[[PL]], %[[S]]
func.func @constants_and_plain_results(%s: f32) -> (!dtensor.tensor<4xf32, @tp, [shard<0>]>, tensor<4xf32>, f32) {
  %y, %t, %so = dtensor.global_region on @tp args(%s) : (f32) -> (!dtensor.tensor<4xf32, @tp, [shard<0>]>, tensor<4xf32>, f32) {
  ^bb0(%gs: f32):
    %e = tensor.empty() : tensor<4xf32>
    %f = linalg.fill ins(%gs : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    dtensor.yield %f, %f, %gs : tensor<4xf32>, tensor<4xf32>, f32
  }
  return %y, %t, %so : !dtensor.tensor<4xf32, @tp, [shard<0>]>, tensor<4xf32>, f32
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// An op with no sharding rule (a loop) runs replicated, with a remark: the
// tensors its body reads from above come in as region operands, and a
// constraint inside it is the identity on replicated values.
// CHECK-LABEL: func.func @loop
// CHECK: %[[R:.*]] = dtensor.redistribute %{{.*}} : !dtensor.tensor<8xf32, @tp, [shard<0>]> -> !dtensor.tensor<8xf32, @tp, [replicate]>
// CHECK: dtensor.local_region on @tp args(%[[R]] as "a0", %[[R]] as "a1", %{{.*}} as "a2", %{{.*}} as "a3", %{{.*}} as "a4")
// CHECK: scf.for
// CHECK-NOT: dtensor.constrain
// CHECK: arith.addf
func.func @loop(%x: !dtensor.tensor<8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8xf32, @tp, [replicate]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8xf32, @tp, [replicate]> {
  ^bb0(%g: tensor<8xf32>):
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    %c1 = arith.constant 1 : index
    // expected-remark @+1 {{runs replicated (a region that reads tensors from above): dtensor-propagate gives every operand and result `replicate`}}
    %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %g) -> tensor<8xf32> {
      %a = arith.addf %acc, %g : tensor<8xf32>
      %p = dtensor.constrain %a [replicate] : tensor<8xf32>
      scf.yield %p : tensor<8xf32>
    }
    dtensor.yield %r : tensor<8xf32>
  }
  return %y : !dtensor.tensor<8xf32, @tp, [replicate]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// A linalg op whose body reads a table from above (an embedding lookup, a
// mask built from indices) splits its loops as any other: the table comes in
// replicated, the ids stay split, and linalg.index of the split loop becomes
// this rank's global index, which the body's reads are computed from.
// CHECK-LABEL: func.func @lookup
// CHECK-SAME: (%[[IDS:.*]]: !dtensor.tensor<8xi64, @tp, [shard<0>]>, %[[TABLE:.*]]: !dtensor.tensor<16x4xf32, @tp, [replicate]>)
// CHECK: dtensor.local_region on @tp args(%[[IDS]] as "a0", %{{.*}} as "a1", %[[TABLE]] as "a2")
// CHECK-SAME: out_placements = [shard<0>]
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<2xi64>, %{{.*}}: tensor<2x4xf32>, %[[T:.*]]: tensor<16x4xf32>):
// CHECK: %[[RANK:.*]] = dtensor.axis_index @tp "tp" : index
// CHECK: %[[START:.*]] = arith.muli %[[RANK]], %c2
// CHECK: linalg.index 0 : index
// CHECK-NEXT: arith.addi %{{.*}}, %[[OFF:.*]] : index
// CHECK: tensor.extract %[[T]]
// CHECK: return
func.func @lookup(%ids: !dtensor.tensor<8xi64, @tp, [shard<0>]>, %table: !dtensor.tensor<16x4xf32, @tp, [replicate]>) -> !dtensor.tensor<8x4xf32, @tp, [shard<0>]> {
  %y = dtensor.global_region on @tp args(%ids, %table) : (!dtensor.tensor<8xi64, @tp, [shard<0>]>, !dtensor.tensor<16x4xf32, @tp, [replicate]>) -> !dtensor.tensor<8x4xf32, @tp, [shard<0>]> {
  ^bb0(%gi: tensor<8xi64>, %gt: tensor<16x4xf32>):
    %e = tensor.empty() : tensor<8x4xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%gi : tensor<8xi64>) outs(%e : tensor<8x4xf32>) {
    ^bb0(%in: i64, %out: f32):
      %row = arith.index_cast %in : i64 to index
      %i = linalg.index 0 : index
      %col = linalg.index 1 : index
      %v = tensor.extract %gt[%row, %col] : tensor<16x4xf32>
      %ii = arith.index_cast %i : index to i64
      %f = arith.sitofp %ii : i64 to f32
      %s = arith.addf %v, %f : f32
      linalg.yield %s : f32
    } -> tensor<8x4xf32>
    dtensor.yield %r : tensor<8x4xf32>
  }
  return %y : !dtensor.tensor<8x4xf32, @tp, [shard<0>]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// A table split by rows (torch's vocabulary-parallel embedding) is not
// gathered: each rank reads the rows it holds, at the id less its offset,
// and yields 0 for the others, so the lookup is a partial sum, reduced once
// where a replicated value is needed.
// CHECK-LABEL: func.func @lookup_rows
// CHECK-SAME: (%[[IDS:.*]]: !dtensor.tensor<8xi64, @tp, [replicate]>, %[[TABLE:.*]]: !dtensor.tensor<64x4xf32, @tp, [shard<0>]>)
// CHECK-NOT: [shard<0>]> -> !dtensor.tensor<64x4xf32, @tp, [replicate]>
// CHECK: %[[L:.*]] = dtensor.local_region on @tp args(%[[IDS]] as "a0", %{{.*}} as "a1", %[[TABLE]] as "a2") out_placements = [partial<sum>]
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<8xi64>, %{{.*}}: tensor<8x4xf32>, %[[T:.*]]: tensor<16x4xf32>):
// CHECK: %[[RANK:.*]] = dtensor.axis_index @tp "tp" : index
// CHECK: %[[OFF:.*]] = arith.muli %[[RANK]], %c16
// CHECK: linalg.generic
// CHECK: %[[ROW:.*]] = arith.index_cast
// CHECK: %[[LOCAL:.*]] = arith.subi %[[ROW]], %[[OFF]] : index
// CHECK: %[[GE:.*]] = arith.cmpi sge, %[[LOCAL]]
// CHECK: %[[LT:.*]] = arith.cmpi slt, %[[LOCAL]], %c16
// CHECK: %[[HELD:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK: %[[SAFE:.*]] = arith.select %[[HELD]], %[[LOCAL]]
// CHECK: %[[V:.*]] = tensor.extract %[[T]][%[[SAFE]], %{{.*}}] : tensor<16x4xf32>
// CHECK: %[[Y:.*]] = arith.select %[[HELD]], %[[V]], %{{.*}} : f32
// CHECK: linalg.yield %[[Y]] : f32
// CHECK: dtensor.redistribute %[[L]] : !dtensor.tensor<8x4xf32, @tp, [partial<sum>]> -> !dtensor.tensor<8x4xf32, @tp, [replicate]>
func.func @lookup_rows(%ids: !dtensor.tensor<8xi64, @tp, [replicate]>, %table: !dtensor.tensor<64x4xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8x4xf32, @tp, [replicate]> {
  %y = dtensor.global_region on @tp args(%ids, %table) : (!dtensor.tensor<8xi64, @tp, [replicate]>, !dtensor.tensor<64x4xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8x4xf32, @tp, [replicate]> {
  ^bb0(%gi: tensor<8xi64>, %gt: tensor<64x4xf32>):
    %e = tensor.empty() : tensor<8x4xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%gi : tensor<8xi64>) outs(%e : tensor<8x4xf32>) {
    ^bb0(%in: i64, %out: f32):
      %row = arith.index_cast %in : i64 to index
      %col = linalg.index 1 : index
      %v = tensor.extract %gt[%row, %col] : tensor<64x4xf32>
      linalg.yield %v : f32
    } -> tensor<8x4xf32>
    dtensor.yield %r : tensor<8x4xf32>
  }
  return %y : !dtensor.tensor<8x4xf32, @tp, [replicate]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// A table split by columns, the dim the loop's index reads (torch's
// column-wise embedding): the loop splits alike and each rank reads its
// columns at the local index; the table is not gathered.
// CHECK-LABEL: func.func @lookup_columns
// CHECK-NOT: !dtensor.tensor<16x8xf32, @tp, [replicate]>
// CHECK: dtensor.local_region on @tp args(%{{.*}} as "a0", %{{.*}} as "a1", %{{.*}} as "a2") out_placements = [shard<1>]
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<8xi64>, %{{.*}}: tensor<8x2xf32>, %[[T:.*]]: tensor<16x2xf32>):
// CHECK: linalg.generic
// CHECK: %[[ROW:.*]] = arith.index_cast
// CHECK: %[[COL:.*]] = linalg.index 1 : index
// CHECK-NEXT: tensor.extract %[[T]][%[[ROW]], %[[COL]]] : tensor<16x2xf32>
// CHECK: return
func.func @lookup_columns(%ids: !dtensor.tensor<8xi64, @tp, [replicate]>, %table: !dtensor.tensor<16x8xf32, @tp, [shard<1>]>) -> !dtensor.tensor<8x8xf32, @tp, [shard<1>]> {
  %y = dtensor.global_region on @tp args(%ids, %table) : (!dtensor.tensor<8xi64, @tp, [replicate]>, !dtensor.tensor<16x8xf32, @tp, [shard<1>]>) -> !dtensor.tensor<8x8xf32, @tp, [shard<1>]> {
  ^bb0(%gi: tensor<8xi64>, %gt: tensor<16x8xf32>):
    %e = tensor.empty() : tensor<8x8xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%gi : tensor<8xi64>) outs(%e : tensor<8x8xf32>) {
    ^bb0(%in: i64, %out: f32):
      %row = arith.index_cast %in : i64 to index
      %col = linalg.index 1 : index
      %v = tensor.extract %gt[%row, %col] : tensor<16x8xf32>
      linalg.yield %v : f32
    } -> tensor<8x8xf32>
    dtensor.yield %r : tensor<8x8xf32>
  }
  return %y : !dtensor.tensor<8x8xf32, @tp, [shard<1>]>
}

// -----

dtensor.mesh @dp shape = [2] names = ["dp"]

// transformers' padding mask: the batch's mask read at the loop's index
// wrapped for negative values (torch-mlir's `i < 0 ? i + n : i`, which an
// iteration index never takes) and combined with the scores, not yielded as
// is. The mask splits by batch with the scores and each rank reads its rows
// at a local index: nothing is gathered.
// CHECK-LABEL: func.func @wrapped_mask_read
// CHECK-SAME: (%[[S:.*]]: !dtensor.tensor<4x8xf32, @dp, [shard<0>]>, %[[MASK:.*]]: !dtensor.tensor<4x8xi8, @dp, [shard<0>]>)
// CHECK-NOT: dtensor.redistribute %[[MASK]]
// CHECK: dtensor.local_region on @dp args(%[[S]] as "a0", %{{.*}} as "a1", %[[MASK]] as "a2", {{.*}} out_placements = [shard<0>]
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<2x8xf32>, %{{.*}}: tensor<2x8xf32>, %[[M:.*]]: tensor<2x8xi8>, {{.*}}):
// CHECK: linalg.generic
// CHECK-NOT: arith.select
// CHECK: %[[B:.*]] = linalg.index 0 : index
// CHECK-NEXT: tensor.extract %[[M]][%[[B]], %{{.*}}] : tensor<2x8xi8>
// CHECK: return
func.func @wrapped_mask_read(%s: !dtensor.tensor<4x8xf32, @dp, [shard<0>]>, %mask: !dtensor.tensor<4x8xi8, @dp, [shard<0>]>) -> !dtensor.tensor<4x8xf32, @dp, [shard<0>]> {
  %y = dtensor.global_region on @dp args(%s, %mask) : (!dtensor.tensor<4x8xf32, @dp, [shard<0>]>, !dtensor.tensor<4x8xi8, @dp, [shard<0>]>) -> !dtensor.tensor<4x8xf32, @dp, [shard<0>]> {
  ^bb0(%gs: tensor<4x8xf32>, %gm: tensor<4x8xi8>):
    %c0 = arith.constant 0 : i64
    %c4 = arith.constant 4 : i64
    %ninf = arith.constant 0xFF800000 : f32
    %e = tensor.empty() : tensor<4x8xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(b, k) -> (b, k)>, affine_map<(b, k) -> (b, k)>], iterator_types = ["parallel", "parallel"]} ins(%gs : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
    ^bb0(%in: f32, %out: f32):
      %b = linalg.index 0 : index
      %bi = arith.index_cast %b : index to i64
      %neg = arith.cmpi slt, %bi, %c0 : i64
      %up = arith.addi %bi, %c4 : i64
      %w = arith.select %neg, %up, %bi : i64
      %row = arith.index_cast %w : i64 to index
      %k = linalg.index 1 : index
      %m = tensor.extract %gm[%row, %k] : tensor<4x8xi8>
      %keep = arith.trunci %m : i8 to i1
      %v = arith.select %keep, %in, %ninf : f32
      linalg.yield %v : f32
    } -> tensor<4x8xf32>
    dtensor.yield %r : tensor<4x8xf32>
  }
  return %y : !dtensor.tensor<4x8xf32, @dp, [shard<0>]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

func.func @nested_local_region(%x: !dtensor.tensor<8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8xf32, @tp, [replicate]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8xf32, @tp, [replicate]> {
  ^bb0(%g: tensor<8xf32>):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r = scf.for %i = %c0 to %c1 step %c1 iter_args(%acc = %g) -> tensor<8xf32> {
      // expected-error @+1 {{inside another op of a dtensor.global_region body is not supported yet by dtensor-propagate: place it at the top level of the body}}
      %l = dtensor.local_region on @tp args(%acc as "a") in_placements = {a = [shard<0>]} out_placements = [shard<0>] : (tensor<8xf32>) -> tensor<8xf32> {
      ^bb0(%al: tensor<2xf32>):
        dtensor.yield %al : tensor<2xf32>
      }
      scf.yield %l : tensor<8xf32>
    }
    dtensor.yield %r : tensor<8xf32>
  }
  return %y : !dtensor.tensor<8xf32, @tp, [replicate]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// dtensor-expand-local-regions leaves a local_region in a global_region to
// propagation: its operands are global values, not DTensors.
// RUN: hp-opt %s -split-input-file -dtensor-expand-local-regions -allow-unregistered-dialect 2>&1 | FileCheck %s --check-prefix=EXPAND
// EXPAND-LABEL: func.func @expand_leaves_global_view
// EXPAND: dtensor.global_region
// EXPAND: dtensor.local_region on @tp args(%{{.*}} as "g") in_placements = {g = [shard<0>]}
func.func @expand_leaves_global_view(%x: !dtensor.tensor<8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8xf32, @tp, [shard<0>]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8xf32, @tp, [shard<0>]> {
  ^bb0(%g: tensor<8xf32>):
    %l = dtensor.local_region on @tp args(%g as "g") in_placements = {g = [shard<0>]} out_placements = [shard<0>] : (tensor<8xf32>) -> tensor<8xf32> {
    ^bb0(%a: tensor<2xf32>):
      %d = arith.addf %a, %a : tensor<2xf32>
      dtensor.yield %d : tensor<2xf32>
    }
    dtensor.yield %l : tensor<8xf32>
  }
  return %y : !dtensor.tensor<8xf32, @tp, [shard<0>]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// A sharded reduction loop leaves partial results of the combiner's kind;
// the init is made partial locally (the op's identity off its block).
// CHECK-LABEL: func.func @reduce_max
// CHECK: %[[I:.*]] = dtensor.redistribute %{{.*}} : !dtensor.tensor<8xf32, @tp, [shard<0>]> -> !dtensor.tensor<8xf32, @tp, [partial<max>]>
// CHECK: %[[M:.*]] = dtensor.local_region on @tp args(%{{.*}} as "a0", %[[I]] as "a1") out_placements = [partial<max>]
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<8x4xf32>, %{{.*}}: tensor<8xf32>):
// CHECK: linalg.reduce
// CHECK: dtensor.redistribute %[[M]] : !dtensor.tensor<8xf32, @tp, [partial<max>]> -> !dtensor.tensor<8xf32, @tp, [replicate]>
func.func @reduce_max(%x: !dtensor.tensor<8x16xf32, @tp, [shard<1>]>) -> !dtensor.tensor<8xf32, @tp, [replicate]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8x16xf32, @tp, [shard<1>]>) -> !dtensor.tensor<8xf32, @tp, [replicate]> {
  ^bb0(%g: tensor<8x16xf32>):
    %ninf = arith.constant 0xFF800000 : f32
    %e = tensor.empty() : tensor<8xf32>
    %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
    %m = linalg.reduce ins(%g : tensor<8x16xf32>) outs(%f : tensor<8xf32>) dimensions = [1]
      (%in: f32, %acc: f32) {
        %mx = arith.maximumf %in, %acc : f32
        linalg.yield %mx : f32
      }
    dtensor.yield %m : tensor<8xf32>
  }
  return %y : !dtensor.tensor<8xf32, @tp, [replicate]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// Partial sums pass through bodies linear in them (times a finite
// constant, negation): nothing moves.
// CHECK-LABEL: func.func @linear
// CHECK-NOT: dtensor.redistribute
// CHECK: out_placements = [partial<sum>]
// CHECK: arith.mulf
// CHECK: out_placements = [partial<sum>]
// CHECK: arith.negf
// CHECK-NOT: dtensor.redistribute
// CHECK: return
func.func @linear(%x: !dtensor.tensor<8xf32, @tp, [partial<sum>]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8xf32, @tp, [partial<sum>]>) -> !dtensor.tensor<8xf32, @tp, [partial<sum>]> {
  ^bb0(%g: tensor<8xf32>):
    %c = arith.constant dense<[1.0, -0.5, 0.5, 0.0, 0.25, 1.0, 1.0, -1.0]> : tensor<8xf32>
    %m = arith.mulf %g, %c : tensor<8xf32>
    %n = arith.negf %m : tensor<8xf32>
    dtensor.yield %n : tensor<8xf32>
  }
  return %y : !dtensor.tensor<8xf32, @tp, [partial<sum>]>
}

// exp is not linear: the partial sum is reduced first (scattered, since
// the result is split).
// CHECK-LABEL: func.func @nonlinear
// CHECK: %[[S:.*]] = dtensor.redistribute %{{.*}} : !dtensor.tensor<8xf32, @tp, [partial<sum>]> -> !dtensor.tensor<8xf32, @tp, [shard<0>]>
// CHECK: dtensor.local_region on @tp args(%[[S]] as "a0") out_placements = [shard<0>]
// CHECK: math.exp %{{.*}} : tensor<2xf32>
func.func @nonlinear(%x: !dtensor.tensor<8xf32, @tp, [partial<sum>]>) -> !dtensor.tensor<8xf32, @tp, [shard<0>]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8xf32, @tp, [partial<sum>]>) -> !dtensor.tensor<8xf32, @tp, [shard<0>]> {
  ^bb0(%g: tensor<8xf32>):
    %m = math.exp %g : tensor<8xf32>
    dtensor.yield %m : tensor<8xf32>
  }
  return %y : !dtensor.tensor<8xf32, @tp, [shard<0>]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// linalg.index of a sharded loop gets the rank's offset: coordinate * 2.
// CHECK-LABEL: func.func @index
// CHECK: dtensor.local_region
// CHECK: %[[C:.*]] = dtensor.axis_index @tp "tp" : index
// CHECK: %[[OFF:.*]] = arith.muli %[[C]], %{{.*}} : index
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT: arith.addi %[[I]], %{{.*}} : index
func.func @index(%x: !dtensor.tensor<8x6xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8x6xf32, @tp, [shard<0>]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8x6xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8x6xf32, @tp, [shard<0>]> {
  ^bb0(%g: tensor<8x6xf32>):
    %e = tensor.empty() : tensor<8x6xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
        ins(%g : tensor<8x6xf32>) outs(%e : tensor<8x6xf32>) {
    ^bb0(%in: f32, %out: f32):
      %i = linalg.index 0 : index
      %ii = arith.index_cast %i : index to i64
      %fi = arith.sitofp %ii : i64 to f32
      %s = arith.addf %in, %fi : f32
      linalg.yield %s : f32
    } -> tensor<8x6xf32>
    dtensor.yield %r : tensor<8x6xf32>
  }
  return %y : !dtensor.tensor<8x6xf32, @tp, [shard<0>]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// expand_shape carries a split to the outer dim of its group.
// CHECK-LABEL: func.func @heads
// CHECK-NOT: dtensor.redistribute
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [16, 1, 8] : tensor<16x8xf32> into tensor<16x1x8xf32>
func.func @heads(%x: !dtensor.tensor<16x32xf32, @tp, [shard<1>]>) -> !dtensor.tensor<16x4x8xf32, @tp, [shard<1>]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<16x32xf32, @tp, [shard<1>]>) -> !dtensor.tensor<16x4x8xf32, @tp, [shard<1>]> {
  ^bb0(%g: tensor<16x32xf32>):
    %h = tensor.expand_shape %g [[0], [1, 2]] output_shape [16, 4, 8] : tensor<16x32xf32> into tensor<16x4x8xf32>
    dtensor.yield %h : tensor<16x4x8xf32>
  }
  return %y : !dtensor.tensor<16x4x8xf32, @tp, [shard<1>]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// Groups that only add or drop unit dims keep an uneven split (2 rows over
// 4 ranks: two empty pieces), in both directions; a real split of a dim
// (8 into 2x4) still needs pieces that line up.
// CHECK-LABEL: func.func @unit_dims_uneven
// CHECK-NOT: dtensor.redistribute
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [%{{.*}}, 1, 8] : tensor<?x8xf32> into tensor<?x1x8xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<?x1x8xf32> into tensor<?x8xf32>
// CHECK: return
func.func @unit_dims_uneven(%x: !dtensor.tensor<2x8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<2x8xf32, @tp, [shard<0>]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<2x8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<2x8xf32, @tp, [shard<0>]> {
  ^bb0(%g: tensor<2x8xf32>):
    %h = tensor.expand_shape %g [[0, 1], [2]] output_shape [2, 1, 8] : tensor<2x8xf32> into tensor<2x1x8xf32>
    %c = tensor.collapse_shape %h [[0, 1], [2]] : tensor<2x1x8xf32> into tensor<2x8xf32>
    dtensor.yield %c : tensor<2x8xf32>
  }
  return %y : !dtensor.tensor<2x8xf32, @tp, [shard<0>]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// A unit dim in front of a group's split dim (torch's [1, t, d] around a
// matmul) carries nothing: the split goes to the first dim that is not 1,
// both ways (64 over 4), and with a dim after it, where the pieces must line
// up (32 into 1 x 16 x 2: 16 over 4).
// CHECK-LABEL: func.func @leading_unit_dims
// CHECK-NOT: dtensor.redistribute
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [1, 16, 8] : tensor<16x8xf32> into tensor<1x16x8xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<1x16x8xf32> into tensor<16x8xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1, 2], [3]] output_shape [1, 4, 2, 8] : tensor<8x8xf32> into tensor<1x4x2x8xf32>
// CHECK: return
func.func @leading_unit_dims(%x: !dtensor.tensor<64x8xf32, @tp, [shard<0>]>, %z: !dtensor.tensor<32x8xf32, @tp, [shard<0>]>) -> (!dtensor.tensor<64x8xf32, @tp, [shard<0>]>, !dtensor.tensor<1x16x2x8xf32, @tp, [shard<1>]>) {
  %y, %w = dtensor.global_region on @tp args(%x, %z) : (!dtensor.tensor<64x8xf32, @tp, [shard<0>]>, !dtensor.tensor<32x8xf32, @tp, [shard<0>]>) -> (!dtensor.tensor<64x8xf32, @tp, [shard<0>]>, !dtensor.tensor<1x16x2x8xf32, @tp, [shard<1>]>) {
  ^bb0(%g: tensor<64x8xf32>, %gz: tensor<32x8xf32>):
    %h = tensor.expand_shape %g [[0, 1], [2]] output_shape [1, 64, 8] : tensor<64x8xf32> into tensor<1x64x8xf32>
    %c = tensor.collapse_shape %h [[0, 1], [2]] : tensor<1x64x8xf32> into tensor<64x8xf32>
    %e = tensor.expand_shape %gz [[0, 1, 2], [3]] output_shape [1, 16, 2, 8] : tensor<32x8xf32> into tensor<1x16x2x8xf32>
    dtensor.yield %c, %e : tensor<64x8xf32>, tensor<1x16x2x8xf32>
  }
  return %y, %w : !dtensor.tensor<64x8xf32, @tp, [shard<0>]>, !dtensor.tensor<1x16x2x8xf32, @tp, [shard<1>]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// CHECK-LABEL: func.func @real_split_uneven
// CHECK: dtensor.redistribute
func.func @real_split_uneven(%x: !dtensor.tensor<2x8xf32, @tp, [shard<1>]>) -> !dtensor.tensor<2x2x4xf32, @tp, [shard<1>]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<2x8xf32, @tp, [shard<1>]>) -> !dtensor.tensor<2x2x4xf32, @tp, [shard<1>]> {
  ^bb0(%g: tensor<2x8xf32>):
    %h = tensor.expand_shape %g [[0], [1, 2]] output_shape [2, 2, 4] : tensor<2x8xf32> into tensor<2x2x4xf32>
    dtensor.yield %h : tensor<2x2x4xf32>
  }
  return %y : !dtensor.tensor<2x2x4xf32, @tp, [shard<1>]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// A dynamic shape cannot be a DTensor between ops: the body runs
// replicated in one region.
// CHECK-LABEL: func.func @dynamic
// CHECK: dtensor.redistribute %{{.*}} [shard<0>]> -> !dtensor.tensor<8xf32, @tp, [replicate]>
// CHECK: dtensor.local_region
// CHECK: tensor.cast
// CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<?xf32>
func.func @dynamic(%x: !dtensor.tensor<8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8xf32, @tp, [shard<0>]> {
  // expected-note @+1 {{the region}}
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8xf32, @tp, [shard<0>]> {
  ^bb0(%g: tensor<8xf32>):
    // expected-remark @+1 {{runs replicated: the whole dtensor.global_region does, because result #0 of 'tensor.cast' (tensor<?xf32>) cannot be a DTensor (a dynamic shape), so its ops stay together on whole tensors}}
    %d = tensor.cast %g : tensor<8xf32> to tensor<?xf32>
    %a = arith.addf %d, %d : tensor<?xf32>
    %s = tensor.cast %a : tensor<?xf32> to tensor<8xf32>
    dtensor.yield %s : tensor<8xf32>
  }
  return %y : !dtensor.tensor<8xf32, @tp, [shard<0>]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// No plan changes the reduction of a partial: partial<max> to partial<sum>
// goes through replicate.
// CHECK-LABEL: func.func @partial_kinds
// CHECK: %[[R:.*]] = dtensor.redistribute %{{.*}} : !dtensor.tensor<4xf32, @tp, [partial<max>]> -> !dtensor.tensor<4xf32, @tp, [replicate]>
// CHECK: dtensor.redistribute %[[R]] : !dtensor.tensor<4xf32, @tp, [replicate]> -> !dtensor.tensor<4xf32, @tp, [partial<sum>]>
func.func @partial_kinds(%p: !dtensor.tensor<4xf32, @tp, [partial<max>]>) -> !dtensor.tensor<4xf32, @tp, [partial<sum>]> {
  %r = dtensor.global_region on @tp args(%p)
      : (!dtensor.tensor<4xf32, @tp, [partial<max>]>) -> !dtensor.tensor<4xf32, @tp, [partial<sum>]> {
  ^bb0(%a: tensor<4xf32>):
    dtensor.yield %a : tensor<4xf32>
  }
  return %r : !dtensor.tensor<4xf32, @tp, [partial<sum>]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// A slice with an offset computed in the body runs replicated (its index
// values stay with it), and a padding value that reads its row index keeps
// the rows whole.
// CHECK-LABEL: func.func @dynamic_offsets_and_pad_index
// CHECK: dtensor.local_region on @tp args(%{{.*}} as "a0", %{{.*}} as "a1") out_placements = [replicate]
// CHECK: tensor.extract_slice %{{.*}}[%{{.*}}, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>
// CHECK: dtensor.local_region on @tp args(%{{.*}} as "a0") out_placements = [replicate]
// CHECK: tensor.pad %{{.*}} low[0, 1] high[0, 1]
// CHECK: : tensor<8x8xf32> to tensor<8x10xf32>
func.func @dynamic_offsets_and_pad_index(%x: !dtensor.tensor<8x8xf32, @tp, [shard<1>]>) -> (!dtensor.tensor<4x8xf32, @tp, [shard<1>]>, !dtensor.tensor<8x10xf32, @tp, [shard<0>]>) {
  %y, %z = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8x8xf32, @tp, [shard<1>]>) -> (!dtensor.tensor<4x8xf32, @tp, [shard<1>]>, !dtensor.tensor<8x10xf32, @tp, [shard<0>]>) {
  ^bb0(%g: tensor<8x8xf32>):
    %c2 = arith.constant 2 : index
    // expected-remark @+1 {{runs replicated (no sharding rule for this op)}}
    %s = tensor.extract_slice %g[%c2, 0] [4, 8] [1, 1] : tensor<8x8xf32> to tensor<4x8xf32>
    %p = tensor.pad %g low[0, 1] high[0, 1] {
    ^bb0(%i: index, %j: index):
      %i64 = arith.index_cast %i : index to i64
      %f = arith.sitofp %i64 : i64 to f32
      tensor.yield %f : f32
    } : tensor<8x8xf32> to tensor<8x10xf32>
    dtensor.yield %s, %p : tensor<4x8xf32>, tensor<8x10xf32>
  }
  return %y, %z : !dtensor.tensor<4x8xf32, @tp, [shard<1>]>, !dtensor.tensor<8x10xf32, @tp, [shard<0>]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

// An i1 mask cannot be a DTensor: the body runs replicated in one region,
// where a constraint pins nothing; the output has no i1 DTensor (it parses
// again).
// CHECK-LABEL: func.func @mask
// CHECK-NOT: xi1, @tp
// CHECK: dtensor.local_region
// CHECK: arith.cmpf
// CHECK-NOT: dtensor.constrain
// CHECK: arith.select
// CHECK-NOT: xi1, @tp
func.func @mask(%x: !dtensor.tensor<8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8xf32, @tp, [shard<0>]> {
  // expected-note @+1 {{the region}}
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8xf32, @tp, [shard<0>]> {
  ^bb0(%g: tensor<8xf32>):
    %z = arith.constant dense<0.0> : tensor<8xf32>
    // expected-remark @+1 {{runs replicated: the whole dtensor.global_region does, because result #0 of 'arith.cmpf' (tensor<8xi1>) cannot be a DTensor (an element type NCCL does not move)}}
    %m = arith.cmpf ogt, %g, %z : tensor<8xf32>
    %c = dtensor.constrain %m [replicate] : tensor<8xi1>
    %s = arith.select %c, %g, %z : tensor<8xi1>, tensor<8xf32>
    dtensor.yield %s : tensor<8xf32>
  }
  return %y : !dtensor.tensor<8xf32, @tp, [shard<0>]>
}

// -----

dtensor.mesh @tp shape = [4] names = ["tp"]

func.func @unranked(%x: !dtensor.tensor<8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8xf32, @tp, [shard<0>]> {
  %y = dtensor.global_region on @tp args(%x) : (!dtensor.tensor<8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8xf32, @tp, [shard<0>]> {
  ^bb0(%g: tensor<8xf32>):
    // expected-error @+1 {{yields an unranked tensor, which dtensor-propagate cannot place: give it a ranked type}}
    %u = tensor.cast %g : tensor<8xf32> to tensor<*xf32>
    %r = tensor.cast %u : tensor<*xf32> to tensor<8xf32>
    dtensor.yield %r : tensor<8xf32>
  }
  return %y : !dtensor.tensor<8xf32, @tp, [shard<0>]>
}
