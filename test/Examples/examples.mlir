// The examples verify and round-trip; their lowering is tested per pass.
// RUN: hp-opt %hp_src_root/examples/tp_mlp.mlir | hp-opt | FileCheck %s --check-prefix=TP
// RUN: hp-opt %hp_src_root/examples/dp_tp_mlp.mlir | hp-opt | FileCheck %s --check-prefix=DPTP

// TP: dtensor.mesh @tp shape = [4] names = ["tp"]
// TP-LABEL: func.func @tp_mlp
// TP: dtensor.local_region on @tp {{.*}} out_placements = [shard<1>]
// TP: ^bb0(%{{.*}}: tensor<8x16xf32>, %{{.*}}: tensor<16x8xf32>):
// TP: dtensor.local_region on @tp {{.*}} out_placements = [partial<sum>]
// TP: dtensor.redistribute {{.*}} -> !dtensor.tensor<8x16xf32, @tp, [replicate]>

// DPTP: dtensor.mesh @mesh shape = [2, 4] names = ["dp", "tp"]
// DPTP-LABEL: func.func @dp_tp_mlp
// DPTP: dtensor.local_region on @mesh {{.*}} redistribute_inputs
// DPTP: ^bb0(%{{.*}}: tensor<5x16xf32>, %{{.*}}: tensor<16x8xf32>):
// DPTP: out_placements = [shard<0>, partial<sum>]
// DPTP: dtensor.redistribute {{.*}} -> !dtensor.tensor<10x16xf32, @mesh, [shard<0>, replicate]>
