//===- CheckAllocationSizes.cpp - no buffer size that wraps around --------===//
//
// finalize-memref-to-llvm computes an allocation's size in bytes as a plain
// 64-bit product: a shape of 2^62 f32 becomes a malloc of 0 bytes and the
// program runs on memory it does not own. Static sizes are refused here,
// at the op; dynamic ones are checked when the allocation runs.
//
//===----------------------------------------------------------------------===//

#include "hp/Transforms/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/Support/MathExtras.h"

namespace hp {
#define GEN_PASS_DEF_CHECKALLOCATIONSIZES
#include "hp/Transforms/Passes.h.inc"
} // namespace hp

using namespace mlir;

namespace {
/// The size in bytes of one element of `type` as the lowering lays it out;
/// 1 for an element type the data layout cannot size (asking would be a
/// fatal error), which only makes the bound looser.
int64_t elementBytes(const DataLayout &layout, MemRefType type) {
  Type element = type.getElementType();
  if (!element.isIntOrIndexOrFloat() &&
      !isa<ComplexType, VectorType, DataLayoutTypeInterface>(element))
    return 1;
  return static_cast<int64_t>(layout.getTypeSize(element).getFixedValue());
}

/// The product of the static sizes of `type` and its element size, or
/// std::nullopt if it exceeds INT64_MAX.
std::optional<int64_t> staticBytes(const DataLayout &layout, MemRefType type) {
  int64_t bytes = elementBytes(layout, type);
  for (int64_t size : type.getShape())
    if (!ShapedType::isDynamic(size) && llvm::MulOverflow(bytes, size, bytes))
      return std::nullopt;
  return bytes;
}

/// Asserts before `op` that `staticPart` times its dynamic `sizes` fits in
/// INT64_MAX: one extended multiplication (whose high half must stay 0) per
/// size.
void assertFits(Operation *op, int64_t staticPart, ValueRange sizes,
                MemRefType type) {
  OpBuilder b(op);
  Location loc = op->getLoc();
  Type i64 = b.getI64Type();
  Value zero = arith::ConstantIntOp::create(b, loc, i64, 0);
  Value bytes = arith::ConstantIntOp::create(b, loc, i64, staticPart);
  Value fits = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  for (Value size : sizes) {
    Value n = arith::IndexCastUIOp::create(b, loc, i64, size);
    auto product = arith::MulUIExtendedOp::create(b, loc, bytes, n);
    Value high = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                       product.getHigh(), zero);
    fits = arith::AndIOp::create(b, loc, fits, high);
    bytes = product.getLow();
  }
  // Above INT64_MAX is negative as a signed number.
  Value signedFits =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, bytes, zero);
  fits = arith::AndIOp::create(b, loc, fits, signedFits);
  std::string where;
  llvm::raw_string_ostream os(where);
  os << op->getName() << " of " << type << " at " << loc
     << ": its size in bytes overflows a 64-bit integer";
  cf::AssertOp::create(b, loc, fits, where);
}

struct CheckAllocationSizesPass
    : hp::impl::CheckAllocationSizesBase<CheckAllocationSizesPass> {
  void runOnOperation() override {
    bool failedCheck = false;
    auto check = [&](Operation *op, MemRefType type, ValueRange dynamicSizes) {
      DataLayout layout = DataLayout::closest(op);
      std::optional<int64_t> bytes = staticBytes(layout, type);
      if (!bytes) {
        op->emitError() << "a buffer of type " << type
                        << " needs more than 2^63 - 1 bytes: its size would "
                           "overflow when it is allocated";
        failedCheck = true;
      } else if (!dynamicSizes.empty()) {
        assertFits(op, *bytes, dynamicSizes, type);
      }
    };
    getOperation().walk([&](Operation *op) {
      if (auto alloc = dyn_cast<memref::AllocOp>(op))
        check(op, alloc.getType(), alloc.getDynamicSizes());
      else if (auto alloca = dyn_cast<memref::AllocaOp>(op))
        check(op, alloca.getType(), alloca.getDynamicSizes());
      else if (auto realloc = dyn_cast<memref::ReallocOp>(op))
        check(op, realloc.getType(),
              realloc.getDynamicResultSize()
                  ? ValueRange(realloc.getDynamicResultSize())
                  : ValueRange());
      else if (auto global = dyn_cast<memref::GlobalOp>(op))
        check(op, global.getType(), {});
    });
    if (failedCheck)
      signalPassFailure();
  }
};
} // namespace
