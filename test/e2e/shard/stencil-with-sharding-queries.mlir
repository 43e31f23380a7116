// A program in the shape upstream's shard-partition leaves behind: a
// function returning its result's !shard.sharding, a halo exchange before a
// 3-point stencil, and the grid queries (grid_shape, process_linear_index,
// shard_shape, neighbors_linear_indices). It runs through the whole CPU
// pipeline on 4 ranks. X[g, j] = 3 g + j + 1 on 12 x 3; each rank holds 3
// rows plus one halo row on each side, zero at the ends of the grid, so the
// stencil is the zero-padded global one: X[g-1] + X[g] + X[g+1].
// REQUIRES: mpi
// RUN: hp-opt %s --hp-lower-to-cpu -o %t.mlir
// RUN: %hp-runner -np 4 %t.mlir -e main --entry-point-result=void > %t.out
// RUN: FileCheck %s < %t.out
// RUN: not grep FAIL %t.out
// CHECK-COUNT-16: ok

shard.grid @grid(shape = 4)

func.func @stencil_step(%local: tensor<5x3xf32>) -> (tensor<5x3xf32>, !shard.sharding) {
  %s = shard.sharding @grid split_axes = [[0]] halo_sizes = [1, 1] : !shard.sharding
  %h = shard.update_halo %local on @grid split_axes = [[0]] halo_sizes = [1, 1] : tensor<5x3xf32>
  %e = tensor.empty() : tensor<5x3xf32>
  %out = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<5x3xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %zero = arith.constant 0.0 : f32
    %first = arith.cmpi eq, %i, %c0 : index
    %last = arith.cmpi eq, %i, %c4 : index
    %edge = arith.ori %first, %last : i1
    %r = scf.if %edge -> f32 {
      scf.yield %zero : f32
    } else {
      %im = arith.subi %i, %c1 : index
      %ip = arith.addi %i, %c1 : index
      %a = tensor.extract %h[%im, %j] : tensor<5x3xf32>
      %b = tensor.extract %h[%i, %j] : tensor<5x3xf32>
      %c = tensor.extract %h[%ip, %j] : tensor<5x3xf32>
      %ab = arith.addf %a, %b : f32
      %abc = arith.addf %ab, %c : f32
      scf.yield %abc : f32
    }
    linalg.yield %r : f32
  } -> tensor<5x3xf32>
  return %out, %s : tensor<5x3xf32>, !shard.sharding
}

// X[g, j] for local row i (halo rows included) of rank r, 0 outside the
// global rows [0, 12) or, with `halos` false, outside this rank's core.
func.func @local_block(%r: index, %stencil: i1) -> tensor<5x3xf32> {
  %e = tensor.empty() : tensor<5x3xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<5x3xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c12 = arith.constant 12 : index
    %zero = arith.constant 0.0 : f32
    %start = arith.muli %r, %c3 : index
    %gp = arith.addi %start, %i : index
    // g = 3 r + i - 1, as a signed value
    %gi = arith.index_cast %gp : index to i64
    %one = arith.constant 1 : i64
    %g = arith.subi %gi, %one : i64
    %x = scf.for %k = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> f32 {
      // the stencil sums rows g-1, g, g+1; the input is row g alone
      %kk = arith.index_cast %k : index to i64
      %row0 = arith.addi %g, %kk : i64
      %row = arith.subi %row0, %one : i64
      %use = scf.if %stencil -> i1 {
        %true = arith.constant true
        scf.yield %true : i1
      } else {
        %is = arith.cmpi eq, %kk, %one : i64
        scf.yield %is : i1
      }
      %zero64 = arith.constant 0 : i64
      %n64 = arith.constant 12 : i64
      %ge = arith.cmpi sge, %row, %zero64 : i64
      %lt = arith.cmpi slt, %row, %n64 : i64
      %in = arith.andi %ge, %lt : i1
      %take = arith.andi %in, %use : i1
      %three = arith.constant 3 : i64
      %jj = arith.index_cast %j : index to i64
      %v0 = arith.muli %row, %three : i64
      %v1 = arith.addi %v0, %jj : i64
      %v2 = arith.addi %v1, %one : i64
      %vf = arith.sitofp %v2 : i64 to f32
      %add = arith.select %take, %vf, %zero : f32
      %next = arith.addf %acc, %add : f32
      scf.yield %next : f32
    }
    // halo rows start at zero; the stencil result is defined on core rows
    %core0 = arith.cmpi uge, %i, %c1 : index
    %core1 = arith.cmpi ult, %i, %c4 : index
    %core = arith.andi %core0, %core1 : i1
    %v = arith.select %core, %x, %zero : f32
    linalg.yield %v : f32
  } -> tensor<5x3xf32>
  return %t : tensor<5x3xf32>
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
  %c4 = arith.constant 4 : index
  %m1 = arith.constant -1 : index
  %false = arith.constant false
  %true = arith.constant true
  %r = shard.process_linear_index on @grid : index

  %n = shard.grid_shape @grid : index
  %nok = arith.cmpi eq, %n, %c4 : index
  func.call @report(%nok) : (i1) -> ()

  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %rows, %cols = shard.shard_shape dims = [12, 3] sharding = %s device = [%r] : index, index
  %r3 = arith.cmpi eq, %rows, %c3 : index
  %c3c = arith.cmpi eq, %cols, %c3 : index
  %sok = arith.andi %r3, %c3c : i1
  func.call @report(%sok) : (i1) -> ()

  %down, %up = shard.neighbors_linear_indices on @grid[%r] split_axes = [0] : index, index
  %isfirst = arith.cmpi eq, %r, %c0 : index
  %rm = arith.subi %r, %c1 : index
  %wantdown = arith.select %isfirst, %m1, %rm : index
  %islast = arith.cmpi eq, %r, %c3 : index
  %rp = arith.addi %r, %c1 : index
  %wantup = arith.select %islast, %m1, %rp : index
  %dok = arith.cmpi eq, %down, %wantdown : index
  %uok = arith.cmpi eq, %up, %wantup : index
  %nbok = arith.andi %dok, %uok : i1
  func.call @report(%nbok) : (i1) -> ()

  %in = func.call @local_block(%r, %false) : (index, i1) -> tensor<5x3xf32>
  %got, %sharding = func.call @stencil_step(%in) : (tensor<5x3xf32>) -> (tensor<5x3xf32>, !shard.sharding)
  %want = func.call @local_block(%r, %true) : (index, i1) -> tensor<5x3xf32>
  %zero = arith.constant 0 : i64
  %init = tensor.from_elements %zero : tensor<i64>
  %bad = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                         iterator_types = ["reduction", "reduction"]}
      ins(%got, %want : tensor<5x3xf32>, tensor<5x3xf32>) outs(%init : tensor<i64>) {
  ^bb0(%x: f32, %y: f32, %acc: i64):
    %ne = arith.cmpf une, %x, %y : f32
    %o = arith.extui %ne : i1 to i64
    %sum = arith.addi %acc, %o : i64
    linalg.yield %sum : i64
  } -> tensor<i64>
  %nbad = tensor.extract %bad[] : tensor<i64>
  %ok = arith.cmpi eq, %nbad, %zero : i64
  func.call @report(%ok) : (i1) -> ()
  return
}
