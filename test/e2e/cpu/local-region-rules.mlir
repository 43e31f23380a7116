// Every local_region passthrough rule, run on 4 ranks with an uneven split
// (10 rows: 3, 3, 3, 1) and checked against values computed on one device.
// REQUIRES: mpi
// RUN: %hp-runner -np 4 %s -e main --entry-point-result=void > %t
// RUN: FileCheck %s < %t
// RUN: not grep FAIL %t
// CHECK-COUNT-20: ok

shard.grid @m(shape = 4)

!S = !dtensor.tensor<10x5xf32, @m, [shard<0>]>
!R = !dtensor.tensor<10x5xf32, @m, [replicate]>

// rows + bias, broadcast over rows.
func.func @add_bias(%rows: tensor<?x5xf32>, %bias: tensor<5xf32>) -> tensor<?x5xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %rows, %c0 : tensor<?x5xf32>
  %e = tensor.empty(%n) : tensor<?x5xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%rows, %bias : tensor<?x5xf32>, tensor<5xf32>) outs(%e : tensor<?x5xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<?x5xf32>
  return %r : tensor<?x5xf32>
}

func.func @regions(%x: !S, %bias: tensor<5xf32>)
    -> (!S, i64, tensor<?x5xf32>, !R, tensor<5xf32>) {
  // A plain operand enters unchanged; `none` passes the scalar through.
  %a, %n = dtensor.local_region on @m args(%x as "x", %bias as "bias")
      out_placements = [[shard<0>], none]
      : (!S, tensor<5xf32>) -> (!S, i64) {
  ^bb0(%l: tensor<?x5xf32>, %b: tensor<5xf32>):
    %y = func.call @add_bias(%l, %b) : (tensor<?x5xf32>, tensor<5xf32>) -> tensor<?x5xf32>
    %c0 = arith.constant 0 : index
    %rows = tensor.dim %l, %c0 : tensor<?x5xf32>
    %rows64 = arith.index_cast %rows : index to i64
    dtensor.yield %y, %rows64 : tensor<?x5xf32>, i64
  }
  // Absent out_placements: the raw local result.
  %raw = dtensor.local_region on @m args(%x as "x") : (!S) -> tensor<?x5xf32> {
  ^bb0(%l: tensor<?x5xf32>):
    %d = arith.addf %l, %l : tensor<?x5xf32>
    dtensor.yield %d : tensor<?x5xf32>
  }
  // redistribute_inputs gathers the rows at entry; a yielded DTensor is not
  // re-wrapped whatever its entry says.
  %full = dtensor.local_region on @m args(%x as "x") in_placements = {x = [replicate]}
      out_placements = [[shard<0>]] redistribute_inputs
      : (!S) -> !R {
  ^bb0(%l: tensor<10x5xf32>):
    %g = dtensor.from_local %l : tensor<10x5xf32> -> !R
    dtensor.yield %g : !R
  }
  // No DTensor operand: nothing is wrapped.
  %plain = dtensor.local_region on @m args(%bias as "bias") out_placements = [replicate]
      : (tensor<5xf32>) -> tensor<5xf32> {
  ^bb0(%b: tensor<5xf32>):
    %d = arith.addf %b, %b : tensor<5xf32>
    dtensor.yield %d : tensor<5xf32>
  }
  return %a, %n, %raw, %full, %plain : !S, i64, tensor<?x5xf32>, !R, tensor<5xf32>
}

// X[i, j] = 5 i + j.
func.func @x_rows(%first: index, %n: index) -> tensor<?x5xf32> {
  %e = tensor.empty(%n) : tensor<?x5xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<?x5xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c5 = arith.constant 5 : index
    %row = arith.addi %i, %first : index
    %a = arith.muli %row, %c5 : index
    %v = arith.addi %a, %j : index
    %v64 = arith.index_cast %v : index to i64
    %f = arith.sitofp %v64 : i64 to f32
    linalg.yield %f : f32
  } -> tensor<?x5xf32>
  return %t : tensor<?x5xf32>
}

