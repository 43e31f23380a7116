//===- CheckLoweredToLLVM.cpp - nothing left outside LLVM -----------------===//
//
// A lowering pipeline that leaves an op it has no pattern for (a partial
// conversion, a pass that skips what it does not know) would otherwise hand
// translation a module that fails there, far from the cause.
//
//===----------------------------------------------------------------------===//

#include "hp/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace hp {
#define GEN_PASS_DEF_CHECKLOWEREDTOLLVM
#include "hp/Conversion/Passes.h.inc"
} // namespace hp

using namespace mlir;

namespace {
struct CheckLoweredToLLVMPass
    : hp::impl::CheckLoweredToLLVMBase<CheckLoweredToLLVMPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool failed = false;
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op == module.getOperation() ||
          isa<LLVM::LLVMDialect>(op->getDialect()))
        return WalkResult::advance();
      op->emitError() << "'" << op->getName()
                      << "' has no lowering to LLVM in this pipeline";
      failed = true;
      return WalkResult::skip(); // its body would only repeat the cause
    });
    if (failed)
      signalPassFailure();
  }
};
} // namespace
