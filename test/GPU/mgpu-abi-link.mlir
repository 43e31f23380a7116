// hp's CUDA runtime wrappers implement the mgpu* ABI that upstream's GPU
// lowering and gpu.binary translation call: a GPU program lowered by
// upstream links against libhp_cuda_runtime.so and the libcuda stub with no
// undefined symbol. The PTX assembles for sm_90 with the toolkit's ptxas.
// (Running it needs a GPU: see scripts/device-check.sh.)
// REQUIRES: gpu-runtime
// RUN: env PATH=%cuda_bin:$PATH mlir-opt %s --gpu-kernel-outlining --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=fatbin" -o %t.llvm.mlir
// RUN: mlir-translate --mlir-to-llvmir %t.llvm.mlir -o %t.ll
// RUN: llc -O2 -filetype=obj -relocation-model=pic %t.ll -o %t.o
// RUN: c++ -fuse-ld=lld %t.o -o %t.exe -L%hp_lib_dir -lhp_cuda_runtime -L%cuda_stubs -lcuda -Wl,-rpath,%hp_lib_dir -Wl,--no-undefined
// RUN: llvm-nm -u %t.exe | FileCheck %s --check-prefix=CALLS
// RUN: env PATH=%cuda_bin:$PATH mlir-opt %s --gpu-kernel-outlining --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=isa" | FileCheck %s --check-prefix=PTX
// RUN: env PATH=%cuda_bin:$PATH mlir-opt %s --gpu-kernel-outlining --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=isa" | python3 %S/Inputs/extract-ptx.py > %t.ptx
// RUN: %cuda_bin/ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: llvm-nm -D --defined-only %hp_lib_dir/libhp_cuda_runtime.so | FileCheck %s --check-prefix=ABI

// CALLS-DAG: mgpuLaunchKernel
// CALLS-DAG: mgpuModuleLoad
// CALLS-DAG: mgpuModuleGetFunction
// CALLS-DAG: mgpuMemAlloc
// CALLS-DAG: mgpuMemcpy
// CALLS-DAG: mgpuStreamCreate

// PTX: gpu.binary @main_kernel
// PTX-SAME: .target sm_90

// ABI-DAG: T mgpuEventCreate
// ABI-DAG: T mgpuEventDestroy
// ABI-DAG: T mgpuEventRecord
// ABI-DAG: T mgpuEventSynchronize
// ABI-DAG: T mgpuLaunchKernel
// ABI-DAG: T mgpuMemAlloc
// ABI-DAG: T mgpuMemFree
// ABI-DAG: T mgpuMemcpy
// ABI-DAG: T mgpuMemset16
// ABI-DAG: T mgpuMemset32
// ABI-DAG: T mgpuModuleGetFunction
// ABI-DAG: T mgpuModuleLoad
// ABI-DAG: T mgpuModuleLoadJIT
// ABI-DAG: T mgpuModuleUnload
// ABI-DAG: T mgpuSetDefaultDevice
// ABI-DAG: T mgpuStreamCreate
// ABI-DAG: T mgpuStreamDestroy
// ABI-DAG: T mgpuStreamSynchronize
// ABI-DAG: T mgpuStreamWaitEvent

func.func @main() {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %f = arith.constant 2.0 : f32
  %h = memref.alloc() : memref<16xf32>
  %t0 = gpu.wait async
  %d, %t1 = gpu.alloc async [%t0] () : memref<16xf32>
  %t2 = gpu.memcpy async [%t1] %d, %h : memref<16xf32>, memref<16xf32>
  %t3 = gpu.launch async [%t2] blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
      threads(%tx, %ty, %tz) in (%sx = %c16, %sy = %c1, %sz = %c1) {
    %v = memref.load %d[%tx] : memref<16xf32>
    %w = arith.mulf %v, %f : f32
    memref.store %w, %d[%tx] : memref<16xf32>
    gpu.terminator
  }
  %t4 = gpu.memcpy async [%t3] %h, %d : memref<16xf32>, memref<16xf32>
  %t5 = gpu.dealloc async [%t4] %d : memref<16xf32>
  gpu.wait [%t5]
  return
}
