//===- Contractions.cpp - matmuls through a BLAS ---------------------------===//
//
// What convert-linalg-to-blas calls: C += op(A) op(B) for f32 (oneDNN's
// sgemm) and f64 (OpenBLAS's dgemm), 2-D or batched, and y += op(A) x. The
// operands arrive as memref descriptors with any strides; a matrix whose
// rows or columns are contiguous goes to the library with a leading
// dimension and a transpose flag, anything else (and empty or degenerate
// shapes) through a plain loop. docs/Performance.md has the measurements
// behind the choice of libraries.
//
//===----------------------------------------------------------------------===//

#include "EnvParse.h"

#include <cblas.h>
#include <dnnl.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <mutex>

namespace {

template <typename T, int N> struct StridedMemRef {
  T *basePtr;
  T *data;
  int64_t offset;
  int64_t sizes[N];
  int64_t strides[N];
};

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

/// A matrix element (i, j) at data[i * rowStride + j * colStride] with
/// `rows` x `cols` elements, as a row-major BLAS operand: the transpose flag
/// and leading dimension, or false if neither rows nor columns are
/// contiguous.
bool asBlasOperand(int64_t rows, int64_t cols, int64_t rowStride,
                   int64_t colStride, bool &transposed, int64_t &ld) {
  // The stride of a dim of size one never matters.
  if (cols == 1)
    colStride = 1;
  if (rows == 1)
    rowStride = std::max<int64_t>(cols, 1);
  if (colStride == 1 && rowStride >= std::max<int64_t>(cols, 1)) {
    transposed = false;
    ld = rowStride;
    return true;
  }
  if (rowStride == 1 && colStride >= std::max<int64_t>(rows, 1)) {
    transposed = true;
    ld = colStride;
    return true;
  }
  return false;
}

void gemm(float *a, float *b, float *c, int64_t m, int64_t n, int64_t k,
          bool ta, int64_t lda, bool tb, int64_t ldb, int64_t ldc) {
  dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, 1.0f, a, lda, b, ldb,
             1.0f, c, ldc);
}

void gemm(double *a, double *b, double *c, int64_t m, int64_t n, int64_t k,
          bool ta, int64_t lda, bool tb, int64_t ldb, int64_t ldc) {
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans,
              tb ? CblasTrans : CblasNoTrans, m, n, k, 1.0, a, lda, b, ldb,
              1.0, c, ldc);
}

/// C[m x n] += A[m x k] B[k x n], each given by a pointer and the strides
/// of its logical rows and columns.
template <typename T>
void multiplyAdd(T *a, int64_t ar, int64_t ac, T *b, int64_t br, int64_t bc,
                 T *c, int64_t cr, int64_t cc, int64_t m, int64_t n,
                 int64_t k) {
  if (m == 0 || n == 0 || k == 0)
    return;
  bool ta, tb, tc;
  int64_t lda, ldb, ldc;
  if (asBlasOperand(m, k, ar, ac, ta, lda) &&
      asBlasOperand(k, n, br, bc, tb, ldb) &&
      asBlasOperand(m, n, cr, cc, tc, ldc) && !tc) {
    gemm(a, b, c, m, n, k, ta, lda, tb, ldb, ldc);
    return;
  }
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      T sum = c[i * cr + j * cc];
      for (int64_t l = 0; l < k; ++l)
        sum += a[i * ar + l * ac] * b[l * br + j * bc];
      c[i * cr + j * cc] = sum;
    }
}

/// The logical (rows, cols) strides of a 2-D operand stored transposed or
/// not: memref dims (d0, d1) hold (row, col), or (col, row) when
/// `transposed`.
template <typename M>
void strides2(const M &x, int d0, int d1, bool transposed, int64_t &r,
              int64_t &c) {
  r = transposed ? x.strides[d1] : x.strides[d0];
  c = transposed ? x.strides[d0] : x.strides[d1];
}