func.func @same(%a: tensor<?x5xf32>, %b: tensor<?x5xf32>) {
  %c0 = arith.constant 0 : index
  %na = tensor.dim %a, %c0 : tensor<?x5xf32>
  %nb = tensor.dim %b, %c0 : tensor<?x5xf32>
  %eq = arith.cmpi eq, %na, %nb : index
  %ok = scf.if %eq -> i1 {
    %zero = arith.constant 0 : i64
    %init = tensor.from_elements %zero : tensor<i64>
    %cnt = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                           iterator_types = ["reduction", "reduction"]}
        ins(%a, %b : tensor<?x5xf32>, tensor<?x5xf32>) outs(%init : tensor<i64>) {
    ^bb0(%x: f32, %y: f32, %acc: i64):
      %ne = arith.cmpf une, %x, %y : f32
      %one = arith.extui %ne : i1 to i64
      %s = arith.addi %acc, %one : i64
      linalg.yield %s : i64
    } -> tensor<i64>
    %v = tensor.extract %cnt[] : tensor<i64>
    %z = arith.cmpi eq, %v, %zero : i64
    scf.yield %z : i1
  } else {
    %f = arith.constant false
    scf.yield %f : i1
  }
  func.call @report(%ok) : (i1) -> ()
  return
}

func.func @report(%ok: i1) {
  scf.if %ok {
    vector.print str "ok\n"
  } else {
    vector.print str "FAIL\n"
  }
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c10 = arith.constant 10 : index
  %x = func.call @x_rows(%c0, %c10) : (index, index) -> tensor<?x5xf32>
  %x10 = tensor.cast %x : tensor<?x5xf32> to tensor<10x5xf32>
  %bias = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<5xf32>
  %dr = dtensor.from_local %x10 : tensor<10x5xf32> -> !R
  %ds = dtensor.redistribute %dr : !R -> !S
  %a, %n, %raw, %full, %plain = func.call @regions(%ds, %bias)
      : (!S, tensor<5xf32>) -> (!S, i64, tensor<?x5xf32>, !R, tensor<5xf32>)

  // This rank's rows by torch.chunk: start 3r, count clamp(10 - 3r, 0, 3).
  %r = shard.process_linear_index on @m : index
  %start = arith.muli %r, %c3 : index
  %left = arith.subi %c10, %start : index
  %cnt0 = arith.minsi %left, %c3 : index
  %cnt = arith.maxsi %cnt0, %c0 : index

  // 1. The wrapped output, gathered: X + bias.
  %ar = dtensor.redistribute %a : !S -> !R
  %al = dtensor.to_local %ar : !R -> tensor<10x5xf32>
  %ald = tensor.cast %al : tensor<10x5xf32> to tensor<?x5xf32>
  %want_a = func.call @add_bias(%x, %bias) : (tensor<?x5xf32>, tensor<5xf32>) -> tensor<?x5xf32>
  func.call @same(%ald, %want_a) : (tensor<?x5xf32>, tensor<?x5xf32>) -> ()

  // 2. The scalar passed through `none`: this rank's row count.
  %cnt64 = arith.index_cast %cnt : index to i64
  %n_ok = arith.cmpi eq, %n, %cnt64 : i64
  func.call @report(%n_ok) : (i1) -> ()

  // 3. The raw local result: 2 X on this rank's rows.
  %mine = func.call @x_rows(%start, %cnt) : (index, index) -> tensor<?x5xf32>
  %want_raw = arith.addf %mine, %mine : tensor<?x5xf32>
  func.call @same(%raw, %want_raw) : (tensor<?x5xf32>, tensor<?x5xf32>) -> ()

  // 4. The yielded DTensor: X, replicated.
  %fl = dtensor.to_local %full : !R -> tensor<10x5xf32>
  %fld = tensor.cast %fl : tensor<10x5xf32> to tensor<?x5xf32>
  func.call @same(%fld, %x) : (tensor<?x5xf32>, tensor<?x5xf32>) -> ()

  // 5. No DTensor operand: 2 bias, plain.
  %pe = tensor.expand_shape %plain [[0, 1]] output_shape [1, 5] : tensor<5xf32> into tensor<1x5xf32>
  %ped = tensor.cast %pe : tensor<1x5xf32> to tensor<?x5xf32>
  %b2 = arith.addf %bias, %bias : tensor<5xf32>
  %be = tensor.expand_shape %b2 [[0, 1]] output_shape [1, 5] : tensor<5xf32> into tensor<1x5xf32>
  %bed = tensor.cast %be : tensor<1x5xf32> to tensor<?x5xf32>
  func.call @same(%ped, %bed) : (tensor<?x5xf32>, tensor<?x5xf32>) -> ()
  return
}
