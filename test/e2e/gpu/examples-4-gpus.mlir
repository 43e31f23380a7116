// The examples as written (4 ranks) on 4 GPUs, one rank per GPU: the
// redistributes become NCCL collectives between GPUs on each rank's stream.
// Each rank compares its result with the single-device computation.
// REQUIRES: cuda-devices-4, mpi
// RUN: %hp-runner -np 4 --target=gpu %hp_src_root/examples/tp_mlp.mlir -e main --entry-point-result=void | FileCheck %s --check-prefix=TP
// RUN: %hp-runner -np 4 --target=gpu %hp_src_root/examples/dp_tp_mlp.mlir -e main --entry-point-result=void | FileCheck %s --check-prefix=DPTP
// RUN: %hp-runner -np 4 --target=gpu %hp_src_root/examples/moe_ep.mlir -e main --entry-point-result=void | FileCheck %s --check-prefix=MOE
// RUN: %hp-runner -np 4 --target=gpu %hp_src_root/examples/cp_attention.mlir -e main --entry-point-result=void | FileCheck %s --check-prefix=CP

// TP-COUNT-4: tp_mlp: this rank matches the single-device result
// TP-NOT: MISMATCH
// DPTP-COUNT-4: dp_tp_mlp: this rank matches the single-device result
// DPTP-NOT: MISMATCH
// MOE-COUNT-4: moe_ep: this rank matches the single-device result
// MOE-NOT: MISMATCH
// CP-COUNT-4: cp_attention: this rank matches full attention within 1e-05
// CP-NOT: MISMATCH
