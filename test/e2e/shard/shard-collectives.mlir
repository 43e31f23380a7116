// Upstream shard collectives (the kind shard-partition emits, and those hp
// does not emit itself) run through convert-shard-to-nccl on 4 ranks. Every
// expected value is a closed formula of the rank's coordinates (c0, c1).
// REQUIRES: mpi
// RUN: %hp-runner -np 4 %s -e main --entry-point-result=void > %t
// RUN: FileCheck %s < %t
// RUN: not grep FAIL %t
// CHECK-COUNT-36: ok

shard.grid @g(shape = 2x2)

// value[a, b] = base + a * rs + b * cs
func.func @affine(%rows: index, %cols: index, %base: index, %rs: index, %cs: index) -> tensor<?x?xf32> {
  %e = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<?x?xf32>) {
  ^bb0(%out: f32):
    %a = linalg.index 0 : index
    %b = linalg.index 1 : index
    %x = arith.muli %a, %rs : index
    %y = arith.muli %b, %cs : index
    %s = arith.addi %x, %y : index
    %v = arith.addi %s, %base : index
    %i = arith.index_cast %v : index to i64
    %f = arith.sitofp %i : i64 to f32
    linalg.yield %f : f32
  } -> tensor<?x?xf32>
  return %t : tensor<?x?xf32>
}

