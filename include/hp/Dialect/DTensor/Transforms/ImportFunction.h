//===- ImportFunction.h - a function of one module into another -*- C++ -*-===//
//
// A session serves several functions of one program on the same ranks and
// state (dtensor-add-driver{extra-entries=...}); frontends export each
// function as a module of its own (hp.torch exports a prefill step and a
// decode step apart). importFunction brings one into the other, with the
// meshes it is written against.
//
//===----------------------------------------------------------------------===//

#ifndef HP_DIALECT_DTENSOR_TRANSFORMS_IMPORTFUNCTION_H
#define HP_DIALECT_DTENSOR_TRANSFORMS_IMPORTFUNCTION_H

#include "mlir/IR/BuiltinOps.h"

namespace hp::dtensor {

/// Copies function `name` of `source` into `dest` as `newName`, with the
/// meshes it uses (`dtensor.mesh`, `shard.grid`, by symbol or in DTensor
/// types): one that `dest` lacks is copied, one it has must be the same op
/// with the same attributes. A function referring to any other symbol, or
/// to one `source` does not define, is refused. Errors are emitted on
/// `dest` (or the op in conflict); `dest` is unchanged on failure.
mlir::LogicalResult importFunction(mlir::ModuleOp dest, mlir::ModuleOp source,
                                   llvm::StringRef name,
                                   llvm::StringRef newName);

} // namespace hp::dtensor

#endif // HP_DIALECT_DTENSOR_TRANSFORMS_IMPORTFUNCTION_H
