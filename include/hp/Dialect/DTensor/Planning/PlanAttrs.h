//===- PlanAttrs.h - dtensor attributes as the planner's values -*- C++ -*-===//
//
// The bridge between the dialect and the IR-free planner (Utils/): a
// placement list as plan::Placement values and back, and a tensor type as a
// plan::Problem. A library of its own, above both, so that the dialect does
// not link the planner.
//
//===----------------------------------------------------------------------===//

#ifndef HP_DIALECT_DTENSOR_PLANNING_PLANATTRS_H
#define HP_DIALECT_DTENSOR_PLANNING_PLANATTRS_H

#include "hp/Dialect/DTensor/IR/DTensor.h"
#include "hp/Dialect/DTensor/Utils/StrategyChooser.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

namespace hp::dtensor {

/// The planner's description of a tensor of `type` on a mesh of
/// `meshShape` (shape, element bytes, arithmetic; no source or target).
plan::Problem planTensor(mlir::ShapedType type,
                         llvm::ArrayRef<int64_t> meshShape);

/// A placement list as the planner's values, and back.
llvm::SmallVector<plan::Placement, 4> toPlanPlacements(mlir::ArrayAttr list);
mlir::ArrayAttr toPlacementsAttr(mlir::MLIRContext *ctx,
                                 llvm::ArrayRef<plan::Placement> placements);

/// A chosen strategy as the attribute dtensor-choose-strategies leaves on
/// its op, and back (flops are not kept: they follow from the op).
StrategyAttr toStrategyAttr(mlir::MLIRContext *ctx,
                            const propagation::Strategy &strategy);
propagation::Strategy fromStrategyAttr(StrategyAttr attr);

} // namespace hp::dtensor

#endif // HP_DIALECT_DTENSOR_PLANNING_PLANATTRS_H
