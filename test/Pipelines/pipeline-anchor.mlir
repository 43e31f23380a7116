// hp's pipelines run on a whole module. Nested on another op they are a
// pipeline error with a hint (MLIR's own check is a fatal "Can't add pass"),
// and their options are checked when the pipeline is parsed.
// RUN: not hp-opt --pass-pipeline='builtin.module(func.func(hp-partition))' %s 2>&1 | FileCheck %s --check-prefix=PARTITION
// RUN: not hp-opt --pass-pipeline='builtin.module(func.func(hp-lower-to-cpu))' %s 2>&1 | FileCheck %s --check-prefix=CPU
// RUN: not hp-opt --pass-pipeline='builtin.module(func.func(hp-lower-to-gpu))' %s 2>&1 | FileCheck %s --check-prefix=GPU
// RUN: not hp-opt --pass-pipeline='builtin.module(hp-partition{no-such-option=1})' %s 2>&1 | FileCheck %s --check-prefix=OPTION
// Under 'any' nested in the module it would run on each function, where its
// module passes are skipped without a word: an error at the function.
// RUN: not hp-opt --pass-pipeline='builtin.module(any(hp-partition))' %s 2>&1 | FileCheck %s --check-prefix=ANY
// RUN: not hp-opt --pass-pipeline='builtin.module(any(hp-lower-to-cpu))' %s 2>&1 | FileCheck %s --check-prefix=ANYCPU
// Both module spellings run it.
// RUN: hp-opt --pass-pipeline='builtin.module(hp-partition)' %s | FileCheck %s
// RUN: hp-opt --hp-partition %s | FileCheck %s
// RUN: hp-opt --pass-pipeline='any(hp-partition)' %s | FileCheck %s

// PARTITION: error: 'hp-partition' runs on a whole module (builtin.module), not nested on 'func.func': write 'builtin.module(hp-partition)' or 'hp-partition'
// PARTITION-NOT: LLVM ERROR
// CPU: error: 'hp-lower-to-cpu' runs on a whole module (builtin.module), not nested on 'func.func'
// GPU: error: 'hp-lower-to-gpu' runs on a whole module (builtin.module), not nested on 'func.func'
// ANY: error: 'hp-partition' runs on a whole module (builtin.module), not on 'func.func' (nested under 'any'): write 'builtin.module(hp-partition)' or 'hp-partition'
// ANYCPU: error: 'hp-lower-to-cpu' runs on a whole module (builtin.module), not on 'func.func'
// OPTION: error: invalid options for 'hp-partition': 'no-such-option=1'
// CHECK: shard.grid @tp(shape = 2)
// CHECK: shard.all_gather

dtensor.mesh @tp shape = [2] names = ["tp"]
func.func @f(%x: !dtensor.tensor<8x8xf32, @tp, [shard<0>]>) -> !dtensor.tensor<8x8xf32, @tp, [replicate]> {
  %r = dtensor.redistribute %x : !dtensor.tensor<8x8xf32, @tp, [shard<0>]> -> !dtensor.tensor<8x8xf32, @tp, [replicate]>
  return %r : !dtensor.tensor<8x8xf32, @tp, [replicate]>
}
