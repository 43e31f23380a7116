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

#include "hp/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"

namespace hp {
#define GEN_PASS_DEF_NCCLCONTIGUOUSBUFFERS
#include "hp/Conversion/Passes.h.inc"
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
      OpBuilder b(op);
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
        operand.set(stage(b, op, source, written));
      }
    });
  }
};

} // namespace
