//===- RowLoops.h - loops over a tensor's rows along a dim -----*- C++ -*-===//
//
// The loop nest that dtensor-lower-scans and dtensor-lower-sorts build
// around the work on one row: every dim but the row's, from 0 to its size.
// Private to those passes.
//
//===----------------------------------------------------------------------===//

#ifndef HP_LIB_DIALECT_DTENSOR_TRANSFORMS_ROWLOOPS_H
#define HP_LIB_DIALECT_DTENSOR_TRANSFORMS_ROWLOOPS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace hp::dtensor {

/// The bounds of the loops over a tensor's rows along `dim`, for
/// scf::buildLoopNest.
struct RowLoops {
  llvm::SmallVector<mlir::Value> lbs, ubs, steps;

  RowLoops(mlir::OpBuilder &b, mlir::Location loc,
           llvm::ArrayRef<mlir::OpFoldResult> sizes, int64_t dim) {
    mlir::Value zero = mlir::arith::ConstantIndexOp::create(b, loc, 0);
    mlir::Value one = mlir::arith::ConstantIndexOp::create(b, loc, 1);
    for (auto [d, size] : llvm::enumerate(sizes)) {
      if (static_cast<int64_t>(d) == dim)
        continue;
      lbs.push_back(zero);
      ubs.push_back(mlir::getValueOrCreateConstantIndexOp(b, loc, size));
      steps.push_back(one);
    }
  }

  /// The index of position `p` of the row at `ivs`.
  static llvm::SmallVector<mlir::Value> at(mlir::ValueRange ivs, int64_t dim,
                                           mlir::Value p) {
    llvm::SmallVector<mlir::Value> index(ivs);
    index.insert(index.begin() + dim, p);
    return index;
  }
};

} // namespace hp::dtensor

#endif // HP_LIB_DIALECT_DTENSOR_TRANSFORMS_ROWLOOPS_H
