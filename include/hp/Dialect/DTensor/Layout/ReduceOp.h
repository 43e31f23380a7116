//===- ReduceOp.h - the reduce op of a Partial placement --------*- C++ -*-===//
//
// The one home of the reduce op that resolves a `partial<op>` placement. The
// enum and its names are declared once, in ODS (`DTensor_ReduceOp`,
// DTensorBase.td); this header adds every fact about it that planning and
// lowering use: the list of ops, the identity a rank holds where it holds no
// data and which identities survive a later reduction; free of MLIR IR, it
// sits with the layout model below the dialect, which maps it to upstream
// `shard`'s reduction kind (toShardReduction, DTensor.h). The C API's
// `HPReduceOp` mirrors the values (checked by a static_assert in
// DTensorCAPI.cpp); Python asks the C API for the names.
//
// Deliberately not here: the plan checker's own identity and combine
// (PlanChecker.cpp) — it is an independent definition that tests the
// planner — and NCCL's `ncclRedOp_t` numbering, which the nccl dialect
// mirrors and maps from `shard`'s reduction kind (ShardToNCCL.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef HP_DIALECT_DTENSOR_LAYOUT_REDUCEOP_H
#define HP_DIALECT_DTENSOR_LAYOUT_REDUCEOP_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>

#include "hp/Dialect/DTensor/IR/DTensorEnums.h.inc"

namespace hp::dtensor {

/// Every reduce op, in enum order.
inline constexpr ReduceOp kReduceOps[] = {
    ReduceOp::Sum, ReduceOp::Avg, ReduceOp::Max, ReduceOp::Min, ReduceOp::Prod};

/// What a rank contributes where it holds no data: neutral under the op
/// (avg sums the shares and divides by their count afterwards, so 0).
enum class ReduceIdentity { Zero, One, Lowest, Highest };

constexpr ReduceIdentity identityOf(ReduceOp op) {
  switch (op) {
  case ReduceOp::Sum:
  case ReduceOp::Avg:
    return ReduceIdentity::Zero;
  case ReduceOp::Prod:
    return ReduceIdentity::One;
  case ReduceOp::Max:
    return ReduceIdentity::Lowest;
  case ReduceOp::Min:
    return ReduceIdentity::Highest;
  }
  llvm_unreachable("unknown reduce op");
}

/// Whether `op`'s identity, written where a rank holds no data, survives a
/// later reduction by `later` over copies of it: 0 does under any op, 1
/// under all but sum, the lowest/highest value only under max, min and avg,
/// and for integers only under max and min (avg adds the copies of INT_MAX
/// and wraps).
constexpr bool identitySurvives(ReduceOp op, ReduceOp later, bool integer) {
  if (later == op)
    return true;
  switch (identityOf(op)) {
  case ReduceIdentity::Zero:
    return true;
  case ReduceIdentity::One:
    return later != ReduceOp::Sum;
  case ReduceIdentity::Lowest:
  case ReduceIdentity::Highest:
    return later == ReduceOp::Max || later == ReduceOp::Min ||
           (later == ReduceOp::Avg && !integer);
  }
  llvm_unreachable("unknown reduce op");
}

/// Max and min: reductions whose fills hold the element type's extremes.
constexpr bool isExtremum(ReduceOp op) {
  return op == ReduceOp::Max || op == ReduceOp::Min;
}

} // namespace hp::dtensor

#endif // HP_DIALECT_DTENSOR_LAYOUT_REDUCEOP_H
