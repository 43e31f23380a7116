//===- Slices.h - tensor slices that also hold for empty tensors -*- C++
//-*-===//
//
// Upstream's tensor.extract_slice / insert_slice verifiers refuse any static
// offset into a zero-size dim, even for a slice of size 0 (`offset 0 is
// out-of-bounds: 0 >= 0`), so the slices hp's redistribute emitters make of
// tensors that may be empty go through these (halo exchanges and the
// slices propagation localizes do not yet): a slice of an empty tensor, or
// of size 0, is a tensor.empty (there is nothing to copy), and inserting an
// empty piece, or into an empty tensor, leaves the destination as it is.
//
//===----------------------------------------------------------------------===//

#ifndef HP_SUPPORT_SLICES_H
#define HP_SUPPORT_SLICES_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace hp {

/// Whether a shape or a size list has a static 0.
inline bool hasZeroExtent(llvm::ArrayRef<int64_t> shape) {
  return llvm::is_contained(shape, 0);
}
inline bool hasZeroExtent(llvm::ArrayRef<mlir::OpFoldResult> sizes) {
  return llvm::any_of(sizes, [](mlir::OpFoldResult s) {
    return mlir::isConstantIntValue(s, 0);
  });
}

/// tensor.extract_slice, or a tensor.empty of the same type where there is
/// nothing to copy.
inline mlir::Value extractSlice(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value source,
                                llvm::ArrayRef<mlir::OpFoldResult> offsets,
                                llvm::ArrayRef<mlir::OpFoldResult> sizes,
                                llvm::ArrayRef<mlir::OpFoldResult> strides) {
  auto type = llvm::cast<mlir::RankedTensorType>(source.getType());
  if (hasZeroExtent(type.getShape()) || hasZeroExtent(sizes))
    return mlir::tensor::EmptyOp::create(b, loc, sizes, type.getElementType(),
                                         type.getEncoding());
  return mlir::tensor::ExtractSliceOp::create(b, loc, source, offsets, sizes,
                                              strides);
}

/// tensor.insert_slice, or `dest` itself where nothing is inserted.
inline mlir::Value insertSlice(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value source, mlir::Value dest,
                               llvm::ArrayRef<mlir::OpFoldResult> offsets,
                               llvm::ArrayRef<mlir::OpFoldResult> sizes,
                               llvm::ArrayRef<mlir::OpFoldResult> strides) {
  auto from = llvm::cast<mlir::RankedTensorType>(source.getType());
  auto into = llvm::cast<mlir::RankedTensorType>(dest.getType());
  if (hasZeroExtent(from.getShape()) || hasZeroExtent(into.getShape()) ||
      hasZeroExtent(sizes))
    return dest;
  return mlir::tensor::InsertSliceOp::create(b, loc, source, dest, offsets,
                                             sizes, strides);
}

} // namespace hp

#endif // HP_SUPPORT_SLICES_H
