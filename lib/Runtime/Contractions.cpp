//===- Contractions.cpp - contractions through a BLAS ---------------------===//
//
// What convert-linalg-to-blas calls on CPUs: C += A B for any contraction,
// f32 through oneDNN's sgemm and f64 through OpenBLAS's dgemm, as the plan
// of include/hp/Runtime/ContractionPlan.h says (gemms over merged loops);
// a gemm whose strides no BLAS takes runs as a plain loop.
// docs/Performance.md has the measurements behind the choice of libraries.
//
//===----------------------------------------------------------------------===//

#include "ContractionOperands.h"
#include "EnvParse.h"

#include <cblas.h>
#include <dnnl.h>
#include <omp.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>

namespace {

using namespace hp::runtime::contraction;

/// One thread per rank unless HP_CPU_THREADS says more: ranks share the
/// machine's cores, as torch's processes do under torchrun.
void setThreadsOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    int64_t threads = 1;
    if (const char *s = std::getenv("HP_CPU_THREADS");
        s && !hp::runtime::parseInt(s, 1, 1024, threads))
      hp::runtime::failWith(std::string("HP_CPU_THREADS='") + s +
                            "' must be an integer from 1 to 1024");
    omp_set_num_threads(static_cast<int>(threads));
    openblas_set_num_threads(static_cast<int>(threads));
  });
}

void gemm(float *a, float *b, float *c, int64_t m, int64_t n, int64_t k,
          bool ta, int64_t lda, bool tb, int64_t ldb, int64_t ldc) {
  if (dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, 1.0f, a, lda, b, ldb,
                 1.0f, c, ldc) != dnnl_success)
    hp::runtime::failWith("hp_contract: dnnl_sgemm refused its arguments");
}

void gemm(double *a, double *b, double *c, int64_t m, int64_t n, int64_t k,
          bool ta, int64_t lda, bool tb, int64_t ldb, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
              tb ? CblasTrans : CblasNoTrans, m, n, k, 1.0, a, lda, b, ldb, 1.0,
              c, ldc);
}

/// One gemm of the plan at the given operand pointers: the BLAS, or a plain
/// loop where an operand's strides are not a BLAS operand's.
template <typename T> void run(const Gemm &g, T *a, T *b, T *c) {
  bool t[3];
  int64_t ld[3];
  // OpenBLAS's cblas takes 32-bit sizes: larger ones take the loop rather
  // than wrap.
  auto fitsInt = [&] {
    return std::max({g.m.size, g.n.size, g.k.size, ld[kA], ld[kB], ld[kC]}) <=
           INT_MAX;
  };
  if (g.layout(t, ld) && fitsInt()) {
    // A column-major C is the row-major C^T += B^T A^T.
    if (t[kC])
      gemm(b, a, c, g.n.size, g.m.size, g.k.size, !t[kB], ld[kB], !t[kA],
           ld[kA], ld[kC]);
    else
      gemm(a, b, c, g.m.size, g.n.size, g.k.size, t[kA], ld[kA], t[kB], ld[kB],
           ld[kC]);
    return;
  }
  for (int64_t i = 0; i < g.m.size; ++i)
    for (int64_t j = 0; j < g.n.size; ++j) {
      T *out = c + i * g.m.stride[kC] + j * g.n.stride[kC];
      T sum = *out;
      for (int64_t l = 0; l < g.k.size; ++l)
        sum += a[i * g.m.stride[kA] + l * g.k.stride[kA]] *
               b[l * g.k.stride[kB] + j * g.n.stride[kB]];
      *out = sum;
    }
}

template <typename T>
void contract(UnrankedMemRef<T> *a, UnrankedMemRef<T> *b, UnrankedMemRef<T> *c,
              int64_t numLoops, int64_t word0, int64_t word1) {
  setThreadsOnce();
  Operands<T> operands(a, b, c);
  const int64_t words[kSpecWords] = {word0, word1};
  std::optional<Plan> plan = planFor(operands, numLoops, words);
  if (!plan)
    hp::runtime::failWith("hp_contract: malformed loop spec");
  plan->forEachGemm([&](int64_t oa, int64_t ob, int64_t oc) {
    run(plan->gemm, operands.data[kA] + oa, operands.data[kB] + ob,
        operands.data[kC] + oc);
  });
}

} // namespace

HP_CONTRACTION_ENTRY_POINTS(hp_contract, contract)
