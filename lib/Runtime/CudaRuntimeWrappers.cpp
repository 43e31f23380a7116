//===- CudaRuntimeWrappers.cpp - the mgpu* ABI over the CUDA driver API ---===//
//
// Upstream's gpu-to-LLVM lowering and gpu.binary translation call these
// functions; Debian's MLIR packages do not ship an implementation, so hp
// carries one. Design choices (docs/GPU.md):
//  * One device per process: the launcher's local rank picks it
//    (OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, HP_LOCAL_RANK), its
//    primary context is made current on first use.
//  * One stream per process. mgpuStreamCreate returns it and
//    mgpuStreamDestroy leaves it alone, and hp's NCCL calls use it too
//    (hpCudaRankStream), so kernels and collectives are ordered without
//    device-wide synchronisation.
//  * Every CUDA error is reported with the failing call and the rank, and
//    the process exits.
//
//===----------------------------------------------------------------------===//

#include "EnvParse.h"

#include <cuda.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace {

/// The first of the launcher's variables `a`, `b`, `c` that is set, as a
/// rank in [0, kMaxRanks); `fallback` if none is. A malformed value ends the
/// process naming it (atoi would pick device 0, or a negative one).
int envInt(const char *a, const char *b, const char *c, int fallback) {
  for (const char *name : {a, b, c}) {
    const char *v = std::getenv(name);
    if (!v)
      continue;
    int64_t value;
    if (hp::runtime::parseInt(v, 0, hp::runtime::kMaxRanks - 1, value))
      return static_cast<int>(value);
    std::fprintf(stderr, "hp: %s='%s' must be an integer from 0 to %lld\n",
                 name, v, static_cast<long long>(hp::runtime::kMaxRanks - 1));
    std::fflush(stderr);
    std::_Exit(4);
  }
  return fallback;
}

int worldRank() {
  return envInt("OMPI_COMM_WORLD_RANK", "PMI_RANK", "HP_RANK", 0);
}

/// Exits without running static destructors: the generated module
/// destructors would call into the failed driver again and report a second,
/// misleading error.
[[noreturn]] void failExit() {
  std::fflush(nullptr);
  std::_Exit(4);
}

void check(CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return;
  const char *name = "unknown", *text = "";
  cuGetErrorName(result, &name);
  cuGetErrorString(result, &text);
  std::fprintf(stderr, "hp: rank %d: %s failed: %s (CUresult %d%s%s)\n",
               worldRank(), call, name, static_cast<int>(result),
               *text ? ": " : "", text);
  failExit();
}

#define HP_CUDA(call) check(call, #call)

struct Device {
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
};

Device &device() {
  static Device d = [] {
    Device d;
    HP_CUDA(cuInit(0));
    int count = 0;
    HP_CUDA(cuDeviceGetCount(&count));
    if (count == 0) {
      std::fprintf(stderr, "hp: rank %d: no CUDA device\n", worldRank());
      failExit();
    }
    int local = envInt("OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                       "HP_LOCAL_RANK", 0);
    HP_CUDA(cuDeviceGet(&d.device, local % count));
    HP_CUDA(cuDevicePrimaryCtxRetain(&d.context, d.device));
    HP_CUDA(cuCtxSetCurrent(d.context));
    HP_CUDA(cuStreamCreate(&d.stream, CU_STREAM_NON_BLOCKING));
    return d;
  }();
  // Threads other than the first need the context too.
  HP_CUDA(cuCtxSetCurrent(d.context));
  return d;
}

} // namespace

extern "C" {

/// The per-process stream; hp's NCCL calls are issued on it.
void *hpCudaRankStream() { return device().stream; }

CUmodule mgpuModuleLoad(void *data, size_t /*gpuBlobSize*/) {
  device();
  CUmodule module = nullptr;
  HP_CUDA(cuModuleLoadData(&module, data));
  return module;
}

CUmodule mgpuModuleLoadJIT(void *data, int optLevel) {
  device();
  CUmodule module = nullptr;
  char log[8192] = {0};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log)),
                    reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
  CUresult result = cuModuleLoadDataEx(&module, data, 3, options, values);
  if (result != CUDA_SUCCESS)
    std::fprintf(stderr, "hp: rank %d: PTX JIT log:\n%s\n", worldRank(), log);
  check(result, "cuModuleLoadDataEx");
  return module;
}

