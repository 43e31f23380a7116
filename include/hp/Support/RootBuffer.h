//===- RootBuffer.h - the buffer a memref view is a view of -----*- C++ -*-===//
//
// Passes on buffers ask whether two memrefs alias or whether a buffer stays
// in host memory; both are questions about the allocation (or block
// argument) under any chain of subviews, casts and transposes.
//
//===----------------------------------------------------------------------===//

#ifndef HP_SUPPORT_ROOTBUFFER_H
#define HP_SUPPORT_ROOTBUFFER_H

#include "mlir/Interfaces/ViewLikeInterface.h"

namespace hp {

/// The buffer `v` is a view of: through every view-like op (subview, cast,
/// transpose, ...) to an allocation or a block argument.
inline mlir::Value rootBuffer(mlir::Value v) {
  while (auto view = v.getDefiningOp<mlir::ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

} // namespace hp

#endif // HP_SUPPORT_ROOTBUFFER_H
