//===- CudaContractions.cpp - contractions through cuBLAS -----------------===//
//
// What convert-linalg-to-blas{target=gpu} calls: C += A B for f32 and f64
// contractions on device buffers, as the plan of
// include/hp/Runtime/ContractionPlan.h says, one cuBLAS gemm per point of
// the loops around it, all on the rank's stream (the one kernels and NCCL
// use), so nothing synchronises. The pass converts only contractions whose
// static layout fits a BLAS, so there is no host fallback here.
//
// cuBLAS is loaded on the first contraction (dlopen), not linked: programs
// without contractions, and machines with the driver and NCCL but no
// cuBLAS, run as before; a contraction without cuBLAS is an error naming
// the library.
//
//===----------------------------------------------------------------------===//

#include "ContractionOperands.h"

#include <cublas_api.h>
#include <dlfcn.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

extern "C" void *hpCudaRankStream();

namespace {

using namespace hp::runtime::contraction;

[[noreturn]] void fail(const std::string &message) {
  const char *rank = std::getenv("OMPI_COMM_WORLD_RANK");
  std::fprintf(stderr, "hp: rank %s: %s\n", rank ? rank : "0", message.c_str());
  std::fflush(nullptr);
  std::_Exit(4);
}

/// The cuBLAS functions hp calls, resolved once.
struct CuBLAS {
  using Create = cublasStatus_t (*)(cublasHandle_t *);
  using SetStream = cublasStatus_t (*)(cublasHandle_t, cudaStream_t);
  using Sgemm = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t,
                                   cublasOperation_t, int, int, int,
                                   const float *, const float *, int,
                                   const float *, int, const float *, float *,
                                   int);
  using Dgemm = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t,
                                   cublasOperation_t, int, int, int,
                                   const double *, const double *, int,
                                   const double *, int, const double *,
                                   double *, int);
  Sgemm sgemm = nullptr;
  Dgemm dgemm = nullptr;
  cublasHandle_t handle = nullptr;
};

template <typename F> F symbol(void *library, const char *name) {
  void *f = dlsym(library, name);
  if (!f)
    fail(std::string("cuBLAS has no ") + name);
  return reinterpret_cast<F>(f);
}

void check(cublasStatus_t status, const char *call) {
  if (status != CUBLAS_STATUS_SUCCESS)
    fail(std::string(call) + " failed: cublasStatus_t " +
         std::to_string(static_cast<int>(status)));
}

/// cuBLAS with a handle on the rank's stream, loaded on first use.
CuBLAS &cublas() {
  static CuBLAS c = [] {
    CuBLAS c;
    void *library = nullptr;
    for (const char *name :
         {"libcublas.so.13", "libcublas.so.12", "libcublas.so"})
      if ((library = dlopen(name, RTLD_NOW | RTLD_GLOBAL)))
        break;
    if (!library)
      fail(std::string("contractions on GPUs call cuBLAS, and libcublas.so "
                       "could not be loaded: ") +
           dlerror());
    c.sgemm = symbol<CuBLAS::Sgemm>(library, "cublasSgemm_v2");
    c.dgemm = symbol<CuBLAS::Dgemm>(library, "cublasDgemm_v2");
    // The stream first: it makes the device's primary context current.
    auto stream = static_cast<cudaStream_t>(hpCudaRankStream());
    check(symbol<CuBLAS::Create>(library, "cublasCreate_v2")(&c.handle),
          "cublasCreate");
    check(symbol<CuBLAS::SetStream>(library, "cublasSetStream_v2")(c.handle,
                                                                   stream),
          "cublasSetStream");
    return c;
  }();
  return c;
}

int narrow(int64_t v) {
  if (v > INT_MAX)
    fail("hp_gpu_contract: a gemm dimension or leading dimension over "
         "INT_MAX");
  return static_cast<int>(v);
}

/// Row-major C[m x n] += op(A) op(B) as cuBLAS's column-major
/// C^T[n x m] += op(B)^T op(A)^T: B first, the flags as they are.
template <typename T>
void gemm(const Gemm &g, const bool t[3], const int64_t ld[3], T *a, T *b,
          T *c) {
  CuBLAS &cb = cublas();
  const T one = 1;
  auto op = [](bool transposed) {
    return transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  };
  // A column-major C is the row-major C^T += B^T A^T.
  bool swap = t[kC];
  T *first = swap ? a : b, *second = swap ? b : a;
  bool tFirst = swap ? !t[kA] : t[kB], tSecond = swap ? !t[kB] : t[kA];
  int64_t ldFirst = swap ? ld[kA] : ld[kB], ldSecond = swap ? ld[kB] : ld[kA];
  int64_t rows = swap ? g.m.size : g.n.size, cols = swap ? g.n.size : g.m.size;
  if constexpr (sizeof(T) == 4)
    check(cb.sgemm(cb.handle, op(tFirst), op(tSecond), narrow(rows),
                   narrow(cols), narrow(g.k.size), &one, first, narrow(ldFirst),
                   second, narrow(ldSecond), &one, c, narrow(ld[kC])),
          "cublasSgemm");
  else
    check(cb.dgemm(cb.handle, op(tFirst), op(tSecond), narrow(rows),
                   narrow(cols), narrow(g.k.size), &one, first, narrow(ldFirst),
                   second, narrow(ldSecond), &one, c, narrow(ld[kC])),
          "cublasDgemm");
}

template <typename T>
void contract(UnrankedMemRef<T> *a, UnrankedMemRef<T> *b, UnrankedMemRef<T> *c,
              int64_t numLoops, int64_t word0, int64_t word1) {
  Operands<T> operands(a, b, c);
  const int64_t words[kSpecWords] = {word0, word1};
  std::optional<Plan> plan = planFor(operands, numLoops, words);
  if (!plan)
    fail("hp_gpu_contract: malformed loop spec");
  if (plan->empty)
    return;
  bool t[3];
  int64_t ld[3];
  if (!plan->gemm.layout(t, ld))
    fail("hp_gpu_contract: operand strides no BLAS takes (the pass converts "
         "only contractions whose static layout fits)");
  plan->forEachGemm([&](int64_t oa, int64_t ob, int64_t oc) {
    gemm(plan->gemm, t, ld, operands.data[kA] + oa, operands.data[kB] + ob,
         operands.data[kC] + oc);
  });
}

} // namespace

HP_CONTRACTION_ENTRY_POINTS(hp_gpu_contract, contract)
