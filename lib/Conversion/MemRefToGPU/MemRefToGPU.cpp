//===- MemRefToGPU.cpp - buffers in device memory -------------------------===//
//
// Runs after kernel outlining, when host code is everything outside
// gpu.module. Allocations become device allocations; data enters and leaves
// device memory only at the entry function's boundary, and the few host
// element accesses that remain (scalar checks) go through a host copy.
//
//===----------------------------------------------------------------------===//

#include "hp/Conversion/Passes.h"
#include "hp/Support/RootBuffer.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

namespace hp {
#define GEN_PASS_DEF_CONVERTMEMREFTOGPU
#include "hp/Conversion/Passes.h.inc"
} // namespace hp

using namespace mlir;

namespace {

SmallVector<Value> dynamicSizes(OpBuilder &b, Location loc, Value memref) {
  SmallVector<Value> sizes;
  auto type = cast<MemRefType>(memref.getType());
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      sizes.push_back(memref::DimOp::create(b, loc, memref, d));
  return sizes;
}

/// `memref`'s type with the identity layout: the copies this pass makes are
/// whole, contiguous buffers.
MemRefType identityType(Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  return MemRefType::get(type.getShape(), type.getElementType());
}

/// A device buffer shaped like `like`.
Value deviceAlloc(OpBuilder &b, Location loc, Value like) {
  return gpu::AllocOp::create(b, loc, identityType(like), /*asyncToken=*/Type(),
                              /*asyncDependencies=*/ValueRange(),
                              dynamicSizes(b, loc, like), ValueRange())
      .getMemref();
}

/// A host buffer shaped like `like`.
Value hostAlloc(OpBuilder &b, Location loc, Value like) {
  return memref::AllocOp::create(b, loc, identityType(like),
                                 dynamicSizes(b, loc, like));
}

void copy(OpBuilder &b, Location loc, Value dst, Value src) {
  gpu::MemcpyOp::create(b, loc, /*asyncToken=*/Type(), ValueRange(), dst, src);
}

/// Buffers that only host code touches (element loads and stores,
/// deallocation, passing to functions that do the same): the bookkeeping of
/// ownership-based deallocation. They stay in host memory; moving them to the
/// device would stage every access through a copy.
class HostBuffers {
public:
  explicit HostBuffers(ModuleOp module) : symbols(module) {
    module.walk(
        [&](func::CallOp call) { calls[call.getCallee()].push_back(call); });
    module.walk([&](Operation *op) {
      if (isa<memref::AllocOp, memref::GetGlobalOp>(op) &&
          onlyHostUses(op->getResult(0)))
        host.insert(op->getResult(0));
    });
    // A function argument is host memory when every caller passes some.
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (fn.isExternal())
        continue;
      for (BlockArgument arg : fn.getArguments()) {
        auto &sites = calls[fn.getSymName()];
        if (!isa<MemRefType>(arg.getType()) || sites.empty())
          continue;
        if (llvm::all_of(sites, [&](func::CallOp call) {
              return host.contains(
                  hp::rootBuffer(call.getOperand(arg.getArgNumber())));
            }))
          host.insert(arg);
      }
    }
  }

  bool isHost(Value memref) const {
    return host.contains(hp::rootBuffer(memref));
  }

private:
  bool onlyHostUses(Value v) {
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (auto store = dyn_cast<memref::StoreOp>(user)) {
        if (store.getValueToStore() == v)
          return false;
        continue;
      }
      if (isa<memref::LoadOp, memref::DeallocOp, memref::DimOp>(user))
        continue;
      if (isa<ViewLikeOpInterface, memref::CastOp>(user)) {
        if (!onlyHostUses(user->getResult(0)))
          return false;
        continue;
      }
      if (auto call = dyn_cast<func::CallOp>(user)) {
        auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
        if (!callee || callee.isExternal())
          return false;
        BlockArgument arg = callee.getArgument(use.getOperandNumber());
        // A cycle through recursion assumes host use; any other use decides.
        if (!visiting.insert(arg).second)
          continue;
        bool ok = onlyHostUses(arg);
        visiting.erase(arg);
        if (!ok)
          return false;
        continue;
      }
      return false;
    }
    return true;
  }

  SymbolTable symbols;
  llvm::StringMap<SmallVector<func::CallOp>> calls;
  DenseSet<Value> host;
  DenseSet<Value> visiting;
};

/// Reports the copies of layouts that gpu.memcpy cannot copy, rather than
/// mishandling them; returns whether `fn` has none.
bool copiesAreWhole(func::FuncOp fn) {
  bool whole = true;
  fn.walk([&](memref::CopyOp op) {
    auto s = cast<MemRefType>(op.getSource().getType());
    auto t = cast<MemRefType>(op.getTarget().getType());
    if (!s.getLayout().isIdentity() || !t.getLayout().isIdentity()) {
      op.emitOpError("copies a strided view; device buffers are copied "
                     "whole (gpu.memcpy) in the GPU pipeline");
      whole = false;
    }
  });
  return whole;
}

