//===- Placement.h - one mesh dim's placement, free of IR -------*- C++ -*-===//
//
// The planner's value of a placement attribute: what the layout model, the
// redistribute planner and the strategy chooser reason about, and what the
// dialect's attributes convert to and from (Planning/PlanAttrs.h).
//
//===----------------------------------------------------------------------===//

#ifndef HP_DIALECT_DTENSOR_LAYOUT_PLACEMENT_H
#define HP_DIALECT_DTENSOR_LAYOUT_PLACEMENT_H

#include "hp/Dialect/DTensor/Layout/ReduceOp.h"

#include <cstdint>

namespace hp::dtensor::plan {

/// One mesh dim's placement. StridedShard only appears in a Problem's source
/// and target: states hold Shard and the nesting order it implies.
struct Placement {
  enum Kind : uint8_t { Replicate, Shard, Partial, StridedShard };
  Kind kind = Replicate;
  /// The split tensor dim (Shard, StridedShard).
  int64_t dim = 0;
  /// The pending reduction (Partial).
  ReduceOp reduceOp = ReduceOp::Sum;
  /// StridedShard: how many later splits of `dim` it sits outside of.
  int64_t splitFactor = 1;

  static Placement replicate() { return {}; }
  static Placement shard(int64_t dim) { return {Shard, dim}; }
  static Placement partial(ReduceOp op) { return {Partial, 0, op}; }
  static Placement stridedShard(int64_t dim, int64_t splitFactor) {
    return {StridedShard, dim, ReduceOp::Sum, splitFactor};
  }
  bool isSplit() const { return kind == Shard || kind == StridedShard; }
  bool isPartial(ReduceOp op) const {
    return kind == Partial && reduceOp == op;
  }
  bool operator==(const Placement &o) const {
    return kind == o.kind && (!isSplit() || dim == o.dim) &&
           (kind != Partial || reduceOp == o.reduceOp) &&
           (kind != StridedShard || splitFactor == o.splitFactor);
  }
  bool operator!=(const Placement &o) const { return !(*this == o); }
};

} // namespace hp::dtensor::plan

#endif // HP_DIALECT_DTENSOR_LAYOUT_PLACEMENT_H
