// The examples with world size 1 on one GPU (NCCL allows one rank per GPU in
// a communicator), lowered by hp-runner --target=gpu, and the same variants
// on the CPU path. Each @main compares the distributed result with a
// single-device computation; tp_mlp's inputs are small integers, so every
// product and sum is exact in f32 and "matches" means max |diff| == 0 on
// both paths: the GPU result equals the CPU result bit for bit.
// REQUIRES: cuda-device, mpi
// RUN: bash %hp_src_root/test/Examples/Inputs/mesh-size.sh tp_mlp 1 %hp_src_root/examples > %t.tp1.mlir
// RUN: %hp-runner -np 1 %t.tp1.mlir -e main --entry-point-result=void | FileCheck %s --check-prefix=TP
// RUN: %hp-runner -np 1 --target=gpu %t.tp1.mlir -e main --entry-point-result=void | FileCheck %s --check-prefix=TP
// RUN: bash %hp_src_root/test/Examples/Inputs/mesh-size.sh cp_attention 1 %hp_src_root/examples > %t.cp1.mlir
// RUN: %hp-runner -np 1 %t.cp1.mlir -e main --entry-point-result=void | FileCheck %s --check-prefix=CP
// RUN: %hp-runner -np 1 --target=gpu %t.cp1.mlir -e main --entry-point-result=void | FileCheck %s --check-prefix=CP

// TP: tp_mlp: this rank matches the single-device result
// TP-NOT: MISMATCH
// CP: cp_attention: this rank matches full attention within 1e-05
// CP-NOT: MISMATCH
