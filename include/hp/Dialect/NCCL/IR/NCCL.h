//===- NCCL.h - nccl dialect, types and ops ---------------------*- C++ -*-===//

#ifndef HP_DIALECT_NCCL_IR_NCCL_H
#define HP_DIALECT_NCCL_IR_NCCL_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "hp/Dialect/NCCL/IR/NCCLDialect.h.inc"
#include "hp/Dialect/NCCL/IR/NCCLEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "hp/Dialect/NCCL/IR/NCCLAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "hp/Dialect/NCCL/IR/NCCLTypes.h.inc"

#define GET_OP_CLASSES
#include "hp/Dialect/NCCL/IR/NCCLOps.h.inc"

namespace hp::nccl {

/// ncclDataType_t of an element type (NCCL 2.28 values), or -1 if NCCL has
/// none: f16, bf16, f32, f64, i8/si8, ui8, i32/si32, ui32, i64/si64, ui64,
/// f8E4M3FN, f8E5M2.
int getNCCLDataType(mlir::Type elementType);

/// Whether every element of a buffer of `type` provably lies in one dense
/// row-major block, as NCCL reads and writes it: an identity layout, or
/// static strides that are the products of the sizes inside them.
bool isProvablyContiguous(mlir::MemRefType type);

} // namespace hp::nccl

#endif // HP_DIALECT_NCCL_IR_NCCL_H