template <typename T>
void matmul(StridedMemRef<T, 2> *a, StridedMemRef<T, 2> *b,
            StridedMemRef<T, 2> *c, int32_t ta, int32_t tb) {
  setThreadsOnce();
  int64_t ar, ac, br, bc;
  strides2(*a, 0, 1, ta, ar, ac);
  strides2(*b, 0, 1, tb, br, bc);
  int64_t m = c->sizes[0], n = c->sizes[1];
  int64_t k = ta ? a->sizes[0] : a->sizes[1];
  multiplyAdd(a->data + a->offset, ar, ac, b->data + b->offset, br, bc,
              c->data + c->offset, c->strides[0], c->strides[1], m, n, k);
}

template <typename T>
void batchMatmul(StridedMemRef<T, 3> *a, StridedMemRef<T, 3> *b,
                 StridedMemRef<T, 3> *c, int32_t ta, int32_t tb) {
  setThreadsOnce();
  int64_t ar, ac, br, bc;
  strides2(*a, 1, 2, ta, ar, ac);
  strides2(*b, 1, 2, tb, br, bc);
  int64_t m = c->sizes[1], n = c->sizes[2];
  int64_t k = ta ? a->sizes[1] : a->sizes[2];
  for (int64_t i = 0; i < c->sizes[0]; ++i)
    multiplyAdd(a->data + a->offset + i * a->strides[0], ar, ac,
                b->data + b->offset + i * b->strides[0], br, bc,
                c->data + c->offset + i * c->strides[0], c->strides[1],
                c->strides[2], m, n, k);
}

/// y[m] += A[m x k] x[k]: a matmul with one column.
template <typename T>
void matvec(StridedMemRef<T, 2> *a, StridedMemRef<T, 1> *x,
            StridedMemRef<T, 1> *y, int32_t ta) {
  setThreadsOnce();
  int64_t ar, ac;
  strides2(*a, 0, 1, ta, ar, ac);
  int64_t m = y->sizes[0], k = x->sizes[0];
  multiplyAdd(a->data + a->offset, ar, ac, x->data + x->offset,
              x->strides[0], int64_t(1), y->data + y->offset, y->strides[0],
              int64_t(1), m, int64_t(1), k);
}

} // namespace

extern "C" {
void _mlir_ciface_hp_matmul_f32(StridedMemRef<float, 2> *a,
                                StridedMemRef<float, 2> *b,
                                StridedMemRef<float, 2> *c, int32_t ta,
                                int32_t tb) {
  matmul(a, b, c, ta, tb);
}
void _mlir_ciface_hp_matmul_f64(StridedMemRef<double, 2> *a,
                                StridedMemRef<double, 2> *b,
                                StridedMemRef<double, 2> *c, int32_t ta,
                                int32_t tb) {
  matmul(a, b, c, ta, tb);
}
void _mlir_ciface_hp_batch_matmul_f32(StridedMemRef<float, 3> *a,
                                      StridedMemRef<float, 3> *b,
                                      StridedMemRef<float, 3> *c, int32_t ta,
                                      int32_t tb) {
  batchMatmul(a, b, c, ta, tb);
}
void _mlir_ciface_hp_batch_matmul_f64(StridedMemRef<double, 3> *a,
                                      StridedMemRef<double, 3> *b,
                                      StridedMemRef<double, 3> *c, int32_t ta,
                                      int32_t tb) {
  batchMatmul(a, b, c, ta, tb);
}
void _mlir_ciface_hp_matvec_f32(StridedMemRef<float, 2> *a,
                                StridedMemRef<float, 1> *x,
                                StridedMemRef<float, 1> *y, int32_t ta) {
  matvec(a, x, y, ta);
}
void _mlir_ciface_hp_matvec_f64(StridedMemRef<double, 2> *a,
                                StridedMemRef<double, 1> *x,
                                StridedMemRef<double, 1> *y, int32_t ta) {
  matvec(a, x, y, ta);
}
}
