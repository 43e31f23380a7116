//===- PlanChecker.h - redistribute plans checked by simulation -*- C++ -*-===//
//
// A plan is checked, not trusted. The checker is written from the definitions
// of the layout (torch.chunk, nested in shard order) and of each step (what an
// all_gather, reduce_scatter, ... does to every device's data), independently
// of the planner's state bookkeeping and step generator and of the layout
// model the emitter uses. It runs a plan on concrete element values and
// compares every device's final block with the target layout.
//
//===----------------------------------------------------------------------===//

#ifndef HP_DIALECT_DTENSOR_UTILS_PLANCHECKER_H
#define HP_DIALECT_DTENSOR_UTILS_PLANCHECKER_H

#include "hp/Dialect/DTensor/Utils/RedistributePlanner.h"

#include <string>

namespace hp::dtensor::plan {

/// Largest simulation the checker runs: global elements times devices.
inline constexpr int64_t kMaxCheckedCells = int64_t(1) << 22;

/// Whether `problem` is small enough for checkPlan.
bool isCheckable(const Problem &problem);

/// Runs `steps` on `problem`'s source layout and compares the result with its
/// target layout. Returns the empty string when every device ends with the
/// right block, otherwise a description of the first difference.
///
/// The value of a DTensor with partial mesh dims is the reduction over them
/// innermost (last mesh dim) first; a plan must preserve that value.
std::string checkPlan(const Problem &problem, llvm::ArrayRef<Step> steps);

} // namespace hp::dtensor::plan

#endif // HP_DIALECT_DTENSOR_UTILS_PLANCHECKER_H
