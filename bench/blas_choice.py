#!/usr/bin/env python3
"""Which BLAS hp's CPU contractions call: single-thread sgemm and dgemm,
measured on this machine, for the libraries Debian packages.

Each library gets a small C or C++ program (written here, compiled with the
system compiler, linked against the Debian package), run with one thread
(what each rank gets by default), best of five timed calls after a warm-up.
Sizes: the issue's layer matmul (256x512 by 512x1024), squares of 64, 512
and 1024, and a skinny 4096x64 by 64x64.

  python3 bench/blas_choice.py          # table of GFLOP/s per library
Needs libopenblas-dev, libblis-dev, libeigen3-dev and libdnnl-dev
(scripts/install-deps.sh installs OpenBLAS, the one hp links; the others
are only needed here).
"""
import os
import subprocess
import sys
import tempfile

SIZES = [(256, 1024, 512), (64, 64, 64), (512, 512, 512), (1024, 1024, 1024),
         (4096, 64, 64)]

COMMON = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}
#define BENCH(T, CALL)                                                      \
  for (int s = 0; s < nsizes; ++s) {                                        \
    int M = sizes[s][0], N = sizes[s][1], K = sizes[s][2];                  \
    T *A = (T *)malloc(sizeof(T) * M * K);                                  \
    T *B = (T *)malloc(sizeof(T) * K * N);                                  \
    T *C = (T *)malloc(sizeof(T) * M * N);                                  \
    for (int i = 0; i < M * K; ++i) A[i] = (T)((i * 7) % 13) / 13;          \
    for (int i = 0; i < K * N; ++i) B[i] = (T)((i * 5) % 11) / 11;          \
    for (int i = 0; i < M * N; ++i) C[i] = 0;                               \
    CALL;                                                                   \
    double best = 1e30;                                                     \
    for (int r = 0; r < 5; ++r) {                                           \
      double t0 = now();                                                    \
      CALL;                                                                 \
      double t = now() - t0;                                                \
      if (t < best) best = t;                                               \
    }                                                                       \
    printf("%d %d %d %.2f\n", M, N, K, 2.0 * M * N * K / best / 1e9);        \
    free(A); free(B); free(C);                                              \
  }
"""

SIZE_TABLE = "static const int sizes[][3] = {%s};\nstatic const int nsizes = %d;\n" % (
    ", ".join("{%d, %d, %d}" % s for s in SIZES), len(SIZES))

PROGRAMS = {
    "OpenBLAS": ("c", ["-lopenblas"], r"""
#include <cblas.h>
int main(int argc, char **argv) {
  if (argv[1][0] == 's') {
    BENCH(float, cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K,
                             1.0f, A, K, B, N, 1.0f, C, N))
  } else {
    BENCH(double, cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K,
                              1.0, A, K, B, N, 1.0, C, N))
  }
  return 0;
}
"""),
    "BLIS": ("c", ["-lblis"], r"""
#include <blis.h>
int main(int argc, char **argv) {
  if (argv[1][0] == 's') {
    float one = 1;
    BENCH(float, bli_sgemm(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, M, N, K, &one,
                           A, K, 1, B, N, 1, &one, C, N, 1))
  } else {
    double one = 1;
    BENCH(double, bli_dgemm(BLIS_NO_TRANSPOSE, BLIS_NO_TRANSPOSE, M, N, K, &one,
                            A, K, 1, B, N, 1, &one, C, N, 1))
  }
  return 0;
}
"""),
    "Eigen": ("cpp", ["-march=native"], r"""
#include <Eigen/Dense>
template <typename T> using Mat =
    Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
int main(int argc, char **argv) {
  if (argv[1][0] == 's') {
    BENCH(float, (Mat<float>(C, M, N).noalias() +=
                  Mat<float>(A, M, K) * Mat<float>(B, K, N)))
  } else {
    BENCH(double, (Mat<double>(C, M, N).noalias() +=
                   Mat<double>(A, M, K) * Mat<double>(B, K, N)))
  }
  return 0;
}
"""),
    "oneDNN": ("c", ["-ldnnl"], r"""
#include <dnnl.h>
int main(int argc, char **argv) {
  if (argv[1][0] == 's') {
    BENCH(float, dnnl_sgemm('N', 'N', M, N, K, 1.0f, A, K, B, N, 1.0f, C, N))
  } else {
    printf("no dgemm\n");
  }
  return 0;
}
"""),
}


def build(name, lang, flags, body, tmp):
    src = os.path.join(tmp, name + "." + lang)
    exe = os.path.join(tmp, name)
    text = COMMON + SIZE_TABLE + body
    with open(src, "w") as f:
        f.write(text)
    compiler = ["g++", "-std=c++17", "-I/usr/include/eigen3"] if lang == "cpp" else ["gcc"]
    cmd = compiler + ["-O3", src, "-o", exe] + flags
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1] if r.stderr else "build failed"
    return exe, None


def main():
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               BLIS_NUM_THREADS="1", DNNL_MAX_CPU_ISA=os.environ.get("DNNL_MAX_CPU_ISA", "ALL"))
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, (lang, flags, body) in PROGRAMS.items():
            exe, err = build(name, lang, flags, body, tmp)
            if not exe:
                print(f"{name}: not built ({err})")
                continue
            for t in ("s", "d"):
                out = subprocess.run([exe, t], capture_output=True, text=True, env=env)
                for line in out.stdout.splitlines():
                    parts = line.split()
                    if len(parts) == 4:
                        results[(name, t, tuple(map(int, parts[:3])))] = float(parts[3])
    names = list(PROGRAMS)
    print("GFLOP/s, one thread, best of 5 (M x K times K x N)")
    print(f"{'gemm':<24}" + "".join(f"{n:>10}" for n in names))
    for t in ("s", "d"):
        for m, n, k in SIZES:
            row = f"{t}gemm {m}x{k} x {k}x{n}"
            cells = [results.get((name, t, (m, n, k))) for name in names]
            print(f"{row:<24}" + "".join(f"{c:>10.1f}" if c else f"{'-':>10}" for c in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
