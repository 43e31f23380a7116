//===- ContractionPlan.h - a contraction as gemms over loops ----*- C++ -*-===//
//
// How convert-linalg-to-blas describes a contraction to the runtime, and how
// the runtime (CPU BLAS and cuBLAS alike) turns it into gemms. A contraction
// C += A B has loops of four kinds: batch (A, B, C index it), m (A, C),
// n (B, C) and k (A, B). The pass packs, for each loop, the memref dim of A,
// B and C it indexes into a few integers (the spec); the runtime reads each
// loop's extent and strides from the operands, merges loops of one kind that
// are one contiguous range in every operand, runs the largest m, n and k
// loops a BLAS accepts as one gemm and loops over the rest.
//
// Header-only and free of MLIR: the compiler uses the spec packing and the
// GPU pass's compile-time check, the runtime libraries the rest.
//
//===----------------------------------------------------------------------===//

#ifndef HP_RUNTIME_CONTRACTIONPLAN_H
#define HP_RUNTIME_CONTRACTIONPLAN_H

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace hp::runtime::contraction {

enum Operand { kA, kB, kC };
enum Kind { kBatch, kM, kN, kK };

/// The spec: loop `l`'s dims of A, B and C, each as dim + 1 (0: the operand
/// does not index the loop) in 4 bits, 12 bits per loop, 5 loops per word.
constexpr int kLoopsPerWord = 5;
constexpr int kSpecWords = 2;
constexpr int kMaxLoops = kLoopsPerWord * kSpecWords;
constexpr int64_t kMaxRank = 14;

using LoopDims = std::array<int64_t, 3>; // dim of A, B, C or -1

/// The spec words of `loops`, or nothing if there are too many loops or a
/// dim does not fit.
inline std::optional<std::array<int64_t, kSpecWords>>
packSpec(const std::vector<LoopDims> &loops) {
  if (loops.size() > size_t(kMaxLoops))
    return std::nullopt;
  std::array<int64_t, kSpecWords> words{};
  for (size_t l = 0; l < loops.size(); ++l)
    for (int o = 0; o < 3; ++o) {
      int64_t dim = loops[l][o];
      if (dim < -1 || dim >= kMaxRank)
        return std::nullopt;
      int shift = int(l % kLoopsPerWord) * 12 + o * 4;
      words[l / kLoopsPerWord] |= (dim + 1) << shift;
    }
  return words;
}

inline LoopDims unpackLoop(const int64_t *words, int64_t l) {
  LoopDims dims;
  for (int o = 0; o < 3; ++o) {
    int shift = int(l % kLoopsPerWord) * 12 + o * 4;
    dims[o] = ((words[l / kLoopsPerWord] >> shift) & 0xF) - 1;
  }
  return dims;
}

/// The kind of a loop the operands `in` index, if it is one of the four.
inline std::optional<Kind> kindOf(bool inA, bool inB, bool inC) {
  if (inA && inB && inC)
    return kBatch;
  if (inA && inC && !inB)
    return kM;
  if (inB && inC && !inA)
    return kN;
  if (inA && inB && !inC)
    return kK;
  return std::nullopt;
}

/// One loop: its extent and its stride in each operand (0 where the operand
/// does not index it).
struct Loop {
  Kind kind;
  int64_t size;
  std::array<int64_t, 3> stride;
};

/// A matrix element (i, j) at data[i * rowStride + j * colStride] with
/// `rows` x `cols` elements, as a row-major BLAS operand: the transpose flag
/// and leading dimension, or false if neither rows nor columns are
/// contiguous.
inline bool asBlasOperand(int64_t rows, int64_t cols, int64_t rowStride,
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

/// A gemm C[m x n] += A[m x k] B[k x n] over three of the loops; a missing
/// m or n loop is a unit one.
struct Gemm {
  Loop m{kM, 1, {0, 0, 0}}, n{kN, 1, {0, 0, 0}}, k{kK, 1, {0, 0, 0}};

  /// The transpose flags and leading dimensions of A, B and C as row-major
  /// BLAS operands, or false if one's strides are not a BLAS operand's.
  bool layout(bool t[3], int64_t ld[3]) const {
    return asBlasOperand(m.size, k.size, m.stride[kA], k.stride[kA], t[kA],
                         ld[kA]) &&
           asBlasOperand(k.size, n.size, k.stride[kB], n.stride[kB], t[kB],
                         ld[kB]) &&
           asBlasOperand(m.size, n.size, m.stride[kC], n.stride[kC], t[kC],
                         ld[kC]);
  }
  bool fits() const {
    bool t[3];
    int64_t ld[3];
    return layout(t, ld);
  }
};

/// Merges loops of one kind that are one contiguous range in every operand:
/// the outer one steps over the inner one whole.
inline void mergeLoops(std::vector<Loop> &loops) {
  for (bool merged = true; merged;) {
    merged = false;
    for (size_t i = 0; i < loops.size() && !merged; ++i)
      for (size_t j = 0; j < loops.size() && !merged; ++j) {
        Loop &outer = loops[i], &inner = loops[j];
        if (i == j || outer.kind != inner.kind)
          continue;
        bool contiguous = true;
        for (int o = 0; o < 3; ++o)
          contiguous &= outer.stride[o] == inner.stride[o] * inner.size;
        if (!contiguous)
          continue;
        inner.size *= outer.size;
        loops.erase(loops.begin() + i);
        merged = true;
      }
  }
}

/// The gemm over the m, n and k loops with the most work that a BLAS takes
/// (the innermost of each kind for a plain loop if none fits), removing
/// them from `loops`.
inline Gemm chooseGemm(std::vector<Loop> &loops) {
  // Candidate loop indices of each kind; -1 is a unit loop, for a kind the
  // contraction lacks.
  std::vector<int> byKind[4];
  for (int i = 0, e = int(loops.size()); i < e; ++i)
    byKind[loops[i].kind].push_back(i);
  for (Kind kind : {kM, kN, kK})
    if (byKind[kind].empty())
      byKind[kind].push_back(-1);
  auto loopAt = [&](int i, Kind kind) {
    return i < 0 ? Loop{kind, 1, {0, 0, 0}} : loops[i];
  };
  int chosen[3] = {-1, -1, -1};
  int64_t bestWork = -1;
  for (int m : byKind[kM])
    for (int n : byKind[kN])
      for (int k : byKind[kK]) {
        Gemm g{loopAt(m, kM), loopAt(n, kN), loopAt(k, kK)};
        int64_t work = g.m.size * g.n.size * g.k.size;
        if (work > bestWork && g.fits()) {
          chosen[0] = m, chosen[1] = n, chosen[2] = k;
          bestWork = work;
        }
      }
  if (bestWork < 0) {
    auto innermost = [&](Kind kind, Operand o) {
      return *std::min_element(
          byKind[kind].begin(), byKind[kind].end(), [&](int x, int y) {
            return loopAt(x, kind).stride[o] < loopAt(y, kind).stride[o];
          });
    };
    chosen[0] = innermost(kM, kC);
    chosen[1] = innermost(kN, kC);
    chosen[2] = innermost(kK, kA);
  }
  Gemm g{loopAt(chosen[0], kM), loopAt(chosen[1], kN), loopAt(chosen[2], kK)};
  std::sort(chosen, chosen + 3, std::greater<int>());
  for (int i : chosen)
    if (i >= 0)
      loops.erase(loops.begin() + i);
  return g;
}

/// A contraction as one gemm shape run at every point of the other loops.
struct Plan {
  Gemm gemm;
  std::vector<Loop> outer;
  bool empty = false; // a loop of extent 0: nothing to add

  /// Calls `f(offsetA, offsetB, offsetC)` (in elements) for every point of
  /// the outer loops; a k loop among them accumulates into the same C,
  /// which C += A B allows.
  template <typename F> void forEachGemm(F f) const {
    if (empty)
      return;
    std::vector<int64_t> index(outer.size(), 0);
    int64_t at[3] = {0, 0, 0};
    while (true) {
      f(at[kA], at[kB], at[kC]);
      size_t l = 0;
      for (; l < outer.size(); ++l) {
        for (int o = 0; o < 3; ++o)
          at[o] += outer[l].stride[o];
        if (++index[l] < outer[l].size)
          break;
        for (int o = 0; o < 3; ++o)
          at[o] -= outer[l].stride[o] * outer[l].size;
        index[l] = 0;
      }
      if (l == outer.size())
        return;
    }
  }
};

/// The plan for loops whose dims `loopDims` index operands of the given
/// sizes and strides, or nothing if a loop is none of the four kinds or
/// names a dim an operand lacks.
inline std::optional<Plan> makePlan(const std::vector<LoopDims> &loopDims,
                                    const int64_t *const sizes[3],
                                    const int64_t *const strides[3],
                                    const int64_t ranks[3]) {
  Plan plan;
  std::vector<Loop> loops;
  for (const LoopDims &dims : loopDims) {
    Loop loop{kBatch, 1, {0, 0, 0}};
    for (int o = 0; o < 3; ++o) {
      if (dims[o] >= ranks[o])
        return std::nullopt;
      if (dims[o] < 0)
        continue;
      loop.size = sizes[o][dims[o]];
      loop.stride[o] = strides[o][dims[o]];
    }
    std::optional<Kind> kind =
        kindOf(dims[kA] >= 0, dims[kB] >= 0, dims[kC] >= 0);
    if (!kind)
      return std::nullopt;
    loop.kind = *kind;
    plan.empty |= loop.size == 0;
    // A unit loop changes no offset.
    if (loop.size > 1)
      loops.push_back(loop);
  }
  mergeLoops(loops);
  plan.gemm = chooseGemm(loops);
  plan.outer = std::move(loops);
  return plan;
}

} // namespace hp::runtime::contraction

#endif // HP_RUNTIME_CONTRACTIONPLAN_H