/// Allocations, deallocations and copies of buffers that device code
/// touches become their gpu counterparts; constants get a device copy.
void moveBuffersToDevice(func::FuncOp fn, const HostBuffers &hostBuffers) {
  SmallVector<Operation *> toErase;
  fn.walk([&](Operation *op) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      if (hostBuffers.isHost(alloc))
        return;
      auto device = gpu::AllocOp::create(b, loc, alloc.getType(), Type(),
                                         ValueRange(), alloc.getDynamicSizes(),
                                         alloc.getSymbolOperands());
      alloc.replaceAllUsesWith(device.getMemref());
      toErase.push_back(alloc);
    } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
      if (hostBuffers.isHost(dealloc.getMemref()))
        return;
      gpu::DeallocOp::create(b, loc, Type(), ValueRange(), dealloc.getMemref());
      toErase.push_back(dealloc);
    } else if (auto copyOp = dyn_cast<memref::CopyOp>(op)) {
      copy(b, loc, copyOp.getTarget(), copyOp.getSource());
      toErase.push_back(copyOp);
    } else if (auto global = dyn_cast<memref::GetGlobalOp>(op)) {
      // Constants live in host memory; kernels read a device copy.
      if (hostBuffers.isHost(global))
        return;
      b.setInsertionPointAfter(global);
      Value device = deviceAlloc(b, loc, global.getResult());
      global.getResult().replaceAllUsesExcept(device,
                                              SmallPtrSet<Operation *, 1>{});
      copy(b, loc, device, global.getResult());
      // The copy dies with its block, unless the block passes it on.
      Operation *terminator = global->getBlock()->getTerminator();
      if (llvm::is_contained(terminator->getOperands(), device))
        return;
      b.setInsertionPoint(terminator);
      gpu::DeallocOp::create(b, loc, Type(), ValueRange(), device);
    }
  });
  for (Operation *op : toErase)
    op->erase();
}

/// Host element accesses of device buffers go through a host copy; a store
/// copies it back.
void stageHostAccesses(func::FuncOp fn, const HostBuffers &hostBuffers) {
  fn.walk([&](Operation *op) {
    auto load = dyn_cast<memref::LoadOp>(op);
    auto store = dyn_cast<memref::StoreOp>(op);
    if ((!load && !store) || op->getParentOfType<gpu::LaunchOp>())
      return;
    OpOperand &accessed =
        load ? load.getMemrefMutable() : store.getMemrefMutable();
    Value device = accessed.get();
    if (hostBuffers.isHost(device))
      return;
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value host = hostAlloc(b, loc, device);
    copy(b, loc, host, device);
    accessed.set(host);
    b.setInsertionPointAfter(op);
    if (store)
      copy(b, loc, device, host);
    memref::DeallocOp::create(b, loc, host);
  });
}

/// The entry's buffer arguments arrive in host memory and its buffer
/// results leave in host memory.
void copyAtEntryBoundary(func::FuncOp fn) {
  Block &entry = fn.getBody().front();
  OpBuilder b(&entry, entry.begin());
  for (BlockArgument arg : entry.getArguments()) {
    if (!isa<MemRefType>(arg.getType()))
      continue;
    Value device = deviceAlloc(b, fn.getLoc(), arg);
    arg.replaceAllUsesExcept(device, device.getDefiningOp());
    copy(b, fn.getLoc(), device, arg);
  }
  fn.walk([&](func::ReturnOp ret) {
    OpBuilder rb(ret);
    for (OpOperand &operand : ret->getOpOperands()) {
      if (!isa<MemRefType>(operand.get().getType()))
        continue;
      Value host = hostAlloc(rb, ret.getLoc(), operand.get());
      copy(rb, ret.getLoc(), host, operand.get());
      Value result = host;
      if (host.getType() != operand.get().getType())
        result = memref::CastOp::create(rb, ret.getLoc(),
                                        operand.get().getType(), host);
      operand.set(result);
    }
  });
}

struct ConvertMemRefToGPUPass
    : hp::impl::ConvertMemRefToGPUBase<ConvertMemRefToGPUPass> {
  using Base::Base;
  void runOnOperation() override;
};

} // namespace

void ConvertMemRefToGPUPass::runOnOperation() {
  ModuleOp module = getOperation();
  // A library module has no `main`; any other entry point must exist (also
  // when hp-lower-to-gpu passes it on).
  if (entryPoint != "main" && !module.lookupSymbol<func::FuncOp>(entryPoint)) {
    module.emitError() << "entry point '" << entryPoint
                       << "' is not a function of this module";
    return signalPassFailure();
  }
  HostBuffers hostBuffers(module);

  // After the first error, the remaining functions are only checked.
  bool failedAny = false;
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (fn.isExternal())
      continue;
    if (!copiesAreWhole(fn))
      failedAny = true;
    if (failedAny)
      continue;
    moveBuffersToDevice(fn, hostBuffers);
    stageHostAccesses(fn, hostBuffers);
    if (fn.getSymName() == entryPoint)
      copyAtEntryBoundary(fn);
  }
  if (failedAny)
    signalPassFailure();
}
