//===- ContractionOperands.h - the contraction entry points' arguments ----===//
//
// convert-linalg-to-blas passes A, B and C as unranked memrefs and the loop
// spec as three integers (include/hp/Runtime/ContractionPlan.h); both the
// CPU (Contractions.cpp) and the GPU (CudaContractions.cpp) entry points
// read them here.
//
//===----------------------------------------------------------------------===//

#ifndef HP_RUNTIME_CONTRACTIONOPERANDS_H
#define HP_RUNTIME_CONTRACTIONOPERANDS_H

#include "hp/Runtime/ContractionPlan.h"
#include "hp/Runtime/Runtime.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace hp::runtime::contraction {

/// An unranked memref as MLIR's C interface passes it: the rank and the
/// ranked descriptor {base, data, offset, sizes[rank], strides[rank]}.
template <typename T> struct UnrankedMemRef {
  int64_t rank;
  void *descriptor;
};

/// A, B and C: each one's first element, sizes and strides.
template <typename T> struct Operands {
  T *data[3];
  const int64_t *sizes[3];
  const int64_t *strides[3];
  int64_t ranks[3];

  Operands(UnrankedMemRef<T> *a, UnrankedMemRef<T> *b, UnrankedMemRef<T> *c) {
    UnrankedMemRef<T> *all[3] = {a, b, c};
    for (int o = 0; o < 3; ++o) {
      auto *d = static_cast<char *>(all[o]->descriptor);
      T *aligned = *reinterpret_cast<T **>(d + sizeof(T *));
      auto *rest = reinterpret_cast<const int64_t *>(d + 2 * sizeof(T *));
      data[o] = aligned + rest[0];
      ranks[o] = all[o]->rank;
      sizes[o] = rest + 1;
      strides[o] = rest + 1 + ranks[o];
    }
  }
};

/// The plan of the contraction the spec describes, or nothing if the spec
/// is malformed (never for what convert-linalg-to-blas emits).
template <typename T>
std::optional<Plan> planFor(const Operands<T> &operands, int64_t numLoops,
                            const int64_t (&words)[kSpecWords]) {
  if (numLoops < 0 || numLoops > kMaxLoops)
    return std::nullopt;
  std::vector<LoopDims> loops;
  for (int64_t l = 0; l < numLoops; ++l)
    loops.push_back(unpackLoop(words, l));
  return makePlan(loops, operands.sizes, operands.strides, operands.ranks);
}

} // namespace hp::runtime::contraction

/// Defines the C entry points `_mlir_ciface_<NAME>_f32` and `..._f64` that
/// convert-linalg-to-blas calls (declared in hp/Runtime/Runtime.h), each
/// forwarding its arguments to the template `CONTRACT` for its element type.
#define HP_CONTRACTION_ENTRY_POINT(NAME, T, CONTRACT)                          \
  void _mlir_ciface_##NAME(hp_unranked_memref *a, hp_unranked_memref *b,       \
                           hp_unranked_memref *c, int64_t numLoops,            \
                           int64_t word0, int64_t word1) {                     \
    using Memref = hp::runtime::contraction::UnrankedMemRef<T>;                \
    CONTRACT(reinterpret_cast<Memref *>(a), reinterpret_cast<Memref *>(b),     \
             reinterpret_cast<Memref *>(c), numLoops, word0, word1);           \
  }
#define HP_CONTRACTION_ENTRY_POINTS(NAME, CONTRACT)                            \
  extern "C" {                                                                 \
  HP_CONTRACTION_ENTRY_POINT(NAME##_f32, float, CONTRACT)                      \
  HP_CONTRACTION_ENTRY_POINT(NAME##_f64, double, CONTRACT)                     \
  }

#endif // HP_RUNTIME_CONTRACTIONOPERANDS_H
