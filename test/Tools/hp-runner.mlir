// hp-runner works like mlir-runner: -e, --entry-point-result and
// --shared-libs; it lowers non-LLVM input itself and preloads the runner
// utilities (vector.print) and hp's runtime. Without -np it runs one rank.
// RUN: %hp-runner %s -e main --entry-point-result=void | FileCheck %s
// RUN: %hp-runner %s -e answer --entry-point-result=i32 | FileCheck %s --check-prefix=I32
// Already-lowered LLVM dialect input runs as is.
// RUN: hp-opt %s --hp-lower-to-cpu > %t.ll.mlir
// RUN: %hp-runner %t.ll.mlir -e main --entry-point-result=void | FileCheck %s
// -np relaunches under mpirun.
// RUN: %if mpi %{ %hp-runner -np 2 %S/Inputs/two-ranks.mlir -e main --entry-point-result=void | FileCheck %s --check-prefix=NP %}
// With -np, a module on standard input reaches every rank.
// RUN: %if mpi %{ cat %S/Inputs/two-ranks.mlir | %hp-runner -np 2 -e main --entry-point-result=void | FileCheck %s --check-prefix=NP %}

// --mpirun-args passes flags to mpirun: --tag-output prefixes each rank's lines.
// RUN: %if mpi %{ %hp-runner -np 2 --mpirun-args="--tag-output" %S/Inputs/two-ranks.mlir -e main --entry-point-result=void | FileCheck %s --check-prefix=TAGGED %}
// TAGGED-DAG: [1,0]<stdout>:( 0, 1, 2, 3, 4, 5, 6, 7 )
// TAGGED-DAG: [1,1]<stdout>:( 0, 1, 2, 3, 4, 5, 6, 7 )

// --help opens with hp-runner's own options; --version names hp's.
// RUN: %hp-runner --help | FileCheck %s --check-prefix=HELP
// HELP: OVERVIEW: hp-runner: run hp programs on one or many ranks
// HELP: hp-runner options:
// HELP-NEXT: -np N
// HELP-NEXT: --mpirun-args=
// HELP-NEXT: --target=cpu|gpu
// HELP-NEXT: --gpu-chip=sm_XY
// HELP: The options of mlir-runner follow.
// RUN: %hp-runner --version | FileCheck %s --check-prefix=VERSION
// RUN: hp-opt --version | FileCheck %s --check-prefix=VERSION
// VERSION: hp version {{[0-9]+\.[0-9]+\.[0-9]+}} (git {{[0-9a-f]+|unknown}})
// RUN: hp-opt --help | FileCheck %s --check-prefix=OPTHELP
// OPTHELP: OVERVIEW: hp optimizer driver
// OPTHELP: --hp-partition
// OPTHELP: hp passes: --dtensor-check-contracts
// Without --entry-point-result, an entry point of type () -> () runs.
// RUN: %hp-runner %s -e main | FileCheck %s

// --target=cpu is the default; anything but cpu or gpu is refused.
// RUN: %hp-runner --target=cpu %s -e main --entry-point-result=void | FileCheck %s
// RUN: not %hp-runner --target=tpu %s -e main --entry-point-result=void 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: hp-runner: --target must be cpu or gpu, not 'tpu'

// CHECK: ( 0, 2, 4, 6 )
// I32: 42
// NP-COUNT-2: ( 0, 1, 2, 3, 4, 5, 6, 7 )

dtensor.mesh @one shape = [1]

func.func @main() {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %x = arith.constant dense<[0.0, 1.0, 2.0, 3.0]> : tensor<4xf32>
  %d = dtensor.from_local %x : tensor<4xf32> -> !dtensor.tensor<4xf32, @one, [shard<0>]>
  %r = dtensor.local_region on @one args(%d as "x") out_placements = [replicate]
      : (!dtensor.tensor<4xf32, @one, [shard<0>]>) -> !dtensor.tensor<4xf32, @one, [replicate]> {
  ^bb0(%l: tensor<4xf32>):
    %s = arith.addf %l, %l : tensor<4xf32>
    dtensor.yield %s : tensor<4xf32>
  }
  %l = dtensor.to_local %r : !dtensor.tensor<4xf32, @one, [replicate]> -> tensor<4xf32>
  %v = vector.transfer_read %l[%c0], %f0 : tensor<4xf32>, vector<4xf32>
  vector.print %v : vector<4xf32>
  return
}

func.func @answer() -> i32 {
  %c = arith.constant 42 : i32
  return %c : i32
}
