// Upstream mlir-opt loads hp as a dialect and pass plugin, parses dtensor IR
// and runs hp-partition. (Plugin passes are named in --pass-pipeline: their
// flags do not exist when mlir-opt parses its command line.)
// RUN: mlir-opt --load-dialect-plugin=%hp_lib_dir/libHPPlugin.so %s | FileCheck %s --check-prefix=PARSE
// RUN: mlir-opt --load-dialect-plugin=%hp_lib_dir/libHPPlugin.so --load-pass-plugin=%hp_lib_dir/libHPPlugin.so --pass-pipeline="builtin.module(hp-partition)" %s | FileCheck %s
// A module pipeline nested on functions is a pipeline error, not a fatal one.
// RUN: not mlir-opt --load-dialect-plugin=%hp_lib_dir/libHPPlugin.so --load-pass-plugin=%hp_lib_dir/libHPPlugin.so --pass-pipeline="builtin.module(func.func(hp-partition))" %s 2>&1 | FileCheck %s --check-prefix=NESTED
// NESTED: error: 'hp-partition' runs on a whole module (builtin.module), not nested on 'func.func'
// NESTED-NOT: LLVM ERROR

// PARSE: dtensor.mesh @tp shape = [2] names = ["tp"]
// PARSE: dtensor.redistribute

// CHECK: shard.grid @tp(shape = 2)
// CHECK-LABEL: func.func @f
// CHECK-SAME: tensor<4x8xf32> {dtensor.sharding = #dtensor.sharding<@tp, [shard<0>], global = [8, 8]>}
// CHECK: shard.all_gather %{{.*}} on @tp grid_axes = [0] gather_axis = 0 : tensor<4x8xf32> -> tensor<8x8xf32>

dtensor.mesh @tp shape = [2] names = ["tp"]
func.func @f(%x: !dtensor.tensor<8x8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8x8xf32, @tp, [replicate]> {
  %r = dtensor.redistribute %x : !dtensor.tensor<8x8xf32, @tp, [shard<0>]> -> !dtensor.tensor<8x8xf32, @tp, [replicate]>
  return %r : !dtensor.tensor<8x8xf32, @tp, [replicate]>
}
