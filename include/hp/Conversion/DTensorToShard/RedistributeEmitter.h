//===- RedistributeEmitter.h - a checked plan as shard IR -------*- C++ -*-===//
//
// Emits one redistribute plan on this rank's local tensor. Every size and
// offset comes from the layout model (Layout.h) evaluated on this rank's mesh
// coordinate, following the layouts the plan recorded for each step.
//
//===----------------------------------------------------------------------===//

#ifndef HP_CONVERSION_DTENSORTOSHARD_REDISTRIBUTEEMITTER_H
#define HP_CONVERSION_DTENSORTOSHARD_REDISTRIBUTEEMITTER_H

#include "hp/Dialect/DTensor/Utils/RedistributePlanner.h"

#include "mlir/IR/Builders.h"

namespace hp::dtensor {

/// Emits `plan` for `problem` on `local`, this rank's block of the source,
/// and returns this rank's block of the target. `grid` names the shard.grid
/// the collectives run on.
mlir::Value emitRedistribute(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::FlatSymbolRefAttr grid,
                             const plan::Problem &problem,
                             const plan::Plan &plan, mlir::Value local);

} // namespace hp::dtensor

#endif // HP_CONVERSION_DTENSORTOSHARD_REDISTRIBUTEEMITTER_H
