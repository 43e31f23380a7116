//===- RedistributePlanner.h - cheapest collective sequences ----*- C++ -*-===//
//
// Plans a redistribute as the cheapest sequence of collectives under the cost
// model of docs/RedistributePlanning.md. Free of MLIR IR types so that the
// planner, its property tests and the benchmarks share one implementation.
//
//===----------------------------------------------------------------------===//

#ifndef HP_DIALECT_DTENSOR_UTILS_REDISTRIBUTEPLANNER_H
#define HP_DIALECT_DTENSOR_UTILS_REDISTRIBUTEPLANNER_H

#include "hp/Dialect/DTensor/Layout/Placement.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <optional>
#include <string>

namespace hp::dtensor::plan {

/// Placements plus, per tensor dim, the mesh dims that split it from the
/// outermost to the innermost split. Types only carry placements, which
/// imply the default (mesh-dim) order; intermediate states may differ.
struct State {
  llvm::SmallVector<Placement, 4> placements;
  llvm::SmallVector<llvm::SmallVector<int64_t, 4>, 4> order;

  /// The state a type with `placements` denotes: mesh-dim shard order, with
  /// strided shards inside the later splits of their dim (nestingOrder).
  static State fromPlacements(llvm::ArrayRef<Placement> placements,
                              int64_t tensorRank);
  /// Mesh axes neither partial nor splitting a dim (replicated), ascending.
  llvm::SmallVector<int64_t, 4> freeAxes() const;
  std::string key() const;
  /// `[S(0), S(0)]`, with the nesting order where it is not the default.
  std::string str() const;
  bool operator==(const State &o) const { return key() == o.key(); }
};

struct Step {
  enum Kind : uint8_t {
    AllGather,     // innermost splits `axes` of `dim` -> replicate
    AllReduce,     // partial `axes` -> replicate
    ReduceScatter, // partial `axes` -> innermost splits of `dim`
    AllToAll,      // innermost splits `axes` of `dim` -> innermost of `dstDim`
    Chunk,         // replicate `axes` (one) -> innermost split of `dim`
    MakePartial,   // replicate `axes` (one) -> partial<`reduceOp`>
    Fill,    // innermost split `axes` (one) of `dim` -> partial<`reduceOp`>:
             // the block at its offset, the op's identity elsewhere
    Permute, // blocks move point to point, one per rank: every tensor
             // dim is split by `order` afterwards, over mesh axes of
             // the same sizes as before (whole blocks) or refining or
             // coarsening the splits evenly (sub-blocks, see
             // subBlockPermute); `axes` are the axes that may move
  };
  Kind kind;
  llvm::SmallVector<int64_t, 4> axes;
  int64_t dim = -1;
  int64_t dstDim = -1;
  /// AllReduce, ReduceScatter, MakePartial, Fill: the reduction.
  ReduceOp reduceOp = ReduceOp::Sum;
  /// Permute of sub-blocks (subBlockPermute): per tensor dim, how many
  /// target pieces each current piece splits into and how many current
  /// pieces each target piece merges (empty for a whole-block permute).
  llvm::SmallVector<int64_t, 4> refine, merge;
  /// Permute: the splits of every tensor dim after the step, outermost first.
  llvm::SmallVector<llvm::SmallVector<int64_t, 4>, 4> order;
  double cost = 0;
  /// Bytes one rank sends (ring algorithms, padded pieces), unweighted.
  double bytes = 0;
  /// Whether this step communicates (collectives on groups larger than one).
  bool isCollective = false;

  std::string str() const;
};

struct Options {
  /// Per-collective latency term, in equivalent bytes (alpha).
  double latencyBytes = 0;
  /// Cost multiplier per mesh axis; missing entries are 1.
  llvm::SmallVector<double, 4> axisWeights;
  /// Allow collectives on several mesh axes at once.
  bool mergeAxes = true;
  /// Allow point-to-point permutes of whole blocks.
  bool permutes = true;
};

/// Why `options` cannot price plans (empty if they can): every axis weight
/// must be a finite number above 0 (0 would make an axis free and every
/// plan on it a tie; infinity every plan on it equal). The one check of
/// the passes that take planning options.
std::string invalidOptions(const Options &options);

/// How elements combine in reductions and what a local fill writes.
enum class Arithmetic : uint8_t {
  /// Floats: sums do not wrap; max and min fill with -inf and +inf.
  Real,
  /// Fixed-width integers (elementBytes wide): sums and products wrap, avg
  /// divides the wrapped sum, and max and min fill with the type's extremes,
  /// which a later sum or avg over copies of them would overflow.
  SignedInt,
  UnsignedInt,
};

struct Problem {
  llvm::SmallVector<int64_t, 4> globalShape;
  int64_t elementBytes = 4;
  Arithmetic arithmetic = Arithmetic::Real;
  llvm::SmallVector<int64_t, 4> meshShape;
  llvm::SmallVector<Placement, 4> source;
  llvm::SmallVector<Placement, 4> target;
};

struct Plan {
  llvm::SmallVector<Step, 4> steps;
  /// The layout before each step, then the target's: states[i] -> steps[i]
  /// -> states[i + 1]. The emitter follows these instead of re-deriving them.
  llvm::SmallVector<State, 5> states;
  double cost = 0;
  int64_t numCollectives = 0;
  double peakBytes = 0;
  /// One line: `cost=... collectives=N steps=[...]`.
  std::string str() const;
  /// Further lines: bytes per rank with units, and each step with the
  /// layouts before and after it.
  std::string describe() const;
};

/// Padded local bytes (the largest chunk on any rank) of `state`.
double localBytes(const Problem &problem, const State &state);

/// Most rounds (pieces merged into one target block) a sub-block permute
/// takes: each round is one send and one receive per rank in the group.
inline constexpr int64_t kMaxPermuteRounds = 16;

/// Whether a permute from `from` to `to` may move sub-blocks: partial axes
/// alike, and per tensor dim the splits of `to` either chunk like those of
/// `from` (position by position the same sizes), or refine them evenly
/// (`refine[d]` new pieces in an old one), or coarsen them evenly
/// (`merge[d]` old pieces in a new one); the product of the merges is the
/// number of rounds, in each of which every rank receives one piece of its
/// new block and sends one part of its old block to one rank.
bool subBlockPermute(const Problem &problem, const State &from, const State &to,
                     llvm::SmallVectorImpl<int64_t> *refine = nullptr,
                     llvm::SmallVectorImpl<int64_t> *merge = nullptr);

/// Every step the planner may take from `state`, costed, with its successor.
/// Shared by the planner and the brute-force checks in the tests.
void forEachSuccessor(const Problem &problem, const Options &options,
                      const State &state,
                      llvm::function_ref<void(const Step &, const State &)> fn);

/// The cheapest plan (ties: fewer collectives, then lower peak memory), or
/// nullopt if the target is unreachable (partial<a> -> partial<b>).
std::optional<Plan> planRedistribute(const Problem &problem,
                                     const Options &options);

/// `448 B`, `1.5 MiB`.
std::string humanBytes(double bytes);

/// Text of a placement list, `[S(0), R, P(sum)]`.
std::string placementsToString(llvm::ArrayRef<Placement> placements);

} // namespace hp::dtensor::plan

#endif // HP_DIALECT_DTENSOR_UTILS_REDISTRIBUTEPLANNER_H
