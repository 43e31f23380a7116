//===- ContiguousBuffers.cpp - NCCL reads and writes contiguous memory ----===//
//
// convert-shard-to-nccl hands NCCL its tensors as buffers of fully dynamic
// layout, which one-shot bufferization can always produce by a (valid) cast.
// After bufferization the real layout is known: a buffer that is not
// provably contiguous is staged through a fresh contiguous one, and a
// provably contiguous one is used as it is. A strided buffer is never cast
// to an identity layout, which is what made NCCL read the wrong elements.
//
//===----------------------------------------------------------------------===//

#include "hp/Dialect/NCCL/IR/NCCL.h"
#include "hp/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"

namespace hp {
#define GEN_PASS_DEF_NCCLCONTIGUOUSBUFFERS
#define GEN_PASS_DEF_COPYUNPROVENIDENTITYCASTS
#include "hp/Transforms/Passes.h.inc"
} // namespace hp

using namespace mlir;
using namespace hp::nccl;

namespace {

/// The operand behind any chain of memref.casts: its type is the most
/// precise statement of its layout.
Value stripCasts(Value v) {
  while (auto cast = v.getDefiningOp<memref::CastOp>())
    v = cast.getSource();
  return v;
}

/// A contiguous copy of `buffer` (or, for a written operand, a contiguous
/// buffer copied back into `buffer` after `op`).
Value stage(OpBuilder &b, Operation *op, Value buffer, bool written) {
  Location loc = op->getLoc();
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<Value> dynamic;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      dynamic.push_back(memref::DimOp::create(b, loc, buffer, d));
  auto contiguous = MemRefType::get(type.getShape(), type.getElementType());
  Value staged = memref::AllocOp::create(b, loc, contiguous, dynamic);
  if (!written) {
    linalg::CopyOp::create(b, loc, buffer, staged);
    return staged;
  }
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointAfter(op);
  linalg::CopyOp::create(b, loc, staged, buffer);
  return staged;
}

struct NCCLContiguousBuffersPass
    : hp::impl::NCCLContiguousBuffersBase<NCCLContiguousBuffersPass> {
  void runOnOperation() override {
    getOperation()->walk([](Operation *op) {
      if (!isa<AllGatherOp, ReduceScatterOp, AllReduceOp, AllToAllOp,
               BroadcastOp, SendOp, RecvOp>(op))
        return;
      // Staging copies may not sit inside nccl.group (its calls are issued
      // together): they go around the whole group.
      Operation *anchor = op;
      if (auto group = op->getParentOfType<GroupOp>())
        anchor = group;
      OpBuilder b(anchor);
      for (OpOperand &operand : op->getOpOperands()) {
        if (!isa<MemRefType>(operand.get().getType()))
          continue;
        Value source = stripCasts(operand.get());
        if (isProvablyContiguous(cast<MemRefType>(source.getType()))) {
          operand.set(source);
          continue;
        }
        // recv buffers (the second operand of a collective, RecvOp's only
        // one) are written; everything else is read.
        bool written = isa<RecvOp>(op) ||
                       (!isa<SendOp>(op) && operand.getOperandNumber() == 1);
        operand.set(stage(b, anchor, source, written));
      }
    });
  }
};

/// Whether every use of `v` only reads it or hands it on (return, call).
bool onlyReadOrPassedOn(Value v) {
  return llvm::all_of(v.getUses(), [](OpOperand &use) {
    Operation *user = use.getOwner();
    if (isa<func::ReturnOp, func::CallOp, memref::DimOp>(user))
      return true;
    auto effects = dyn_cast<MemoryEffectOpInterface>(user);
    if (!effects)
      return false;
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffectsOnValue(use.get(), list);
    return llvm::all_of(list, [](const MemoryEffects::EffectInstance &e) {
      return isa<MemoryEffects::Read>(e.getEffect());
    });
  });
}

/// One-shot bufferization meets an identity-layout type (a function result,
/// a to_buffer) from a strided buffer with `memref.cast` whenever the cast
/// is "guaranteed" by its static strides, which with a dynamic size it is
/// not: `memref<2x2x?xi64, strided<[6, 3, 1]>>` to `memref<2x2x?xi64>` is
/// right only when the last size is 3, and the caller then reads the wrong
/// elements. Such a cast becomes a contiguous copy.
struct CopyUnprovenIdentityCastsPass
    : hp::impl::CopyUnprovenIdentityCastsBase<CopyUnprovenIdentityCastsPass> {
  void runOnOperation() override {
    SmallVector<memref::CastOp> casts;
    getOperation()->walk([&](memref::CastOp cast) {
      auto from = dyn_cast<MemRefType>(cast.getSource().getType());
      auto to = dyn_cast<MemRefType>(cast.getType());
      if (from && to && to.getLayout().isIdentity() &&
          !isProvablyContiguous(from))
        casts.push_back(cast);
    });
    for (memref::CastOp castOp : casts) {
      if (!onlyReadOrPassedOn(castOp.getResult())) {
        castOp.emitWarning(
            "cast of a strided buffer to an identity layout is "
            "written through; it is right only for some run-time "
            "sizes");
        continue;
      }
      OpBuilder b(castOp);
      auto to = cast<MemRefType>(castOp.getType());
      SmallVector<Value> dynamic;
      for (int64_t d = 0; d < to.getRank(); ++d)
        if (to.isDynamicDim(d))
          dynamic.push_back(
              memref::DimOp::create(b, castOp.getLoc(), castOp.getSource(), d));
      Value copy = memref::AllocOp::create(b, castOp.getLoc(), to, dynamic);
      linalg::CopyOp::create(b, castOp.getLoc(), castOp.getSource(), copy);
      castOp.getResult().replaceAllUsesWith(copy);
      castOp.erase();
    }
  }
};

} // namespace
