//===- CheckLoweredToLLVM.cpp - nothing left outside LLVM -----------------===//
//
// A lowering pipeline that leaves an op it has no pattern for (a partial
// conversion, a pass that skips what it does not know) would otherwise hand
// translation a module that fails there, far from the cause.
//
//===----------------------------------------------------------------------===//

#include "hp/Transforms/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace hp {
#define GEN_PASS_DEF_CHECKLOWEREDTOLLVM
#include "hp/Transforms/Passes.h.inc"
} // namespace hp

using namespace mlir;

namespace {
struct CheckLoweredToLLVMPass
    : hp::impl::CheckLoweredToLLVMBase<CheckLoweredToLLVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Casts a conversion left are symptoms of the op it could not convert:
    // they are reported only when nothing else is.
    SmallVector<Operation *> causes, casts;
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op == module.getOperation() ||
          isa<LLVM::LLVMDialect>(op->getDialect()))
        return WalkResult::advance();
      (isa<UnrealizedConversionCastOp>(op) ? casts : causes).push_back(op);
      return WalkResult::skip(); // its body would only repeat the cause
    });
    for (Operation *op : causes.empty() ? casts : causes)
      op->emitError() << "'" << op->getName()
                      << "' has no lowering to LLVM in this pipeline";
    if (!causes.empty() || !casts.empty())
      signalPassFailure();
  }
};
} // namespace
