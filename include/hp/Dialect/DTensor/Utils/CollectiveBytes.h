//===- CollectiveBytes.h - bytes one rank sends per collective --*- C++ -*-===//
//
// The one definition of what a collective costs in bytes: the planner prices
// its steps with it, the collective totals of partitioned IR
// (hp/Analysis/CollectiveTotals.h) count with it, and the C API hands it to
// Python and the benchmarks, so that hp's numbers and the numbers it is
// compared against come from the same formulas. Free of MLIR IR types.
//
//===----------------------------------------------------------------------===//

#ifndef HP_DIALECT_DTENSOR_UTILS_COLLECTIVEBYTES_H
#define HP_DIALECT_DTENSOR_UTILS_COLLECTIVEBYTES_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace hp::dtensor::plan {

/// The communicating ops of the shard dialect: those hp-partition emits,
/// then the rooted ones other partitioners emit (upstream's shard-partition,
/// which hp's benchmarks compare against). Values match the C API's
/// HPCollectiveKind.
enum class Collective : uint8_t {
  AllGather,
  AllReduce,
  ReduceScatter,
  AllToAll,
  Shift,
  Send,
  Recv,
  Broadcast,
  Gather,
  Scatter,
  Reduce,
};
inline constexpr int kNumCollectives = 11;

/// The op's name in the shard dialect (`all_gather`, ...).
llvm::StringRef collectiveName(Collective kind);

/// The fraction of `bytes` one rank of a group of `groupSize` sends in a
/// ring all_gather, reduce_scatter or all_to_all: (n-1)/n.
inline double ringFraction(int64_t groupSize) {
  return static_cast<double>(groupSize - 1) / groupSize;
}

/// Bytes one rank sends for one `kind` on a group of `groupSize` ranks
/// whose operand holds `operandBytes` and result `resultBytes` on that rank,
/// under ring algorithms: an all_gather (n-1)/n of its result, a
/// reduce_scatter or all_to_all (n-1)/n of its operand, an all_reduce twice
/// that; a shift, send or broadcast its operand; a recv nothing; a rooted
/// gather, scatter or reduce is charged its operand (an upper bound: a
/// scatter's root sends (n-1)/n of it). A group of one sends nothing (point to
/// point ops always send: their group is the pair).
double bytesSent(Collective kind, int64_t groupSize, double operandBytes,
                 double resultBytes);

} // namespace hp::dtensor::plan

#endif // HP_DIALECT_DTENSOR_UTILS_COLLECTIVEBYTES_H
