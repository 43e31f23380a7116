//===- IRArith.h - folding index arithmetic in IR ---------------*- C++ -*-===//
//
// The adapter that evaluates the layout model's templates (Layout.h: chunk,
// nestedPiece) on OpFoldResults: constants where sizes are static, index ops
// where they depend on the rank's coordinate.
//
//===----------------------------------------------------------------------===//

#ifndef HP_SUPPORT_IRARITH_H
#define HP_SUPPORT_IRARITH_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"

#include <algorithm>
#include <optional>

namespace hp {

/// Index arithmetic on OpFoldResults that folds constants: the layout
/// model's templates evaluated at compile time where sizes are static and in
/// the emitted code where they depend on the rank's coordinate.
struct IRArith {
  mlir::OpBuilder &b;
  mlir::Location loc;
  using Value = mlir::OpFoldResult;

  Value cst(int64_t v) { return b.getIndexAttr(v); }
  std::optional<int64_t> constant(Value v) {
    return mlir::getConstantIntValue(v);
  }
  mlir::Value val(Value v) {
    return mlir::getValueOrCreateConstantIndexOp(b, loc, v);
  }

  template <typename Op, typename F> Value binary(Value x, Value y, F fold) {
    auto cx = constant(x), cy = constant(y);
    if (cx && cy)
      return cst(fold(*cx, *cy));
    return Op::create(b, loc, val(x), val(y)).getResult();
  }
  Value add(Value x, Value y) {
    if (constant(y) == 0)
      return x;
    if (constant(x) == 0)
      return y;
    return binary<mlir::arith::AddIOp>(
        x, y, [](int64_t u, int64_t v) { return u + v; });
  }
  Value sub(Value x, Value y) {
    if (constant(y) == 0)
      return x;
    return binary<mlir::arith::SubIOp>(
        x, y, [](int64_t u, int64_t v) { return u - v; });
  }
  Value mul(Value x, Value y) {
    if (constant(y) == 1)
      return x;
    if (constant(x) == 1)
      return y;
    return binary<mlir::arith::MulIOp>(
        x, y, [](int64_t u, int64_t v) { return u * v; });
  }
  Value min(Value x, Value y) {
    return binary<mlir::arith::MinSIOp>(
        x, y, [](int64_t u, int64_t v) { return std::min(u, v); });
  }
  Value max(Value x, Value y) {
    return binary<mlir::arith::MaxSIOp>(
        x, y, [](int64_t u, int64_t v) { return std::max(u, v); });
  }
  /// Non-negative operands only (sizes and indices).
  Value div(Value x, Value y) {
    if (constant(y) == 1)
      return x;
    return binary<mlir::arith::DivUIOp>(
        x, y, [](int64_t u, int64_t v) { return u / v; });
  }
  Value rem(Value x, Value y) {
    return binary<mlir::arith::RemUIOp>(
        x, y, [](int64_t u, int64_t v) { return u % v; });
  }
  Value ceilDiv(Value x, int64_t n) {
    if (n == 1)
      return x;
    if (auto c = constant(x))
      return cst(*c / n + (*c % n != 0));
    return mlir::arith::CeilDivUIOp::create(b, loc, val(x), val(cst(n)))
        .getResult();
  }
};

} // namespace hp

#endif // HP_SUPPORT_IRARITH_H
