//===- SortOp.cpp - dtensor.sort, a stable sort along one dim -------------===//

#include "hp/Dialect/DTensor/IR/DTensor.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace hp::dtensor;

LogicalResult SortOp::verify() {
  auto type = cast<RankedTensorType>(getInput().getType());
  int64_t rank = type.getRank();
  int64_t dim = getDimAttr().getInt();
  if (dim < 0 || dim >= rank)
    return emitOpError() << "dim " << dim << " is not a dim of a rank-" << rank
                         << " tensor";
  if (!isa<IntegerType, FloatType>(type.getElementType()))
    return emitOpError() << "sorts integers or floats, not "
                         << type.getElementType();
  auto indices = cast<RankedTensorType>(getIndices().getType());
  auto want = RankedTensorType::get(type.getShape(),
                                    IntegerType::get(getContext(), 64));
  if (failed(verifyCompatibleShape(indices, want)) ||
      indices.getElementType() != want.getElementType())
    return emitOpError() << "indices must be " << want << ", not " << indices;
  return success();
}
