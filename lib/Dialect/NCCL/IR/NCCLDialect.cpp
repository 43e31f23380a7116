//===- NCCLDialect.cpp - nccl dialect registration ------------------------===//

#include "hp/Dialect/NCCL/IR/NCCL.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace hp::nccl;

#include "hp/Dialect/NCCL/IR/NCCLDialect.cpp.inc"
#include "hp/Dialect/NCCL/IR/NCCLEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "hp/Dialect/NCCL/IR/NCCLAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "hp/Dialect/NCCL/IR/NCCLTypes.cpp.inc"

Operation *NCCLDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

void NCCLDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "hp/Dialect/NCCL/IR/NCCLAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "hp/Dialect/NCCL/IR/NCCLTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "hp/Dialect/NCCL/IR/NCCLOps.cpp.inc"
      >();
}

int hp::nccl::getNCCLDataType(Type t) {
  // ncclDataType_t values of NCCL 2.28 (nccl.h).
  enum {
    Int8 = 0,
    Uint8,
    Int32,
    Uint32,
    Int64,
    Uint64,
    Float16,
    Float32,
    Float64,
    Bfloat16,
    Float8e4m3,
    Float8e5m2
  };
  if (auto i = dyn_cast<IntegerType>(t)) {
    bool isUnsigned = i.isUnsigned();
    switch (i.getWidth()) {
    case 8:
      return isUnsigned ? Uint8 : Int8;
    case 32:
      return isUnsigned ? Uint32 : Int32;
    case 64:
      return isUnsigned ? Uint64 : Int64;
    default:
      return -1;
    }
  }
  if (t.isF16())
    return Float16;
  if (t.isBF16())
    return Bfloat16;
  if (t.isF32())
    return Float32;
  if (t.isF64())
    return Float64;
  if (isa<Float8E4M3FNType>(t))
    return Float8e4m3;
  if (isa<Float8E5M2Type>(t))
    return Float8e5m2;
  return -1;
}

/// Whether every element of a buffer of `type` lies in one dense row-major
/// block: each stride is the product of the sizes inside it (dims of size 1
/// excepted). Dynamic strides or sizes prove nothing.
bool hp::nccl::isProvablyContiguous(MemRefType type) {
  if (type.getLayout().isIdentity())
    return true;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  int64_t expected = 1;
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    int64_t size = type.getDimSize(d);
    if (size != 1 && strides[d] != expected)
      return false;
    if (d > 0) {
      if (ShapedType::isDynamic(size))
        // Outer strides would have to equal a run-time product.
        return llvm::all_of(type.getShape().take_front(d),
                            [](int64_t s) { return s == 1; });
      expected *= size;
    }
  }
  return true;
}
