//===- SplitIndependentDeallocs.cpp - One dealloc per unaliased buffer ----===//
//
// Ownership-based deallocation ends a block with one `bufferization.dealloc`
// of every buffer the block owns, retaining the ones it yields. A training
// step is one block of hundreds of buffers, and upstream's simplification
// asks, pair by pair, which of them may alias: quadratic in the buffers,
// most of the time it takes to lower a deep model. Here the allocations
// each buffer may be a view of are found once (BufferViewFlowAnalysis), and
// a buffer that shares none of them with another buffer or a retained value
// of the op is freed by a dealloc of its own.
//
//===----------------------------------------------------------------------===//

#include "hp/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Transforms/BufferViewFlowAnalysis.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

namespace hp {
#define GEN_PASS_DEF_SPLITINDEPENDENTDEALLOCS
#include "hp/Transforms/Passes.h.inc"
} // namespace hp

using namespace mlir;

namespace {

/// Whether `v` is a fresh allocation (`memref.alloc`, `memref.alloca`): no
/// other allocation's alias.
bool isFreshAllocation(Value v) {
  return isa_and_present<memref::AllocOp, memref::AllocaOp>(v.getDefiningOp());
}

/// The allocations `v` may be a view of (through views and region branches,
/// as the analysis follows them): fresh allocations, and the function's
/// arguments as one allocation (memory that existed before any allocation
/// in the function, but a caller may pass one buffer as two arguments),
/// named by the entry block's first argument. None if any of them is not
/// known (a call's result, an op the analysis does not see through).
std::optional<SmallVector<Value>>
allocationsOf(const BufferViewFlowAnalysis &flow, Value v) {
  SmallVector<Value> allocations;
  for (Value source : flow.resolveReverse(v)) {
    if (!flow.mayBeTerminalBuffer(source))
      continue;
    if (isFreshAllocation(source)) {
      allocations.push_back(source);
      continue;
    }
    auto arg = dyn_cast<BlockArgument>(source);
    Block *block = arg ? arg.getOwner() : nullptr;
    if (!block || !block->isEntryBlock() ||
        !isa_and_present<FunctionOpInterface>(block->getParentOp()))
      return std::nullopt;
    allocations.push_back(block->getArgument(0));
  }
  if (allocations.empty())
    return std::nullopt;
  llvm::sort(allocations, [](Value a, Value b) {
    return a.getAsOpaquePointer() < b.getAsOpaquePointer();
  });
  allocations.erase(llvm::unique(allocations), allocations.end());
  return allocations;
}

/// Simplifies `dealloc` in time linear in it, wherever the allocations each
/// operand may be a view of tell all:
/// - a memref that shares none of its allocations with another memref or a
///   retained value is freed by a dealloc of its own (same condition,
///   nothing retained): distinct allocations never alias, so it is freed
///   exactly when the op would free it;
/// - a memref of exactly one fresh allocation that no other memref shares,
///   whose retained values are all of exactly that allocation, is theirs: it is
///   not freed, and each of those retained values is owned exactly when
///   its condition holds, so their results become the condition.
/// Whether any other retained value is owned depends only on the memrefs
/// that stay. The op is left alone when the allocations of any of its
/// operands are not known.
void simplify(bufferization::DeallocOp dealloc,
              const BufferViewFlowAnalysis &flow) {
  SmallVector<std::optional<SmallVector<Value>>> allocations;
  llvm::DenseMap<Value, unsigned> memrefClaims;
  for (Value m : dealloc.getMemrefs()) {
    allocations.push_back(allocationsOf(flow, m));
    // A memref of unknown allocations may alias any other.
    if (!allocations.back())
      return;
    for (Value a : *allocations.back())
      ++memrefClaims[a];
  }
  // For each allocation, the retained values that may be views of it, and
  // whether each of those is of that allocation alone.
  llvm::DenseMap<Value, SmallVector<unsigned>> retainedOf;
  llvm::DenseSet<unsigned> singleAllocation;
  for (auto [j, r] : llvm::enumerate(dealloc.getRetained())) {
    std::optional<SmallVector<Value>> retained = allocationsOf(flow, r);
    if (!retained)
      return;
    for (Value a : *retained)
      retainedOf[a].push_back(j);
    if (retained->size() == 1)
      singleAllocation.insert(j);
  }
  // Already one buffer, nothing retained: nothing to split.
  if (dealloc.getMemrefs().size() == 1 && dealloc.getRetained().empty())
    return;
  SmallVector<Value> keptMemrefs, keptConditions;
  OpBuilder b(dealloc);
  for (auto [m, c, own] : llvm::zip_equal(
           dealloc.getMemrefs(), dealloc.getConditions(), allocations)) {
    if (llvm::all_of(*own, [&](Value a) {
          return memrefClaims[a] == 1 && !retainedOf.count(a);
        })) {
      bufferization::DeallocOp::create(b, dealloc.getLoc(), ValueRange{m},
                                       ValueRange{c}, ValueRange{});
      continue;
    }
    if (own->size() == 1 && isFreshAllocation(own->front()) &&
        memrefClaims[own->front()] == 1) {
      SmallVector<unsigned> retainers = retainedOf.lookup(own->front());
      if (llvm::all_of(retainers,
                       [&](unsigned j) { return singleAllocation.count(j); })) {
        for (unsigned j : retainers)
          dealloc.getUpdatedConditions()[j].replaceAllUsesWith(c);
        continue;
      }
    }
    keptMemrefs.push_back(m);
    keptConditions.push_back(c);
  }
  if (keptMemrefs.size() == dealloc.getMemrefs().size())
    return;
  // Nothing left to free and no retained value to answer for.
  if (keptMemrefs.empty() && dealloc.getRetained().empty()) {
    dealloc.erase();
    return;
  }
  dealloc.getMemrefsMutable().assign(keptMemrefs);
  dealloc.getConditionsMutable().assign(keptConditions);
}

struct SplitIndependentDeallocsPass
    : hp::impl::SplitIndependentDeallocsBase<SplitIndependentDeallocsPass> {
  void runOnOperation() override {
    SmallVector<bufferization::DeallocOp> deallocs;
    getOperation()->walk(
        [&](bufferization::DeallocOp d) { deallocs.push_back(d); });
    // Splitting makes no new buffers: one analysis serves every op.
    BufferViewFlowAnalysis flow(getOperation());
    for (bufferization::DeallocOp d : deallocs)
      simplify(d, flow);
  }
};

} // namespace
