// The examples lower to SPMD code that upstream mlir-opt parses and verifies.
// RUN: hp-opt --hp-partition %hp_src_root/examples/tp_mlp.mlir | FileCheck %s --check-prefix=TP
// RUN: hp-opt --hp-partition %hp_src_root/examples/tp_mlp.mlir | mlir-opt --allow-unregistered-dialect | FileCheck %s --check-prefix=UPSTREAM
// RUN: hp-opt --hp-partition %hp_src_root/examples/dp_tp_mlp.mlir | FileCheck %s --check-prefix=DPTP
// RUN: hp-opt --hp-partition %hp_src_root/examples/dp_tp_mlp.mlir | mlir-opt --allow-unregistered-dialect | FileCheck %s --check-prefix=UPSTREAM
// Pipeline options reach convert-dtensor-to-shard.
// RUN: hp-opt --hp-partition="latency-bytes=0 axis-weights=1 print-plans" --mlir-print-op-on-diagnostic=false %hp_src_root/examples/tp_mlp.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLANS
// print-totals sums the plans up (Debian's LLVM compiles pass statistics
// out, so --mlir-pass-statistics shows them only with a statistics build).
// RUN: hp-opt --hp-partition="print-totals" --mlir-print-op-on-diagnostic=false %hp_src_root/examples/dp_tp_mlp.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=TOTALS
// TOTALS: remark: convert-dtensor-to-shard planned 6 redistributes: 3 collectives, {{[0-9.]+ [KM]?i?B}} sent per rank in all
// verify-plans reaches it too: with a large tensor the checker says it skipped.
// RUN: hp-opt --hp-partition=verify-plans %hp_src_root/test/Conversion/DTensorToShard/verify-plans.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=VERIFY
// RUN: hp-opt --hp-partition %hp_src_root/test/Conversion/DTensorToShard/verify-plans.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOVERIFY --allow-empty
// VERIFY: warning: plan not checked: the tensor is too large to simulate on every device
// NOVERIFY-NOT: warning

// UPSTREAM: shard.grid
// UPSTREAM-NOT: = dtensor.
// UPSTREAM-NOT: !dtensor.tensor
// UPSTREAM: func.func

// TP: shard.grid @tp(shape = 4) {dtensor.axis_names = ["tp"]}
// TP-LABEL: func.func @tp_mlp
// TP-SAME: %[[X:.*]]: tensor<8x16xf32> {dtensor.sharding = #dtensor.sharding<@tp, [replicate], global = [8, 16]>}
// TP-SAME: %[[W1:.*]]: tensor<16x8xf32> {dtensor.sharding = #dtensor.sharding<@tp, [shard<1>], global = [16, 32]>}
// TP-SAME: %[[W2:.*]]: tensor<8x16xf32> {dtensor.sharding = #dtensor.sharding<@tp, [shard<0>], global = [32, 16]>}
// TP-SAME: -> (tensor<8x16xf32> {dtensor.sharding = #dtensor.sharding<@tp, [replicate], global = [8, 16]>})
// TP: %[[H:.*]] = linalg.matmul ins(%[[X]], %[[W1]]
// TP: %[[RELU:.*]] = linalg.map { arith.maximumf } ins(%[[H]]
// TP: %[[Y:.*]] = linalg.matmul ins(%[[RELU]], %[[W2]]
// TP: %[[R:.*]] = shard.all_reduce %[[Y]] on @tp grid_axes = [0] : tensor<8x16xf32> -> tensor<8x16xf32>
// TP: return %[[R]]
// TP-NOT: = dtensor.
// TP-LABEL: func.func @main

// The input arrives split over both axes (3,2 rows of each dp half): one
// padded all_gather over tp and a slice give the 5 rows of this dp half.
// DPTP: shard.grid @mesh(shape = 2x2) {dtensor.axis_names = ["dp", "tp"]}
// DPTP-LABEL: func.func @dp_tp_mlp
// DPTP-SAME: %[[X:.*]]: tensor<?x16xf32> {dtensor.sharding = #dtensor.sharding<@mesh, [shard<0>, shard<0>], global = [10, 16]>}
// DPTP-SAME: -> (tensor<5x16xf32> {dtensor.sharding = #dtensor.sharding<@mesh, [shard<0>, replicate], global = [10, 16]>})
// DPTP: %[[PAD:.*]] = tensor.insert_slice %[[X]] into %{{.*}}[0, 0] [%{{.*}}, 16] [1, 1] : tensor<?x16xf32> into tensor<3x16xf32>
// DPTP: %[[G:.*]] = shard.all_gather %[[PAD]] on @mesh grid_axes = [1] gather_axis = 0 : tensor<3x16xf32> -> tensor<6x16xf32>
// DPTP: %[[ROWS:.*]] = tensor.extract_slice %[[G]][0, 0] [5, 16] [1, 1] : tensor<6x16xf32> to tensor<5x16xf32>
// DPTP: linalg.matmul ins(%[[ROWS]],
// DPTP: %[[Y:.*]] = linalg.matmul
// DPTP: %[[R:.*]] = shard.all_reduce %[[Y]] on @mesh grid_axes = [1] : tensor<5x16xf32> -> tensor<5x16xf32>
// DPTP: return %[[R]] : tensor<5x16xf32>
// DPTP-LABEL: func.func @main

// 8x16 f32 = 512 bytes; all_reduce over 4 sends 2 * 3/4 * 512.
// PLANS: remark: plan [P(sum)] -> [R]: cost=7.680000e+02 collectives=1 steps=[all_reduce(axes=[0], sum, cost=7.680000e+02)]