func.func @check(%got: tensor<?x?xf32>, %want: tensor<?x?xf32>) -> i1 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %g0 = tensor.dim %got, %c0 : tensor<?x?xf32>
  %g1 = tensor.dim %got, %c1 : tensor<?x?xf32>
  %w0 = tensor.dim %want, %c0 : tensor<?x?xf32>
  %w1 = tensor.dim %want, %c1 : tensor<?x?xf32>
  %e0 = arith.cmpi eq, %g0, %w0 : index
  %e1 = arith.cmpi eq, %g1, %w1 : index
  %same = arith.andi %e0, %e1 : i1
  %ok = scf.if %same -> i1 {
    %zero = arith.constant 0 : i64
    %init = tensor.from_elements %zero : tensor<i64>
    %n = linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> ()>],
                         iterator_types = ["reduction", "reduction"]}
        ins(%got, %want : tensor<?x?xf32>, tensor<?x?xf32>) outs(%init : tensor<i64>) {
    ^bb0(%x: f32, %y: f32, %acc: i64):
      %ne = arith.cmpf une, %x, %y : f32
      %one = arith.extui %ne : i1 to i64
      %s = arith.addi %acc, %one : i64
      linalg.yield %s : i64
    } -> tensor<i64>
    %v = tensor.extract %n[] : tensor<i64>
    %z = arith.cmpi eq, %v, %zero : i64
    scf.yield %z : i1
  } else {
    %false = arith.constant false
    scf.yield %false : i1
  }
  return %ok : i1
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
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c10 = arith.constant 10 : index
  %c16 = arith.constant 16 : index
  %c20 = arith.constant 20 : index
  %c60 = arith.constant 60 : index
  %i:2 = shard.process_multi_index on @g : index, index
  %r = shard.process_linear_index on @g : index
  %r10 = arith.muli %r, %c10 : index
  %x = func.call @affine(%c1, %c4, %r10, %c0, %c1) : (index, index, index, index, index) -> tensor<?x?xf32>
  %x14 = tensor.cast %x : tensor<?x?xf32> to tensor<1x4xf32>

  // broadcast from (1, c1) along axis 0: (2 + c1) * 10 + b.
  %b = shard.broadcast %x14 on @g grid_axes = [0] root = [1] : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %bb = arith.addi %i#1, %c2 : index
  %bb10 = arith.muli %bb, %c10 : index
  %bw = func.call @affine(%c1, %c4, %bb10, %c0, %c1) : (index, index, index, index, index) -> tensor<?x?xf32>
  %bd = tensor.cast %b : tensor<1x4xf32> to tensor<?x?xf32>
  %bok = func.call @check(%bd, %bw) : (tensor<?x?xf32>, tensor<?x?xf32>) -> i1
  func.call @report(%bok) : (i1) -> ()

  // broadcast along axis 1 from a root known at run time, c1 = c0 (the
  // same on every rank of the group): (2 * c0 + c0) * 10 + b.
  %db = shard.broadcast %x14 on @g grid_axes = [1] root = [%i#0] : (tensor<1x4xf32>, index) -> tensor<1x4xf32>
  %c30 = arith.constant 30 : index
  %db30 = arith.muli %i#0, %c30 : index
  %dbw = func.call @affine(%c1, %c4, %db30, %c0, %c1) : (index, index, index, index, index) -> tensor<?x?xf32>
  %dbd = tensor.cast %db : tensor<1x4xf32> to tensor<?x?xf32>
  %dbok = func.call @check(%dbd, %dbw) : (tensor<?x?xf32>, tensor<?x?xf32>) -> i1
  func.call @report(%dbok) : (i1) -> ()

  // gather along axis 0 over grid axis 1: row j is rank (c0, j).
  %g = shard.gather %x14 on @g grid_axes = [1] gather_axis = 0 root = [0] : (tensor<1x4xf32>) -> tensor<2x4xf32>
  %gb = arith.muli %i#0, %c20 : index
  %gw = func.call @affine(%c2, %c4, %gb, %c10, %c1) : (index, index, index, index, index) -> tensor<?x?xf32>
  %gd = tensor.cast %g : tensor<2x4xf32> to tensor<?x?xf32>
  %gok = func.call @check(%gd, %gw) : (tensor<?x?xf32>, tensor<?x?xf32>) -> i1
  func.call @report(%gok) : (i1) -> ()

  // reduce (sum) over both axes: 60 + 4b.
  %s = shard.reduce %x14 on @g grid_axes = [0, 1] root = [0, 0] : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %sw = func.call @affine(%c1, %c4, %c60, %c0, %c4) : (index, index, index, index, index) -> tensor<?x?xf32>
  %sd = tensor.cast %s : tensor<1x4xf32> to tensor<?x?xf32>
  %sok = func.call @check(%sd, %sw) : (tensor<?x?xf32>, tensor<?x?xf32>) -> i1
  func.call @report(%sok) : (i1) -> ()

  // scatter (c0, 0)'s row along axis 1 over grid axis 1: 20 c0 + 2 c1 + b.
  %sc = shard.scatter %x14 on @g grid_axes = [1] scatter_axis = 1 root = [0] : (tensor<1x4xf32>) -> tensor<1x2xf32>
  %scb0 = arith.muli %i#0, %c20 : index
  %scb1 = arith.muli %i#1, %c2 : index
  %scb = arith.addi %scb0, %scb1 : index
  %scw = func.call @affine(%c1, %c2, %scb, %c0, %c1) : (index, index, index, index, index) -> tensor<?x?xf32>
  %scd = tensor.cast %sc : tensor<1x2xf32> to tensor<?x?xf32>
  %scok = func.call @check(%scd, %scw) : (tensor<?x?xf32>, tensor<?x?xf32>) -> i1
  func.call @report(%scok) : (i1) -> ()

  // shift by one along axis 1 (rotating): from (c0, (c1 + 1) mod 2).
  %sh = shard.shift %x14 on @g grid_axes = [1] shift_axis = 1 offset = 1 rotate : tensor<1x4xf32> -> tensor<1x4xf32>
  %n1 = arith.addi %i#1, %c1 : index
  %n1m = arith.remui %n1, %c2 : index
  %sr0 = arith.muli %i#0, %c2 : index
  %sr = arith.addi %sr0, %n1m : index
  %shb = arith.muli %sr, %c10 : index
  %shw = func.call @affine(%c1, %c4, %shb, %c0, %c1) : (index, index, index, index, index) -> tensor<?x?xf32>
  %shd = tensor.cast %sh : tensor<1x4xf32> to tensor<?x?xf32>
  %shok = func.call @check(%shd, %shw) : (tensor<?x?xf32>, tensor<?x?xf32>) -> i1
  func.call @report(%shok) : (i1) -> ()

  // all_to_all over grid axis 1, split rows, concat columns. Input
  // 2r + 8a + b; result column k: 4 c0 + 8 c1 + k.
  %r2 = arith.muli %r, %c2 : index
  %ax = func.call @affine(%c2, %c2, %r2, %c8, %c1) : (index, index, index, index, index) -> tensor<?x?xf32>
  %ax22 = tensor.cast %ax : tensor<?x?xf32> to tensor<2x2xf32>
  %a = shard.all_to_all %ax22 on @g grid_axes = [1] split_axis = 0 concat_axis = 1 : tensor<2x2xf32> -> tensor<1x4xf32>
  %ab0 = arith.muli %i#0, %c4 : index
  %ab1 = arith.muli %i#1, %c8 : index
  %ab = arith.addi %ab0, %ab1 : index
  %aw = func.call @affine(%c1, %c4, %ab, %c0, %c1) : (index, index, index, index, index) -> tensor<?x?xf32>
  %ad = tensor.cast %a : tensor<1x4xf32> to tensor<?x?xf32>
  %aok = func.call @check(%ad, %aw) : (tensor<?x?xf32>, tensor<?x?xf32>) -> i1
  func.call @report(%aok) : (i1) -> ()

  // reduce_scatter over [1, 0] along axis 1 of 10 r + 4a + b: column
  // k = 2 c1 + c0 of the sum, 60 + 16a + 4k.
  %rx = func.call @affine(%c2, %c4, %r10, %c4, %c1) : (index, index, index, index, index) -> tensor<?x?xf32>
  %rx24 = tensor.cast %rx : tensor<?x?xf32> to tensor<2x4xf32>
  %rs = shard.reduce_scatter %rx24 on @g grid_axes = [1, 0] scatter_axis = 1 : tensor<2x4xf32> -> tensor<2x1xf32>
  %k0 = arith.muli %i#1, %c2 : index
  %k = arith.addi %k0, %i#0 : index
  %k4 = arith.muli %k, %c4 : index
  %rsb = arith.addi %k4, %c60 : index
  %rsw = func.call @affine(%c2, %c1, %rsb, %c16, %c0) : (index, index, index, index, index) -> tensor<?x?xf32>
  %rsd = tensor.cast %rs : tensor<2x1xf32> to tensor<?x?xf32>
  %rsok = func.call @check(%rsd, %rsw) : (tensor<?x?xf32>, tensor<?x?xf32>) -> i1
  func.call @report(%rsok) : (i1) -> ()

  // all_gather over [1, 0] along axis 1 of each rank's in-group index
  // (2 c1 + c0): the result is 0, 1, 2, 3 in listed-axis order.
  %gx = func.call @affine(%c1, %c1, %k, %c0, %c0) : (index, index, index, index, index) -> tensor<?x?xf32>
  %gx11 = tensor.cast %gx : tensor<?x?xf32> to tensor<1x1xf32>
  %ag = shard.all_gather %gx11 on @g grid_axes = [1, 0] gather_axis = 1 : tensor<1x1xf32> -> tensor<1x4xf32>
  %agw = func.call @affine(%c1, %c4, %c0, %c0, %c1) : (index, index, index, index, index) -> tensor<?x?xf32>
  %agd = tensor.cast %ag : tensor<1x4xf32> to tensor<?x?xf32>
  %agok = func.call @check(%agd, %agw) : (tensor<?x?xf32>, tensor<?x?xf32>) -> i1
  func.call @report(%agok) : (i1) -> ()
  return
}
