// hp-runner --target=gpu lowers with hp-lower-to-gpu, loads the GPU runtime
// (the mgpu* wrappers and the communicator cache on real libnccl) and
// resolves every symbol of the JIT-compiled program. With the CUDA driver
// stub in place of a driver (forced, also on machines that have one), the
// first driver call fails with hp's diagnostic instead of running.
// REQUIRES: gpu-runtime
// RUN: rm -rf %t && mkdir -p %t && ln -s %cuda_stubs/libcuda.so %t/libcuda.so.1
// RUN: env LD_LIBRARY_PATH=%t not %hp-runner --target=gpu %hp_src_root/examples/tp_mlp.mlir -e main --entry-point-result=void 2>&1 | FileCheck %s
// RUN: env LD_LIBRARY_PATH=%t not %hp-runner --target=gpu --gpu-chip=sm_80 %hp_src_root/examples/tp_mlp.mlir -e main --entry-point-result=void 2>&1 | FileCheck %s

// CHECK-NOT: Symbols not found
// CHECK-NOT: Could not load
// CHECK: hp: rank 0: cuInit(0) failed: {{.*}}(CUresult {{[0-9]+}}
// One error, not a second one from the module destructors.
// CHECK-NOT: failed
