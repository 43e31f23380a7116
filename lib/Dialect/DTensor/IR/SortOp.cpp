//===- SortOp.cpp - dtensor.sort, a stable sort along one dim -------------===//

#include "hp/Dialect/DTensor/IR/DTensor.h"

using namespace mlir;
using namespace hp::dtensor;

LogicalResult SortOp::verify() {
  auto type = cast<RankedTensorType>(getInput().getType());
  int64_t rank = type.getRank();
  int64_t dim = getDimAttr().getInt();
  if (dim < 0 || dim >= rank)
    return emitOpError() << "dim " << dim << " is not a dim of a rank-" << rank
                         << " tensor";
  Type element = type.getElementType();
  if (!element.isSignlessInteger() && !isa<FloatType>(element))
    return emitOpError() << "sorts signless integers or floats, not "
                         << element;
  // The lowering's keys: 64 bits.
  if (element.getIntOrFloatBitWidth() > 64)
    return emitOpError() << "sorts elements of at most 64 bits, not "
                         << element;
  // A float's key needs its sign bit and a comparison (zeros, NaNs) that
  // the CPU lowering has: not the 8-bit and smaller formats, nor tf32.
  if (isa<FloatType>(element) &&
      !isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(element))
    return emitOpError() << "sorts floats of f16, bf16, f32 or f64, not "
                         << element;
  auto indices = cast<RankedTensorType>(getIndices().getType());
  auto want = RankedTensorType::get(type.getShape(),
                                    IntegerType::get(getContext(), 64));
  // The lowering builds the indices in the input's shape.
  if (indices != want)
    return emitOpError() << "indices must be " << want << ", not " << indices;
  return success();
}
