// `cmake --install` gives a tree that a separate CMake project uses with
// find_package(HP): it builds its own tool with hp's dialects and passes and
// runs dtensor-expand-local-regions.
// RUN: rm -rf %t && mkdir -p %t
// RUN: cmake --install %hp_obj_root --prefix %t/prefix > %t/install.log
// RUN: cmake -S %S/external-project -B %t/build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld -DHP_DIR=%t/prefix/lib/cmake/hp > %t/configure.log
// RUN: cmake --build %t/build > %t/build.log
// RUN: %t/build/my-hp-tool %s --dtensor-expand-local-regions | FileCheck %s
// The tool runs hp's pipelines down to LLVM, bufferization included.
// RUN: %t/build/my-hp-tool %hp_src_root/examples/tp_mlp.mlir --hp-lower-to-cpu | FileCheck %s --check-prefix=LLVM
// LLVM: llvm.call @ncclAllReduce

// CHECK-LABEL: func.func @f
// CHECK: %[[L:.*]] = dtensor.to_local
// CHECK: %[[S:.*]] = arith.addf %[[L]], %[[L]] : tensor<4xf32>
// CHECK: dtensor.from_local %[[S]] : tensor<4xf32> -> !dtensor.tensor<8xf32, @m, [shard<0>]>
// CHECK-NOT: dtensor.local_region

dtensor.mesh @m shape = [2]
func.func @f(%x: !dtensor.tensor<8xf32, @m, [shard<0>]>) -> !dtensor.tensor<8xf32, @m, [shard<0>]> {
  %r = dtensor.local_region on @m args(%x as "x") out_placements = [shard<0>]
      : (!dtensor.tensor<8xf32, @m, [shard<0>]>) -> !dtensor.tensor<8xf32, @m, [shard<0>]> {
  ^bb0(%l: tensor<4xf32>):
    %s = arith.addf %l, %l : tensor<4xf32>
    dtensor.yield %s : tensor<4xf32>
  }
  return %r : !dtensor.tensor<8xf32, @m, [shard<0>]>
}
