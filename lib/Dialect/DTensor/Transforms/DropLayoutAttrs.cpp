//===- DropLayoutAttrs.cpp - pure LLVM output from the LLVM pipelines -----===//
//
// convert-dtensor-to-shard records each former DTensor boundary as a
// `dtensor.sharding` argument/result attribute, for launchers. Upstream tools
// (mlir-translate) refuse attributes of a dialect they do not know, so the
// LLVM-level pipelines drop them unless asked to keep them.
//
//===----------------------------------------------------------------------===//

#include "hp/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

namespace hp::dtensor {
#define GEN_PASS_DEF_DTENSORDROPLAYOUTATTRS
#include "hp/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace hp::dtensor

using namespace mlir;

namespace {

bool isDTensorAttr(NamedAttribute attr) {
  return attr.getName().getValue().starts_with("dtensor.");
}

struct DTensorDropLayoutAttrsPass
    : hp::dtensor::impl::DTensorDropLayoutAttrsBase<
          DTensorDropLayoutAttrsPass> {
  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      if (auto fn = dyn_cast<FunctionOpInterface>(op)) {
        for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
          for (NamedAttribute attr : fn.getArgAttrs(i))
            if (isDTensorAttr(attr))
              fn.removeArgAttr(i, attr.getName());
        for (unsigned i = 0, e = fn.getNumResults(); i < e; ++i)
          for (NamedAttribute attr : fn.getResultAttrs(i))
            if (isDTensorAttr(attr))
              fn.removeResultAttr(i, attr.getName());
      }
      for (NamedAttribute attr : op->getDiscardableAttrs())
        if (isDTensorAttr(attr))
          op->removeDiscardableAttr(attr.getName());
    });
  }
};

} // namespace
