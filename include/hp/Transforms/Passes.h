//===- Passes.h - hp passes that are not conversions ------------*- C++ -*-===//

#ifndef HP_TRANSFORMS_PASSES_H
#define HP_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace hp {

#define GEN_PASS_DECL
#include "hp/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "hp/Transforms/Passes.h.inc"

} // namespace hp

#endif // HP_TRANSFORMS_PASSES_H
