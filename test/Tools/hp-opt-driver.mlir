// hp-opt's driver: the dialect and pass listings, input and output errors,
// and the statistics report all come from hp's own main (which keeps the
// command-line pass pipeline when it adds hp's pass counts).
// RUN: hp-opt --show-dialects | FileCheck %s --check-prefix=DIALECTS
// DIALECTS: Available Dialects: {{.*}}dtensor{{.*}},nccl,{{.*}}shard
// RUN: hp-opt --list-passes | FileCheck %s --check-prefix=PASSES
// PASSES-DAG: --convert-dtensor-to-shard
// PASSES-DAG: --convert-shard-to-nccl
// PASSES-DAG: --dtensor-check-contracts
// RUN: not hp-opt %t.missing.mlir 2>&1 | FileCheck %s --check-prefix=NOINPUT
// NOINPUT: cannot open input file '{{.*}}missing.mlir': No such file or directory
// RUN: not hp-opt %s -o %t.nodir/out.mlir 2>&1 | FileCheck %s --check-prefix=NOOUTPUT
// NOOUTPUT: cannot open output file '{{.*}}nodir/out.mlir'
// The pipeline given on the command line still runs under
// --mlir-pass-statistics.
// RUN: hp-opt %s --convert-dtensor-to-shard --mlir-pass-statistics -o %t.out 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: FileCheck %s --check-prefix=OUT < %t.out
// OUT: shard.all_gather
// STATS: Pass statistics report
// STATS: ConvertDTensorToShard
// STATS-NEXT: (S) {{[0-9]+}} bytes-per-rank
// STATS-NEXT: (S) 1 collectives
// STATS-NEXT: (S) 1 redistributes

dtensor.mesh @m shape = [2]
func.func @f(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>) -> !dtensor.tensor<8xf32, @m, [replicate]> {
  %r = dtensor.redistribute %x : !dtensor.tensor<8xf32, @m, [shard<0>]> -> !dtensor.tensor<8xf32, @m, [replicate]>
  return %r : !dtensor.tensor<8xf32, @m, [replicate]>
}
