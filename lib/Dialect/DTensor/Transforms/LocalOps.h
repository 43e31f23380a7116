//===- LocalOps.h - an op of a global region made local --------*- C++ -*-===//
//
// What dtensor-propagate does to one op it places when it rewrites it on
// local tensors: loop indices shifted to the rank's piece, reads of split
// tables made local, sizes that a split changes rebuilt. Private to the
// pass (Propagate.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef HP_LIB_DIALECT_DTENSOR_TRANSFORMS_LOCALOPS_H
#define HP_LIB_DIALECT_DTENSOR_TRANSFORMS_LOCALOPS_H

#include "hp/Dialect/DTensor/IR/DTensor.h"
#include "hp/Dialect/DTensor/Utils/StrategyChooser.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"

namespace hp::dtensor::detail {

using propagation::Strategy;

/// rankPiece (RankPiece.h) with both values materialised, in that order.
std::pair<mlir::Value, mlir::Value>
rankPieceValues(mlir::OpBuilder &b, mlir::Location loc, int64_t size,
                llvm::ArrayRef<int64_t> axes, const MeshInfo &mesh,
                mlir::FlatSymbolRefAttr meshName);

/// `offset + index` for each linalg.index of a loop that `s` shards, the
/// offset being this rank's start of the loop (the layout model's piece),
/// except the indices in `local` (reads of a table split alike).
void correctIndices(mlir::OpBuilder &b, mlir::linalg::LinalgOp op,
                    const Strategy &s, llvm::ArrayRef<int64_t> loopSizes,
                    const MeshInfo &mesh, mlir::FlatSymbolRefAttr meshName,
                    const llvm::DenseSet<mlir::Operation *> &local);

/// Erases `v`'s defining op, and then its operands' (in the same block),
/// while they are unused and free of side effects.
void eraseDeadChain(mlir::Value v);

/// The reads of the split tables (TableRead) in `clone`, the local op of
/// `op` under `s`, whose tensor operands `tensors` became `args`: a dim
/// split alike with the loop that indexes it reads a linalg.index of its own,
/// returned in `local` for correctIndices to leave local; a dim split by
/// rows reads the rows this rank holds, at the index less its piece's
/// offset, and yields 0 for the others (the result is a partial sum).
void localizeTableReads(mlir::OpBuilder &b, mlir::Operation *op,
                        mlir::Operation *clone, const Strategy &s,
                        llvm::ArrayRef<mlir::Value> tensors,
                        mlir::ValueRange args, const MeshInfo &mesh,
                        mlir::FlatSymbolRefAttr meshName,
                        llvm::DenseSet<mlir::Operation *> &local);

/// Replaces every constraint under `op` by its input: on the replicated
/// values of an op without a rule it pins nothing.
void stripConstraints(mlir::Operation *op);

/// `op` rebuilt on local `operands` where its attributes hold sizes that a
/// split changes (reshapes, slices); null for ops a clone serves.
mlir::Operation *rebuildWithLocalSizes(mlir::OpBuilder &b, mlir::Operation *op,
                                       const Strategy &s,
                                       mlir::ValueRange operands,
                                       mlir::TypeRange localResultTypes);

} // namespace hp::dtensor::detail

#endif // HP_LIB_DIALECT_DTENSOR_TRANSFORMS_LOCALOPS_H
