// Two ranks on two GPUs: cp_attention with a context-parallel mesh of 2
// (the variant test/Examples/examples.mlir runs on CPUs), so its ring of
// shifts runs as NCCL send/recv between the GPUs.
// REQUIRES: cuda-devices-2, mpi
// RUN: sed -e 's/shape = \[4\] names = \["cp"\]/shape = [2] names = ["cp"]/' -e 's/2x4xf32/4x4xf32/g' -e 's/tensor<2xf32>/tensor<4xf32>/g' -e 's/%%steps = arith.constant 4 : index/%%steps = arith.constant 2 : index/' %hp_src_root/examples/cp_attention.mlir > %t.cp2.mlir
// RUN: %hp-runner -np 2 --target=gpu %t.cp2.mlir -e main --entry-point-result=void | FileCheck %s

// CHECK-COUNT-2: cp_attention: this rank matches full attention within 1e-05
// CHECK-NOT: MISMATCH
