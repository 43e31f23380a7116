// The global-view examples (one dtensor.global_region per model, placed by
// dtensor-propagate) verify, round-trip, partition, and run on 4 ranks, every
// rank matching the same ops on one device.
// RUN: hp-opt %hp_src_root/examples/global_tp_mlp.mlir | hp-opt | FileCheck %s --check-prefix=TP
// RUN: hp-opt %hp_src_root/examples/global_dp_tp_mlp.mlir | hp-opt | FileCheck %s --check-prefix=DPTP
// RUN: hp-opt %hp_src_root/examples/global_megatron_layer.mlir | hp-opt | FileCheck %s --check-prefix=MEGATRON
// RUN: hp-opt %hp_src_root/examples/global_moe.mlir | hp-opt | FileCheck %s --check-prefix=MOE

// hp-partition leaves no global_region, constraint or DTensor type behind,
// and the MoE dispatch and combine keep their all_to_alls.
// RUN: hp-opt --hp-partition %hp_src_root/examples/global_tp_mlp.mlir | FileCheck %s --check-prefix=PART
// RUN: hp-opt --hp-partition %hp_src_root/examples/global_dp_tp_mlp.mlir | FileCheck %s --check-prefix=PART
// RUN: hp-opt --hp-partition %hp_src_root/examples/global_megatron_layer.mlir | FileCheck %s --check-prefix=PART
// RUN: hp-opt --hp-partition %hp_src_root/examples/global_moe.mlir | FileCheck %s --check-prefix=PART
// RUN: hp-opt --hp-partition %hp_src_root/examples/global_moe.mlir | FileCheck %s --check-prefix=PART-MOE

// The collectives propagation chooses: the TP MLP reduces once; the Megatron
// TP+SP layer gathers the sequence twice and scatters the partial sums twice,
// with no all_reduce.
// RUN: hp-opt --hp-partition %hp_src_root/examples/global_tp_mlp.mlir | FileCheck %s --check-prefix=COLL-TP
// RUN: hp-opt --hp-partition %hp_src_root/examples/global_megatron_layer.mlir | FileCheck %s --check-prefix=COLL-MEGATRON

// RUN: %if mpi %{ %hp-runner -np 4 %hp_src_root/examples/global_tp_mlp.mlir -e main --entry-point-result=void | FileCheck %s --check-prefix=RUN-TP %}
// RUN: %if mpi %{ %hp-runner -np 4 %hp_src_root/examples/global_dp_tp_mlp.mlir -e main --entry-point-result=void | FileCheck %s --check-prefix=RUN-DPTP %}
// RUN: %if mpi %{ %hp-runner -np 4 %hp_src_root/examples/global_megatron_layer.mlir -e main --entry-point-result=void | FileCheck %s --check-prefix=RUN-MEGATRON %}
// RUN: %if mpi %{ %hp-runner -np 4 %hp_src_root/examples/global_moe.mlir -e main --entry-point-result=void | FileCheck %s --check-prefix=RUN-MOE %}

// TP: dtensor.mesh @tp shape = [4] names = ["tp"]
// TP: dtensor.global_region on @tp args(%arg0, %arg1, %arg2)
// TP-SAME: : (!dtensor.tensor<8x16xf32, @tp, [replicate]>, !dtensor.tensor<16x32xf32, @tp, [shard<1>]>, !dtensor.tensor<32x16xf32, @tp, [shard<0>]>)
// TP-SAME: -> !dtensor.tensor<8x16xf32, @tp, [replicate]>

// DPTP: dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]
// DPTP: dtensor.global_region on @mesh
// DPTP-SAME: (!dtensor.tensor<10x16xf32, @mesh, [shard<0>, shard<0>]>
// DPTP-SAME: -> !dtensor.tensor<10x16xf32, @mesh, [shard<0>, replicate]>

// MEGATRON: dtensor.global_region on @tp
// MEGATRON: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [16, 4, 8] : tensor<16x32xf32> into tensor<16x4x8xf32>
// MEGATRON: linalg.batch_matmul
// MEGATRON: linalg.index 2 : index
// MEGATRON: math.exp
// MEGATRON: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : tensor<16x4x8xf32> into tensor<16x32xf32>
// MEGATRON: dtensor.constrain %{{.*}} [shard<0>] : tensor<16x32xf32>
// MEGATRON: math.tanh
// MEGATRON: dtensor.yield

// MOE: dtensor.global_region on @mesh
// MOE: dtensor.local_region on @mesh args(%{{.*}} as "buckets") in_placements = {buckets = [shard<0>, shard<0>]} out_placements = [shard<0>, shard<1>]
// MOE: dtensor.all_to_all %{{.*}} on @mesh axes = ["ep"] split_axis = 0 concat_axis = 1 : tensor<4x2x8xf32> -> tensor<2x4x8xf32>
// MOE: dtensor.local_region on @mesh args(%{{.*}} as "expert_out") in_placements = {expert_out = [shard<0>, shard<1>]} out_placements = [shard<0>, shard<0>]
// MOE: dtensor.all_to_all %{{.*}} on @mesh axes = ["ep"] split_axis = 1 concat_axis = 0 : tensor<2x4x8xf32> -> tensor<4x2x8xf32>

// COLL-TP-LABEL: func.func @global_tp_mlp(
// COLL-TP-NOT: shard.{{all_gather|reduce_scatter|all_to_all}}
// COLL-TP: shard.all_reduce
// COLL-TP-NOT: shard.{{all_gather|all_reduce|reduce_scatter|all_to_all}}
// COLL-TP: func.func @reference(

// COLL-MEGATRON-LABEL: func.func @megatron_layer(
// COLL-MEGATRON-NOT: shard.{{all_reduce|all_to_all}}
// COLL-MEGATRON: shard.all_gather
// COLL-MEGATRON-NOT: shard.{{all_reduce|all_to_all}}
// COLL-MEGATRON: shard.reduce_scatter
// COLL-MEGATRON-NOT: shard.{{all_reduce|all_to_all}}
// COLL-MEGATRON: shard.all_gather
// COLL-MEGATRON-NOT: shard.{{all_reduce|all_to_all}}
// COLL-MEGATRON: shard.reduce_scatter
// COLL-MEGATRON-NOT: shard.{{all_gather|all_reduce|reduce_scatter|all_to_all}}
// COLL-MEGATRON: func.func @reference(

// PART-NOT: dtensor.global_region
// PART-NOT: dtensor.constrain
// PART-NOT: !dtensor.tensor
// PART-MOE: shard.all_to_all {{.*}} split_axis = 0 concat_axis = 1 : tensor<4x2x8xf32> -> tensor<2x4x8xf32>
// PART-MOE: shard.all_to_all {{.*}} split_axis = 1 concat_axis = 0 : tensor<2x4x8xf32> -> tensor<4x2x8xf32>

// RUN-TP-COUNT-4: global_tp_mlp: this rank matches the single-device result
// RUN-TP-NOT: MISMATCH
// RUN-DPTP-COUNT-4: global_dp_tp_mlp: this rank matches the single-device result
// RUN-DPTP-NOT: MISMATCH
// RUN-MEGATRON-COUNT-4: global_megatron_layer: this rank matches the single-device result
// RUN-MEGATRON-NOT: MISMATCH
// RUN-MOE-COUNT-4: global_moe: this rank matches the single-device result
// RUN-MOE-NOT: MISMATCH
