// The examples verify and round-trip, and run on 4 ranks matching a
// single-device computation of the same MLP.
// RUN: hp-opt %hp_src_root/examples/tp_mlp.mlir | hp-opt | FileCheck %s --check-prefix=TP
// RUN: hp-opt %hp_src_root/examples/dp_tp_mlp.mlir | hp-opt | FileCheck %s --check-prefix=DPTP
// RUN: %if mpi %{ %hp-runner -np 4 %hp_src_root/examples/tp_mlp.mlir -e main --entry-point-result=void | FileCheck %s --check-prefix=RUN-TP %}
// RUN: %if mpi %{ %hp-runner -np 4 %hp_src_root/examples/dp_tp_mlp.mlir -e main --entry-point-result=void | FileCheck %s --check-prefix=RUN-DPTP %}

// The MoE layer with 2 ranks on "ep" (2x2 mesh) and, rewritten for a 1x4
// mesh, with 4; context-parallel attention with 4 ranks on "cp" and,
// rewritten for a mesh of 2, with 2. The rewrites change the mesh and the
// local shapes that follow from it, nothing else.
// RUN: hp-opt %hp_src_root/examples/moe_ep.mlir | hp-opt | FileCheck %s --check-prefix=MOE
// RUN: hp-opt %hp_src_root/examples/cp_attention.mlir | hp-opt | FileCheck %s --check-prefix=CP
// RUN: %if mpi %{ %hp-runner -np 4 %hp_src_root/examples/moe_ep.mlir -e main --entry-point-result=void | FileCheck %s --check-prefix=RUN-MOE %}
// RUN: sed -e 's/shape = \[2, 2\] names = \["dp", "ep"\]/shape = [1, 4] names = ["dp", "ep"]/' -e 's/2x6x2xf32/1x12x2xf32/g' -e 's/2x6x5xf32/1x12x5xf32/g' -e 's/2x2x5xf32/1x2x5xf32/g' -e 's/2x5x2xf32/1x5x2xf32/g' %hp_src_root/examples/moe_ep.mlir > %t.moe4.mlir
// RUN: %if mpi %{ %hp-runner -np 4 %t.moe4.mlir -e main --entry-point-result=void | FileCheck %s --check-prefix=RUN-MOE %}
// RUN: %if mpi %{ %hp-runner -np 4 %hp_src_root/examples/cp_attention.mlir -e main --entry-point-result=void | FileCheck %s --check-prefix=RUN-CP4 %}
// RUN: bash %hp_src_root/test/Examples/Inputs/mesh-size.sh cp_attention 2 %hp_src_root/examples > %t.cp2.mlir
// RUN: %if mpi %{ %hp-runner -np 2 %t.cp2.mlir -e main --entry-point-result=void | FileCheck %s --check-prefix=RUN-CP2 %}

// The decorator form: one local function shared by two local_call sites,
// one of them redistributing at entry.
// RUN: hp-opt %hp_src_root/examples/shared_local_fn.mlir | hp-opt | FileCheck %s --check-prefix=SHARED
// RUN: %if mpi %{ %hp-runner -np 4 %hp_src_root/examples/shared_local_fn.mlir -e main --entry-point-result=void | FileCheck %s --check-prefix=RUN-SHARED %}
// SHARED: dtensor.local_call @scale_add(%{{.*}}, %{{.*}}, %{{.*}}) on @tp out_placements = [shard<0>]
// SHARED: dtensor.local_call @scale_add(%{{.*}}, %{{.*}}, %{{.*}}) on @tp in_placements = {x = [shard<0>]} out_placements = [shard<0>] redistribute_inputs
// RUN-SHARED-COUNT-4: shared_local_fn: this rank matches the single-device result
// RUN-SHARED-NOT: MISMATCH

// FSDP over tensor parallelism. The weight enters as torch lays it out
// ([strided_shard<0, 2>, shard<0>], chunk i + 2j on rank (i, j)) and is
// gathered over dp by one all_gather.
// RUN: hp-opt %hp_src_root/examples/fsdp_tp_linear.mlir | hp-opt | FileCheck %s --check-prefix=FSDP
// RUN: hp-opt %hp_src_root/examples/fsdp_tp_linear.mlir --hp-partition="print-plans" -o /dev/null 2>&1 | FileCheck %s --check-prefix=FSDP-PLAN
// RUN: %if mpi %{ %hp-runner -np 4 %hp_src_root/examples/fsdp_tp_linear.mlir -e main --entry-point-result=void | FileCheck %s --check-prefix=RUN-FSDP %}
// FSDP: func.func @fsdp_tp_linear({{.*}}!dtensor.tensor<16x8xf32, @mesh, [strided_shard<0, 2>, shard<0>]>)
// FSDP-PLAN: remark: plan [SS(0,2), S(0)] -> [R, S(0)]: {{.*}} steps=[all_gather(axes=[0], dim=0,
// RUN-FSDP-COUNT-4: fsdp_tp_linear: this rank matches the single-device result
// RUN-FSDP-NOT: MISMATCH

// The tp_mlp down projection declared replicate (and its result types
// changed to match) is refused at compile time, naming the axis and the fix;
// `unchecked` makes it compile.
// RUN: sed -e 's/out_placements = \[partial<sum>\]/out_placements = [replicate]/' -e 's/@tp, \[partial<sum>\]>/@tp, [replicate]>/g' %hp_src_root/examples/tp_mlp.mlir > %t.tp-replicate.mlir
// RUN: not hp-opt --hp-partition %t.tp-replicate.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=CLAIM
// CLAIM: error: 'dtensor.local_region' op out_placements declare result #0 replicate over mesh axis 'tp', but the yielded value varies over 'tp': it depends on argument 'hidden' ([shard<1>]); a contraction over a dim split along 'tp' leaves per-rank partial sums: declare partial<sum>
// RUN: sed -e 's/out_placements = \[replicate\]$/out_placements = [replicate] unchecked/' %t.tp-replicate.mlir > %t.tp-unchecked.mlir
// RUN: hp-opt --hp-partition %t.tp-unchecked.mlir -o /dev/null
// RUN: %if mpi %{ %hp-runner -np 4 %t.tp-unchecked.mlir -e main --entry-point-result=void | FileCheck %s --check-prefix=WRONG %}
// WRONG-COUNT-4: tp_mlp: MISMATCH with the single-device result

// MOE: dtensor.mesh @mesh shape = [2, 2] names = ["dp", "ep"]
// MOE: dtensor.all_to_all %{{.*}} on @mesh axes = ["ep"] split_axis = 0 concat_axis = 1 : tensor<4x3x2xf32> -> tensor<2x6x2xf32>
// MOE: dtensor.all_to_all %{{.*}} on @mesh axes = ["ep"] split_axis = 1 concat_axis = 0 : tensor<2x6x2xf32> -> tensor<4x3x2xf32>
// CP: dtensor.shift %{{.*}} on @cp axes = ["cp"] offset = 1 rotate : tensor<2x4xf32> -> tensor<2x4xf32>

// RUN-MOE-COUNT-4: moe_ep: this rank matches the single-device result
// RUN-MOE-NOT: MISMATCH
// RUN-CP4-COUNT-4: cp_attention: this rank matches full attention within 1e-05
// RUN-CP4-NOT: MISMATCH
// RUN-CP2-COUNT-2: cp_attention: this rank matches full attention within 1e-05
// RUN-CP2-NOT: MISMATCH

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
