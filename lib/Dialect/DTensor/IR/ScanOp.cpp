//===- ScanOp.cpp - dtensor.scan, an inclusive scan along one dim ---------===//

#include "hp/Dialect/DTensor/IR/DTensor.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace hp::dtensor;

LogicalResult ScanOp::verify() {
  auto type = cast<RankedTensorType>(getInput().getType());
  int64_t rank = type.getRank();
  int64_t dim = getDimAttr().getInt();
  if (dim < 0 || dim >= rank)
    return emitOpError() << "dim " << dim << " is not a dim of a rank-" << rank
                         << " tensor";
  if (getKind() == ReduceOp::Avg)
    return emitOpError() << "kind 'avg' is not a scan: it combines sum, prod, "
                            "max or min";
  // The types hp holds: signless integers past i1 (whose sum and max
  // would wrap and sign-flip), and floats with a zero, a one and infinities.
  Type element = type.getElementType();
  if (!(element.isSignlessInteger() && !element.isInteger(1)) &&
      !isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(element))
    return emitOpError() << "scans signless integers (not i1), f16, bf16, f32 "
                            "or f64, not "
                         << element;
  if (!getInit())
    return success();
  auto init = cast<RankedTensorType>(getInit().getType());
  SmallVector<int64_t> rowShape(type.getShape());
  rowShape[dim] = 1;
  Type carried = getCarriedType(type.getElementType());
  auto want = RankedTensorType::get(rowShape, carried);
  if (init.getRank() != rank ||
      failed(verifyCompatibleShape(init.getShape(), rowShape)) ||
      init.getElementType() != carried)
    return emitOpError() << "init must be " << want
                         << " (the input's shape with dim " << dim
                         << " of size 1, the carried type " << carried
                         << "), not " << init;
  return success();
}

Type ScanOp::getCarriedType(Type element) {
  MLIRContext *ctx = element.getContext();
  if (isa<Float16Type, BFloat16Type>(element))
    return Float32Type::get(ctx);
  if (isa<Float32Type>(element))
    return Float64Type::get(ctx);
  return element;
}

Value ScanOp::buildFloatCast(OpBuilder &b, Location loc, Type type, Value v) {
  auto from = dyn_cast<FloatType>(v.getType());
  auto to = dyn_cast<FloatType>(type);
  if (!from || !to || from == to)
    return v;
  if (to.getWidth() > from.getWidth())
    return arith::ExtFOp::create(b, loc, to, v);
  return arith::TruncFOp::create(b, loc, to, v);
}

TypedAttr ScanOp::getIdentity(ReduceOp kind, Type element) {
  if (auto f = dyn_cast<FloatType>(element)) {
    const llvm::fltSemantics &sem = f.getFloatSemantics();
    switch (kind) {
    case ReduceOp::Prod:
      return FloatAttr::get(f, llvm::APFloat::getOne(sem));
    case ReduceOp::Max:
      return FloatAttr::get(f, llvm::APFloat::getInf(sem, /*Negative=*/true));
    case ReduceOp::Min:
      return FloatAttr::get(f, llvm::APFloat::getInf(sem));
    default:
      return FloatAttr::get(f, llvm::APFloat::getZero(sem));
    }
  }
  auto i = cast<IntegerType>(element);
  unsigned width = i.getWidth();
  switch (kind) {
  case ReduceOp::Prod:
    return IntegerAttr::get(i, llvm::APInt(width, 1));
  case ReduceOp::Max:
    return IntegerAttr::get(i, llvm::APInt::getSignedMinValue(width));
  case ReduceOp::Min:
    return IntegerAttr::get(i, llvm::APInt::getSignedMaxValue(width));
  default:
    return IntegerAttr::get(i, llvm::APInt(width, 0));
  }
}

Value ScanOp::buildCombine(OpBuilder &b, Location loc, ReduceOp kind, Value acc,
                           Value x) {
  bool isFloat = isa<FloatType>(x.getType());
  switch (kind) {
  case ReduceOp::Prod:
    return isFloat ? arith::MulFOp::create(b, loc, acc, x).getResult()
                   : arith::MulIOp::create(b, loc, acc, x).getResult();
  case ReduceOp::Max:
    return isFloat ? arith::MaximumFOp::create(b, loc, acc, x).getResult()
                   : arith::MaxSIOp::create(b, loc, acc, x).getResult();
  case ReduceOp::Min:
    return isFloat ? arith::MinimumFOp::create(b, loc, acc, x).getResult()
                   : arith::MinSIOp::create(b, loc, acc, x).getResult();
  default:
    return isFloat ? arith::AddFOp::create(b, loc, acc, x).getResult()
                   : arith::AddIOp::create(b, loc, acc, x).getResult();
  }
}
