// The world-size-1 variants that examples.mlir runs on a GPU, checked where
// there is none: they stay valid as the examples change, match on the CPU
// path with one rank, and lower with hp-lower-to-gpu.
// REQUIRES: mpi
// RUN: bash %hp_src_root/test/Examples/Inputs/mesh-size.sh tp_mlp 1 %hp_src_root/examples > %t.tp1.mlir
// RUN: %hp-runner -np 1 %t.tp1.mlir -e main --entry-point-result=void | FileCheck %s --check-prefix=TP
// RUN: hp-opt --hp-lower-to-gpu=format=isa %t.tp1.mlir | FileCheck %s --check-prefix=GPU
// RUN: bash %hp_src_root/test/Examples/Inputs/mesh-size.sh cp_attention 1 %hp_src_root/examples > %t.cp1.mlir
// RUN: %hp-runner -np 1 %t.cp1.mlir -e main --entry-point-result=void | FileCheck %s --check-prefix=CP
// RUN: hp-opt --hp-lower-to-gpu=format=isa %t.cp1.mlir | FileCheck %s --check-prefix=GPU
// RUN: not bash %hp_src_root/test/Examples/Inputs/mesh-size.sh moe_ep 1 %hp_src_root/examples 2>&1 | FileCheck %s --check-prefix=NONE

// TP: tp_mlp: this rank matches the single-device result
// TP-NOT: MISMATCH
// CP: cp_attention: this rank matches full attention within 1e-05
// CP-NOT: MISMATCH
// GPU: gpu.binary
// GPU: llvm.func @main()
// NONE: mesh-size.sh: no variant for 'moe_ep'
