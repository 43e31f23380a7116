//===- ReadOnlyFunctionArguments.cpp - functions never write their inputs -===//
//
// One-shot bufferization may compute an op in place in a function
// argument's buffer; every caller that still needs the value then copies it
// before the call, at every call. A function on tensors only reads its
// arguments, so hp marks them read-only and lets the function write into
// buffers of its own.
//
//===----------------------------------------------------------------------===//

#include "hp/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace hp {
#define GEN_PASS_DEF_READONLYFUNCTIONARGUMENTS
#include "hp/Transforms/Passes.h.inc"
} // namespace hp

using namespace mlir;

namespace {

struct ReadOnlyFunctionArgumentsPass
    : hp::impl::ReadOnlyFunctionArgumentsBase<ReadOnlyFunctionArgumentsPass> {
  void runOnOperation() override {
    StringRef name = bufferization::BufferizationDialect::kWritableAttrName;
    BoolAttr readOnly = BoolAttr::get(&getContext(), false);
    getOperation().walk([&](func::FuncOp fn) {
      if (fn.isExternal())
        return;
      for (auto [i, arg] : llvm::enumerate(fn.getArguments()))
        if (isa<TensorType>(arg.getType()) && !fn.getArgAttr(i, name))
          fn.setArgAttr(i, name, readOnly);
    });
  }
};

} // namespace
