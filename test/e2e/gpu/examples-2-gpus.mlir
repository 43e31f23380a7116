// Two ranks on two GPUs: cp_attention with a context-parallel mesh of 2
// (the variant test/Examples/examples.mlir runs on CPUs), so its ring of
// shifts runs as NCCL send/recv between the GPUs.
// REQUIRES: cuda-devices-2, mpi
// RUN: bash %hp_src_root/test/Examples/Inputs/mesh-size.sh cp_attention 2 %hp_src_root/examples > %t.cp2.mlir
// RUN: %hp-runner -np 2 --target=gpu %t.cp2.mlir -e main --entry-point-result=void | FileCheck %s

// CHECK-COUNT-2: cp_attention: this rank matches full attention within 1e-05
// CHECK-NOT: MISMATCH
