// The examples verify and round-trip, and run on 4 ranks matching a
// single-device computation of the same MLP.
// RUN: hp-opt %hp_src_root/examples/tp_mlp.mlir | hp-opt | FileCheck %s --check-prefix=TP
// RUN: hp-opt %hp_src_root/examples/dp_tp_mlp.mlir | hp-opt | FileCheck %s --check-prefix=DPTP
// RUN: %if mpi %{ %hp-runner -np 4 %hp_src_root/examples/tp_mlp.mlir -e main --entry-point-result=void | FileCheck %s --check-prefix=RUN-TP %}
// RUN: %if mpi %{ %hp-runner -np 4 %hp_src_root/examples/dp_tp_mlp.mlir -e main --entry-point-result=void | FileCheck %s --check-prefix=RUN-DPTP %}

// RUN-TP-COUNT-4: tp_mlp: this rank matches the single-device result
// RUN-TP-NOT: MISMATCH
// RUN-DPTP-COUNT-4: dp_tp_mlp: this rank matches the single-device result
// RUN-DPTP-NOT: MISMATCH

// TP: dtensor.mesh @tp shape = [4] names = ["tp"]
// TP-LABEL: func.func @tp_mlp
// TP: dtensor.local_region on @tp {{.*}} out_placements = [shard<1>]
// TP: ^bb0(%{{.*}}: tensor<8x16xf32>, %{{.*}}: tensor<16x8xf32>):
// TP: dtensor.local_region on @tp {{.*}} out_placements = [partial<sum>]
// TP: dtensor.redistribute {{.*}} -> !dtensor.tensor<8x16xf32, @tp, [replicate]>

// DPTP: dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]
// DPTP-LABEL: func.func @dp_tp_mlp
// DPTP: dtensor.local_region on @mesh {{.*}} redistribute_inputs
// DPTP: ^bb0(%{{.*}}: tensor<5x16xf32>, %{{.*}}: tensor<16x16xf32>):
// DPTP: out_placements = [shard<0>, partial<sum>]
// DPTP: dtensor.redistribute {{.*}} -> !dtensor.tensor<10x16xf32, @mesh, [shard<0>, replicate]>
