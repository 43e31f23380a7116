//===- Passes.h - hp conversion passes --------------------------*- C++ -*-===//

#ifndef HP_CONVERSION_PASSES_H
#define HP_CONVERSION_PASSES_H

#include "hp/Dialect/DTensor/IR/DTensor.h"
#include "hp/Dialect/NCCL/IR/NCCL.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace hp::dtensor::plan {
struct Options;
} // namespace hp::dtensor::plan

namespace mlir {
class LLVMTypeConverter;
class RewritePatternSet;
class TypeConverter;
} // namespace mlir

namespace hp {

#define GEN_PASS_DECL
#include "hp/Conversion/Passes.h.inc"

/// The type conversion DTensor -> local tensor and the patterns that turn
/// every dtensor op into local tensors and shard ops, on the meshes of
/// `module` (read now, before any of them is converted). Redistributes are
/// planned with `options`.
void populateDTensorToShardConversion(mlir::ModuleOp module,
                                      mlir::TypeConverter &converter,
                                      mlir::RewritePatternSet &patterns,
                                      const dtensor::plan::Options &options);

/// shard collectives on tensors -> nccl ops on buffers.
void populateShardToNCCLPatterns(mlir::RewritePatternSet &patterns);

/// nccl ops -> llvm.call of the NCCL C API and the hp runtime.
void populateNCCLToLLVMConversionPatterns(mlir::LLVMTypeConverter &converter,
                                          mlir::RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "hp/Conversion/Passes.h.inc"

} // namespace hp

#endif // HP_CONVERSION_PASSES_H
