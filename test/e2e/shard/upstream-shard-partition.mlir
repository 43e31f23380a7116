// Output of upstream's own shard-partition runs through hp's NCCL path:
// @f gathers a row-sharded 8x4 tensor; every rank checks the full tensor.
// REQUIRES: mpi
// @f is partitioned on its own (its signature changes), then spliced into
// this module, whose @main calls the partitioned signature.
// RUN: hp-opt %S/Inputs/gather-rows.mlir --pass-pipeline="builtin.module(func.func(shard-partition))" | sed -e '/^module {$/d' -e '/^}$/d' > %t.f.mlir
// mpirun forwards stdin to rank 0 only, so the spliced module goes to a file.
// RUN: cat %t.f.mlir %s > %t.mlir
// RUN: %hp-runner -np 4 %t.mlir -e main --entry-point-result=void > %t
// RUN: FileCheck %s < %t
// RUN: not grep FAIL %t
// CHECK-COUNT-4: ok

// X[i, j] = 4 i + j, from row `first` on.
func.func @rows(%first: index, %n: index) -> tensor<?x4xf32> {
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<?x4xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c4 = arith.constant 4 : index
    %row = arith.addi %i, %first : index
    %a = arith.muli %row, %c4 : index
    %v = arith.addi %a, %j : index
    %v64 = arith.index_cast %v : index to i64
    %f = arith.sitofp %v64 : i64 to f32
    linalg.yield %f : f32
  } -> tensor<?x4xf32>
  return %t : tensor<?x4xf32>
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %r = shard.process_linear_index on @g : index
  %first = arith.muli %r, %c2 : index
  %mine = func.call @rows(%first, %c2) : (index, index) -> tensor<?x4xf32>
  %mine24 = tensor.cast %mine : tensor<?x4xf32> to tensor<2x4xf32>
  %got = func.call @f(%mine24) : (tensor<2x4xf32>) -> tensor<8x4xf32>
  %want = func.call @rows(%c0, %c8) : (index, index) -> tensor<?x4xf32>
  %want84 = tensor.cast %want : tensor<?x4xf32> to tensor<8x4xf32>
  %zero = arith.constant 0 : i64
  %init = tensor.from_elements %zero : tensor<i64>
  %n = linalg.generic {indexing_maps = [affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> (a, b)>, affine_map<(a, b) -> ()>],
                       iterator_types = ["reduction", "reduction"]}
      ins(%got, %want84 : tensor<8x4xf32>, tensor<8x4xf32>) outs(%init : tensor<i64>) {
  ^bb0(%x: f32, %y: f32, %acc: i64):
    %ne = arith.cmpf une, %x, %y : f32
    %one = arith.extui %ne : i1 to i64
    %s = arith.addi %acc, %one : i64
    linalg.yield %s : i64
  } -> tensor<i64>
  %bad = tensor.extract %n[] : tensor<i64>
  %ok = arith.cmpi eq, %bad, %zero : i64
  scf.if %ok {
    vector.print str "ok\n"
  } else {
    vector.print str "FAIL\n"
  }
  return
}
