//===- FreeBuffersAfterLastUse.cpp - Free each buffer when it is done -----===//
//
// Upstream's ownership-based deallocation frees a block's buffers at the end
// of the block. A training step is one block: every temporary (each layer's
// gathered weights under FSDP, each activation gradient) would live until
// the step returns, and the step's peak memory would be the sum of them all.
// This pass moves each `memref.dealloc` of an allocation in its own block to
// just after the last op of the block that uses the buffer or any view of it
// (BufferViewFlowAnalysis). A use-after-free would be a silent wrong number:
// wherever the analysis cannot see every reader, the dealloc stays.
//
//===----------------------------------------------------------------------===//

#include "hp/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/Transforms/BufferViewFlowAnalysis.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace hp {
#define GEN_PASS_DEF_FREEBUFFERSAFTERLASTUSE
#include "hp/Transforms/Passes.h.inc"
} // namespace hp

using namespace mlir;

namespace {

/// Whether the analysis sees every later reader of `view` through `user`:
/// false if `user` takes the address as a value of another type, makes a
/// buffer or tensor the analysis does not count as a view, keeps the buffer
/// (stored as a value), frees it, or may use it after it returns (GPU,
/// async, OpenMP, DMA).
bool userIsVisible(Operation *user, Value view,
                   const BufferViewFlowAnalysis::ValueSetT &views) {
  if (isa<memref::ExtractAlignedPointerAsIndexOp,
          memref::ExtractStridedMetadataOp, UnrealizedConversionCastOp,
          memref::DeallocOp, memref::DmaStartOp>(user))
    return false;
  if (auto store = dyn_cast<memref::StoreOp>(user);
      store && store.getValueToStore() == view)
    return false;
  StringRef dialect =
      user->getDialect() ? user->getDialect()->getNamespace() : StringRef();
  if (llvm::is_contained({"gpu", "async", "omp", "llvm", "ptr"}, dialect))
    return false;
  for (Value result : user->getResults()) {
    Type type = result.getType();
    if (isa<BaseMemRefType, TensorType>(type)
            ? !views.contains(result)
            : !type.isIntOrIndexOrFloat() && !isa<VectorType>(type))
      return false;
  }
  return true;
}

/// The op of the dealloc's block after which `buffer` and all its views are
/// dead, or null if the dealloc must stay: a view escapes the block (a use
/// outside it or by its terminator), has a user the analysis cannot see
/// past, or is used after the dealloc.
Operation *lastUse(memref::DeallocOp dealloc, Value buffer,
                   const BufferViewFlowAnalysis &analysis) {
  Block *block = dealloc->getBlock();
  Operation *last = buffer.getDefiningOp();
  BufferViewFlowAnalysis::ValueSetT views = analysis.resolve(buffer);
  for (Value view : views) {
    for (Operation *user : view.getUsers()) {
      if (user == dealloc)
        continue;
      if (!userIsVisible(user, view, views))
        return nullptr;
      Operation *inBlock = block->findAncestorOpInBlock(*user);
      if (!inBlock || !inBlock->isBeforeInBlock(dealloc) ||
          (block->mightHaveTerminator() && inBlock == block->getTerminator()))
        return nullptr;
      if (last->isBeforeInBlock(inBlock))
        last = inBlock;
    }
  }
  return last;
}

struct FreeBuffersAfterLastUse
    : hp::impl::FreeBuffersAfterLastUseBase<FreeBuffersAfterLastUse> {
  void runOnOperation() override {
    auto &analysis = getAnalysis<BufferViewFlowAnalysis>();
    // Where each dealloc goes, found before any moves (a move renumbers its
    // block); no target is a dealloc, so the moves do not interact.
    SmallVector<std::pair<memref::DeallocOp, Operation *>> moves;
    getOperation()->walk([&](memref::DeallocOp dealloc) {
      Value buffer = dealloc.getMemref();
      // Only a fresh allocation of this block: a buffer from a call, a block
      // argument or a view may share memory with values the analysis only
      // sees in reverse.
      Operation *def = buffer.getDefiningOp();
      if (!def || def->getBlock() != dealloc->getBlock() ||
          !hasEffect<MemoryEffects::Allocate>(def, buffer))
        return;
      if (Operation *last = lastUse(dealloc, buffer, analysis))
        if (last->getNextNode() != dealloc)
          moves.push_back({dealloc, last});
    });
    for (auto [dealloc, last] : moves)
      dealloc->moveAfter(last);
    if (moves.empty())
      markAllAnalysesPreserved();
  }
};

} // namespace
