//===- RankPiece.h - this rank's piece of a split dim, in IR ----*- C++ -*-===//
//
// The layout model's piece (Layout.h, nestedPiece) evaluated in emitted IR
// at the rank's own coordinate (dtensor.axis_index): where dtensor-propagate
// shifts a sharded loop's indices and where dtensor-add-driver reads a
// rank's block of an argument.
//
//===----------------------------------------------------------------------===//

#ifndef HP_DIALECT_DTENSOR_TRANSFORMS_RANKPIECE_H
#define HP_DIALECT_DTENSOR_TRANSFORMS_RANKPIECE_H

#include "hp/Dialect/DTensor/IR/DTensor.h"

#include "mlir/IR/Builders.h"

namespace hp::dtensor {

/// Offset and length of this rank's piece of `size` split over mesh `axes`
/// (outermost first) of `mesh` (named `meshName`), built at `b`'s insertion
/// point; constants where they do not depend on the coordinate.
std::pair<mlir::OpFoldResult, mlir::OpFoldResult>
rankPiece(mlir::OpBuilder &b, mlir::Location loc, int64_t size,
          llvm::ArrayRef<int64_t> axes, const MeshInfo &mesh,
          mlir::FlatSymbolRefAttr meshName);

} // namespace hp::dtensor

#endif // HP_DIALECT_DTENSOR_TRANSFORMS_RANKPIECE_H