void mgpuModuleUnload(CUmodule module) { HP_CUDA(cuModuleUnload(module)); }

CUfunction mgpuModuleGetFunction(CUmodule module, const char *name) {
  CUfunction function = nullptr;
  HP_CUDA(cuModuleGetFunction(&function, module, name));
  return function;
}

void mgpuLaunchKernel(CUfunction function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, CUstream stream,
                      void **params, void **extra, size_t /*paramsCount*/) {
  device();
  if (smem > 0) {
    int maxShared = 0;
    HP_CUDA(cuDeviceGetAttribute(
        &maxShared, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
        device().device));
    if (smem > maxShared) {
      std::fprintf(stderr,
                   "hp: rank %d: kernel needs %d bytes of shared memory, the "
                   "device has %d\n",
                   worldRank(), smem, maxShared);
      failExit();
    }
    HP_CUDA(cuFuncSetAttribute(
        function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem));
  }
  HP_CUDA(cuLaunchKernel(function, gridX, gridY, gridZ, blockX, blockY, blockZ,
                         smem, stream, params, extra));
}

CUstream mgpuStreamCreate() { return device().stream; }

void mgpuStreamDestroy(CUstream stream) {
  // The per-process stream lives as long as the process.
  if (stream != device().stream)
    HP_CUDA(cuStreamDestroy(stream));
}

void mgpuStreamSynchronize(CUstream stream) {
  HP_CUDA(cuStreamSynchronize(stream));
}

void mgpuStreamWaitEvent(CUstream stream, CUevent event) {
  HP_CUDA(cuStreamWaitEvent(stream, event, 0));
}

CUevent mgpuEventCreate() {
  device();
  CUevent event = nullptr;
  HP_CUDA(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING));
  return event;
}

void mgpuEventDestroy(CUevent event) { HP_CUDA(cuEventDestroy(event)); }

void mgpuEventSynchronize(CUevent event) { HP_CUDA(cuEventSynchronize(event)); }

void mgpuEventRecord(CUevent event, CUstream stream) {
  HP_CUDA(cuEventRecord(event, stream));
}

void *mgpuMemAlloc(uint64_t sizeBytes, CUstream /*stream*/, bool isHostShared) {
  device();
  CUdeviceptr ptr = 0;
  if (sizeBytes == 0)
    return nullptr;
  if (isHostShared)
    HP_CUDA(cuMemAllocManaged(&ptr, sizeBytes, CU_MEM_ATTACH_GLOBAL));
  else
    HP_CUDA(cuMemAlloc(&ptr, sizeBytes));
  return reinterpret_cast<void *>(ptr);
}

void mgpuMemFree(void *ptr, CUstream stream) {
  if (!ptr)
    return;
  // Pending kernels on the stream may still read the buffer.
  HP_CUDA(cuStreamSynchronize(stream ? stream : device().stream));
  HP_CUDA(cuMemFree(reinterpret_cast<CUdeviceptr>(ptr)));
}

void mgpuMemcpy(void *dst, void *src, size_t sizeBytes, CUstream stream) {
  HP_CUDA(cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                        reinterpret_cast<CUdeviceptr>(src), sizeBytes, stream));
}

void mgpuMemset32(void *dst, unsigned int value, size_t count,
                  CUstream stream) {
  HP_CUDA(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                           stream));
}

void mgpuMemset16(void *dst, unsigned short value, size_t count,
                  CUstream stream) {
  HP_CUDA(cuMemsetD16Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                           stream));
}

void mgpuSetDefaultDevice(int32_t /*device*/) {
  // The device follows the local rank; see device().
}

} // extern "C"
