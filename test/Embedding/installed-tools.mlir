// The installed tools start and work from the install prefix (their run path
// finds hp's and MLIR's shared libraries), not only from the build tree.
// RUN: rm -rf %t && mkdir -p %t
// RUN: cmake --install %hp_obj_root --prefix %t/prefix > %t/install.log
// RUN: %t/prefix/bin/hp-opt --hp-partition %s | FileCheck %s --check-prefix=OPT
// RUN: %t/prefix/bin/hp-opt --version | FileCheck %s --check-prefix=VERSION
// RUN: %t/prefix/bin/hp-runner %s -e main --entry-point-result=void | FileCheck %s --check-prefix=ONE
// RUN: %if mpi %{ %t/prefix/bin/hp-runner -np 2 %s -e main --entry-point-result=void | FileCheck %s --check-prefix=NP %}
// RUN: %python %hp_src_root/test/Tools/Inputs/lsp-client.py %t/prefix/bin/hp-lsp-server %hp_src_root/test/Tools/Inputs/lsp-document.mlir | FileCheck %s --check-prefix=LSP
// LSP: server: mlir-lsp-server

// OPT: shard.grid @m(shape = 2)
// OPT: shard.all_gather
// VERSION: hp version
// ONE-COUNT-1: ( 0, 2, 4, 6 )
// NP-COUNT-2: ( 0, 2, 4, 6 )

dtensor.mesh @m shape = [2]

func.func @gather(%x: !dtensor.tensor<4xf32, @m, [shard<0>]>) -> !dtensor.tensor<4xf32, @m, [replicate]> {
  %r = dtensor.redistribute %x : !dtensor.tensor<4xf32, @m, [shard<0>]> -> !dtensor.tensor<4xf32, @m, [replicate]>
  return %r : !dtensor.tensor<4xf32, @m, [replicate]>
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %f0 = arith.constant 0.0 : f32
  %x = arith.constant dense<[0.0, 2.0, 4.0, 6.0]> : tensor<4xf32>
  %d = dtensor.from_local %x : tensor<4xf32> -> !dtensor.tensor<4xf32, @m, [replicate]>
  %v = vector.transfer_read %x[%c0], %f0 : tensor<4xf32>, vector<4xf32>
  vector.print %v : vector<4xf32>
  return
}
