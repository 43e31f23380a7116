// The world-size-1 variants that examples.mlir runs on a GPU, checked where
// there is none: they stay valid as the examples change, match on the CPU
// path with one rank, and lower with hp-lower-to-gpu.
// REQUIRES: mpi
// RUN: bash %S/Inputs/world-size-1.sh tp_mlp %hp_src_root/examples > %t.tp1.mlir
// RUN: %hp-runner -np 1 %t.tp1.mlir -e main --entry-point-result=void | FileCheck %s --check-prefix=TP
// RUN: hp-opt --hp-lower-to-gpu=format=isa %t.tp1.mlir | FileCheck %s --check-prefix=GPU
// RUN: bash %S/Inputs/world-size-1.sh cp_attention %hp_src_root/examples > %t.cp1.mlir
// RUN: %hp-runner -np 1 %t.cp1.mlir -e main --entry-point-result=void | FileCheck %s --check-prefix=CP
// RUN: hp-opt --hp-lower-to-gpu=format=isa %t.cp1.mlir | FileCheck %s --check-prefix=GPU
// RUN: not bash %S/Inputs/world-size-1.sh moe_ep %hp_src_root/examples 2>&1 | FileCheck %s --check-prefix=NONE

// TP: tp_mlp: this rank matches the single-device result
// TP-NOT: MISMATCH
// CP: cp_attention: this rank matches full attention within 1e-05
// CP-NOT: MISMATCH
// GPU: gpu.binary
// GPU: llvm.func @main()
// NONE: world-size-1.sh: no variant for 'moe_ep'
