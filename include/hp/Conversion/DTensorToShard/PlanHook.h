//===- PlanHook.h - a hook on every redistribute plan -----------*- C++ -*-===//
//
// convert-dtensor-to-shard with a function called on every plan after it is
// made and before it is checked, printed and emitted. For tests only (the
// test pass `test-break-plans` shows that verify-plans refuses wrong plans);
// the pass itself has no such option.
//
//===----------------------------------------------------------------------===//

#ifndef HP_CONVERSION_DTENSORTOSHARD_PLANHOOK_H
#define HP_CONVERSION_DTENSORTOSHARD_PLANHOOK_H

#include "hp/Conversion/Passes.h"
#include "hp/Dialect/DTensor/Utils/RedistributePlanner.h"

#include <functional>
#include <memory>

namespace hp {

using PlanHook =
    std::function<void(const dtensor::plan::Problem &, dtensor::plan::Plan &)>;

std::unique_ptr<mlir::Pass>
createConvertDTensorToShardWithPlanHook(ConvertDTensorToShardOptions options,
                                        PlanHook hook);

} // namespace hp

#endif // HP_CONVERSION_DTENSORTOSHARD_PLANHOOK_H
