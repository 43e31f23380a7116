//===- MemRefToGPU.cpp - buffers in device memory -------------------------===//
//
// Runs after kernel outlining, when host code is everything outside
// gpu.module. Allocations become device allocations; data enters and leaves
// device memory only at the entry function's boundary, and the few host
// element accesses that remain (scalar checks) go through a host copy.
//
//===----------------------------------------------------------------------===//

#include "hp/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"

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

/// A device buffer of `like`'s identity-layout type.
Value deviceAlloc(OpBuilder &b, Location loc, Value like) {
  auto type = cast<MemRefType>(like.getType());
  auto identity = MemRefType::get(type.getShape(), type.getElementType());
  return gpu::AllocOp::create(b, loc, identity, /*asyncToken=*/Type(),
                              /*asyncDependencies=*/ValueRange(),
                              dynamicSizes(b, loc, like), ValueRange())
      .getMemref();
}

Value hostAlloc(OpBuilder &b, Location loc, Value like) {
  auto type = cast<MemRefType>(like.getType());
  return memref::AllocOp::create(
      b, loc, MemRefType::get(type.getShape(), type.getElementType()),
      dynamicSizes(b, loc, like));
}

void copy(OpBuilder &b, Location loc, Value dst, Value src) {
  gpu::MemcpyOp::create(b, loc, /*asyncToken=*/Type(), ValueRange(), dst, src);
}

struct ConvertMemRefToGPUPass
    : hp::impl::ConvertMemRefToGPUBase<ConvertMemRefToGPUPass> {
  using Base::Base;
  void runOnOperation() override;
};

} // namespace

void ConvertMemRefToGPUPass::runOnOperation() {
  ModuleOp module = getOperation();
  bool failedAny = false;

  for (auto fn : module.getOps<func::FuncOp>()) {
    if (fn.isExternal())
      continue;
    // Layouts that gpu.memcpy cannot copy are reported, not mishandled.
    fn.walk([&](memref::CopyOp op) {
      auto s = cast<MemRefType>(op.getSource().getType());
      auto t = cast<MemRefType>(op.getTarget().getType());
      if (!s.getLayout().isIdentity() || !t.getLayout().isIdentity()) {
        op.emitOpError("copies a strided view; device buffers are copied "
                       "whole (gpu.memcpy) in the GPU pipeline");
        failedAny = true;
      }
    });
    if (failedAny)
      continue;

    SmallVector<Operation *> toErase;
    fn.walk([&](Operation *op) {
      OpBuilder b(op);
      Location loc = op->getLoc();
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        auto device = gpu::AllocOp::create(
            b, loc, alloc.getType(), Type(), ValueRange(),
            alloc.getDynamicSizes(), alloc.getSymbolOperands());
        alloc.replaceAllUsesWith(device.getMemref());
        toErase.push_back(alloc);
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        gpu::DeallocOp::create(b, loc, Type(), ValueRange(),
                               dealloc.getMemref());
        toErase.push_back(dealloc);
      } else if (auto copyOp = dyn_cast<memref::CopyOp>(op)) {
        copy(b, loc, copyOp.getTarget(), copyOp.getSource());
        toErase.push_back(copyOp);
      } else if (auto global = dyn_cast<memref::GetGlobalOp>(op)) {
        // Constants live in host memory; kernels read a device copy.
        b.setInsertionPointAfter(global);
        Value device = deviceAlloc(b, loc, global.getResult());
        global.getResult().replaceAllUsesExcept(
            device, SmallPtrSet<Operation *, 1>{});
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

    // Host element accesses of device buffers go through a host copy.
    fn.walk([&](Operation *op) {
      if (!isa<memref::LoadOp, memref::StoreOp>(op) ||
          op->getParentOfType<gpu::LaunchOp>())
        return;
      OpBuilder b(op);
      Location loc = op->getLoc();
      if (auto load = dyn_cast<memref::LoadOp>(op)) {
        Value host = hostAlloc(b, loc, load.getMemRef());
        copy(b, loc, host, load.getMemRef());
        load.getMemrefMutable().assign(host);
        b.setInsertionPointAfter(load);
        memref::DeallocOp::create(b, loc, host);
      } else {
        auto store = cast<memref::StoreOp>(op);
        Value device = store.getMemRef();
        Value host = hostAlloc(b, loc, device);
        copy(b, loc, host, device);
        store.getMemrefMutable().assign(host);
        b.setInsertionPointAfter(store);
        copy(b, loc, device, host);
        memref::DeallocOp::create(b, loc, host);
      }
    });

    if (fn.getSymName() != entryPoint)
      continue;
    // The entry's buffer arguments arrive in host memory and its buffer
    // results leave in host memory.
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
  if (failedAny)
    signalPassFailure();
}
