// hp-lower-to-gpu on the tensor-parallel MLP: local computation becomes NVVM
// kernels, the partial-sum redistribute an ncclAllReduce on the rank's
// stream, buffers device allocations; the host side calls the mgpu* ABI.
// keep-layout-attrs keeps the boundary layouts on the LLVM functions.
// RUN: hp-opt --hp-lower-to-gpu="keep-layout-attrs format=isa" %hp_src_root/examples/tp_mlp.mlir | FileCheck %s --check-prefix=KEEP
// RUN: hp-opt --hp-lower-to-gpu="format=isa" %hp_src_root/examples/tp_mlp.mlir | FileCheck %s --check-prefix=DROP
// KEEP: llvm.func @tp_mlp({{.*}}dtensor.sharding = #dtensor.sharding<@tp
// DROP-NOT: dtensor.sharding
// RUN: hp-opt --hp-lower-to-gpu="format=isa chip=sm_80 features=+ptx70" %hp_src_root/examples/tp_mlp.mlir | FileCheck %s

// Loops are tiled 16x16: tiles are blocks, points threads, guarded for
// shapes that are not a multiple of the tile.
// CHECK-DAG: gpu.binary @tp_mlp_kernel {{.*}}.target sm_80{{.*}}%ctaid.x{{.*}}%tid.x{{.*}}setp.ge
// CHECK-DAG: llvm.func @tp_mlp(
// CHECK-DAG: llvm.call @hpNcclStream()
// CHECK-DAG: llvm.call @ncclAllReduce(
// CHECK-DAG: llvm.call @mgpuMemAlloc(
// CHECK-DAG: llvm.call @mgpuMemcpy(
// CHECK-DAG: llvm.call @mgpuMemFree(
// CHECK-DAG: gpu.launch_func {{.*}}@tp_mlp_kernel::@tp_mlp_kernel
// The two matmuls call cuBLAS (convert-linalg-to-blas target=gpu); with
// cublas=false they are kernels like the rest.
// CHECK-DAG: llvm.call @_mlir_ciface_hp_gpu_contract_f32(
// RUN: hp-opt --hp-lower-to-gpu="format=isa cublas=false" %hp_src_root/examples/tp_mlp.mlir | FileCheck %s --check-prefix=NO-CUBLAS
// NO-CUBLAS-NOT: hp_gpu_contract
// NO-CUBLAS: gpu.launch_func
// NO-CUBLAS-NOT: hp_gpu_contract
// CHECK-NOT: memref.
// CHECK-NOT: nccl.

// The planning options reach convert-dtensor-to-shard as in hp-partition:
// the all_reduce of 8x16xf32 costs latency (65536) + 768 by default, and
// 2 x 768 with no latency and axis weight 2.
// RUN: hp-opt --hp-lower-to-gpu="print-plans format=isa" %hp_src_root/examples/tp_mlp.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLAN-DEFAULT
// RUN: hp-opt --hp-lower-to-gpu="print-plans latency-bytes=0 axis-weights=2 format=isa" %hp_src_root/examples/tp_mlp.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=PLAN-OPTIONS
// PLAN-DEFAULT: remark: plan [P(sum)] -> [R]: cost=6.630400e+04
// PLAN-OPTIONS: remark: plan [P(sum)] -> [R]: cost=1.536000e+03

// format=auto (the default) embeds a fatbin when ptxas is on PATH and PTX
// for the driver to compile otherwise.
// RUN: rm -rf %t.nopath && mkdir -p %t.nopath
// RUN: env PATH=%t.nopath hp-opt --hp-lower-to-gpu %hp_src_root/examples/tp_mlp.mlir | FileCheck %s --check-prefix=NO-PTXAS
// RUN: env PATH=%cuda_bin:/usr/bin:/bin hp-opt --hp-lower-to-gpu %hp_src_root/examples/tp_mlp.mlir | FileCheck %s --check-prefix=PTXAS
// NO-PTXAS: gpu.binary @tp_mlp_kernel {{.*}}ISATime{{.*}}assembly = "
// PTXAS: gpu.binary @tp_mlp_kernel {{.*}}ISAToBinaryTime{{.*}}}, "P\ED
// PTXAS-NOT: assembly =

// The default format with ptxas (fatbin, assembled with the toolkit's ptxas) and the
// whole program linked against hp's GPU runtime, real libnccl and the CUDA
// driver stub, with no undefined symbol left. Running it needs a GPU.
// REQUIRES: gpu-runtime
// RUN: env PATH=%cuda_bin:$PATH hp-opt --hp-lower-to-gpu %hp_src_root/examples/tp_mlp.mlir -o %t.mlir
// RUN: mlir-translate --mlir-to-llvmir %t.mlir -o %t.ll
// RUN: llc -O2 -filetype=obj -relocation-model=pic %t.ll -o %t.o
// RUN: c++ -fuse-ld=lld %t.o -o %t.exe -L%hp_lib_dir -lhp_runtime_gpu -lhp_cuda_runtime -L%nccl_lib_dir -lnccl -L/usr/lib/llvm-22/lib -lmlir_c_runner_utils -L%cuda_stubs -lcuda -Wl,-rpath,%hp_lib_dir -Wl,--no-undefined
// RUN: llvm-nm -u %t.exe | FileCheck %s --check-prefix=LINKED

// LINKED-DAG: U mgpuLaunchKernel
// LINKED-DAG: U mgpuModuleLoad
// LINKED-DAG: U ncclAllReduce
// LINKED-DAG: U hpNcclStream
// LINKED-DAG: U _mlir_ciface_hp_gpu_contract_f32
// The runtime loads cuBLAS on the first contraction; the toolkit's library
// exports every function it looks up.
// RUN: llvm-nm -D --defined-only %cuda_lib/libcublas.so | FileCheck %s --check-prefix=CUBLAS
// CUBLAS-DAG: T cublasCreate_v2
// CUBLAS-DAG: T cublasSetStream_v2
// CUBLAS-DAG: T cublasSgemm_v2
// CUBLAS-DAG: T cublasDgemm_v2

// entry-point reaches convert-memref-to-gpu.
// RUN: not hp-opt --hp-lower-to-gpu="entry-point=nowhere format=isa" %hp_src_root/examples/tp_mlp.mlir -o /dev/null 2>&1 | FileCheck %s --check-prefix=ENTRY
// ENTRY: error: entry point 'nowhere' is not a function of this module
