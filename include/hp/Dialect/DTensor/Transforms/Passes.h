//===- Passes.h - dtensor transformation passes -----------------*- C++ -*-===//

#ifndef HP_DIALECT_DTENSOR_TRANSFORMS_PASSES_H
#define HP_DIALECT_DTENSOR_TRANSFORMS_PASSES_H

#include "hp/Dialect/DTensor/IR/DTensor.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace hp::dtensor {

#define GEN_PASS_DECL
#include "hp/Dialect/DTensor/Transforms/Passes.h.inc"

/// local_region -> [redistribute] + to_local + body + from_local.
void populateExpandLocalRegionsPatterns(mlir::RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "hp/Dialect/DTensor/Transforms/Passes.h.inc"

} // namespace hp::dtensor

#endif // HP_DIALECT_DTENSOR_TRANSFORMS_PASSES_H
