//===- NCCLDialect.cpp - nccl dialect registration ------------------------===//

#include "hp/Dialect/NCCL/IR/NCCL.h"

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
  enum { Int8 = 0, Uint8, Int32, Uint32, Int64, Uint64, Float16, Float32,
         Float64, Bfloat16, Float8e4m3, Float8e5m2 };
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
