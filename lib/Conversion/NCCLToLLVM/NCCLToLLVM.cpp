//===- NCCLToLLVM.cpp - nccl ops -> NCCL C API calls ----------------------===//

#include "hp/Conversion/Passes.h"

#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"

namespace hp {
#define GEN_PASS_DEF_CONVERTNCCLTOLLVM
#include "hp/Conversion/Passes.h.inc"
} // namespace hp

using namespace mlir;
using namespace hp::nccl;

namespace {

/// Declares (once) and calls an external C function.
Value callFn(OpBuilder &b, Location loc, Operation *anchor, StringRef name,
             Type result, ValueRange args) {
  Operation *module = anchor->getParentWithTrait<OpTrait::SymbolTable>();
  while (module && !isa<ModuleOp>(module))
    module = module->getParentWithTrait<OpTrait::SymbolTable>();
  auto fn = LLVM::lookupOrCreateFn(b, module, name,
                                   llvm::to_vector(args.getTypes()), result);
  assert(succeeded(fn) && "conflicting declaration of a runtime function");
  auto call = LLVM::CallOp::create(b, loc, *fn, args);
  return isa<LLVM::LLVMVoidType>(result) ? Value() : call.getResult();
}

Type ptrType(MLIRContext *ctx) { return LLVM::LLVMPointerType::get(ctx); }

Value i32(OpBuilder &b, Location loc, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI32Type(), v);
}
Value i64(OpBuilder &b, Location loc, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI64Type(), v);
}

/// A private constant global holding `values`, and its address.
Value i64Array(OpBuilder &b, Location loc, Operation *anchor, StringRef name,
               ArrayRef<int64_t> values) {
  auto module = anchor->getParentOfType<ModuleOp>();
  auto global = module.lookupSymbol<LLVM::GlobalOp>(name);
  if (!global) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    auto type = LLVM::LLVMArrayType::get(b.getI64Type(), values.size());
    global = LLVM::GlobalOp::create(
        b, loc, type, /*isConstant=*/true, LLVM::Linkage::Private, name,
        DenseElementsAttr::get(
            RankedTensorType::get({static_cast<int64_t>(values.size())},
                                  b.getI64Type()),
            values));
  }
  return LLVM::AddressOfOp::create(b, loc, global);
}

/// The NUL-terminated name of a global string, shared by all its users.
Value cString(OpBuilder &b, Location loc, Operation *anchor, StringRef prefix,
              StringRef value) {
  std::string name = (prefix + value).str();
  auto module = anchor->getParentOfType<ModuleOp>();
  if (auto global = module.lookupSymbol<LLVM::GlobalOp>(name))
    return LLVM::AddressOfOp::create(b, loc, global);
  return LLVM::createGlobalString(loc, b, name, (value + Twine('\0')).str(),
                                  LLVM::Linkage::Private);
}

/// Aligned pointer + offset of a contiguous memref, and its element count.
std::pair<Value, Value> bufferOf(ConversionPatternRewriter &b, Location loc,
                                 const LLVMTypeConverter &converter,
                                 Value descriptor, MemRefType type) {
  MemRefDescriptor desc(descriptor);
  Value ptr = desc.bufferPtr(b, loc, converter, type);
  Value count = i64(b, loc, 1);
  for (int64_t d = 0; d < type.getRank(); ++d) {
    Value size = type.isDynamicDim(d) ? desc.size(b, loc, d)
                                      : i64(b, loc, type.getDimSize(d));
    count = LLVM::MulOp::create(b, loc, count, size);
  }
  return {ptr, count};
}

/// Calls an ncclResult_t-returning function and checks the result.
void callChecked(ConversionPatternRewriter &b, Location loc, Operation *op,
                 StringRef name, ValueRange args) {
  Value result = callFn(b, loc, op, name, b.getI32Type(), args);
  callFn(b, loc, op, "hpNcclCheck", LLVM::LLVMVoidType::get(b.getContext()),
         {result, cString(b, loc, op, "__hp_str_", name)});
}

Value stream(ConversionPatternRewriter &b, Location loc, Operation *op) {
  return callFn(b, loc, op, "hpNcclStream", ptrType(b.getContext()), {});
}

Value dataType(ConversionPatternRewriter &b, Location loc, MemRefType type) {
  return i32(b, loc, getNCCLDataType(type.getElementType()));
}

struct CommLowering : ConvertOpToLLVMPattern<CommOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(CommOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    auto grid =
        SymbolTable::lookupNearestSymbolFrom<GridOp>(op, op.getGridAttr());
    if (!grid)
      return b.notifyMatchFailure(op, "grid not found");
    Location loc = op.getLoc();
    std::string name = grid.getSymName().str();
    // The runtime takes 64-bit axes; an empty global array is not valid
    // LLVM IR, so a group of no axes passes one unread entry.
    SmallVector<int64_t> axes(op.getAxes().begin(), op.getAxes().end());
    std::string axesName = "__hp_axes_" + name;
    for (int64_t a : axes)
      axesName += "_" + std::to_string(a);
    if (axes.empty())
      axes.push_back(0);
    Value devices =
        grid.getDevices()
            ? i64Array(b, loc, op, "__hp_devices_" + name, *grid.getDevices())
            : LLVM::ZeroOp::create(b, loc, ptrType(getContext())).getResult();
    Value comm = callFn(
        b, loc, op, "hpNcclComm", ptrType(getContext()),
        {cString(b, loc, op, "__hp_grid_", name), i64(b, loc, grid.getRank()),
         i64Array(b, loc, op, "__hp_shape_" + name, grid.getShape()), devices,
         i64(b, loc, op.getAxes().size()),
         i64Array(b, loc, op, axesName, axes)});
    b.replaceOp(op, comm);
    return success();
  }
};

struct CommRankLowering : ConvertOpToLLVMPattern<CommRankOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(CommRankOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    b.replaceOp(op, callFn(b, op.getLoc(), op, "hpNcclCommRank", b.getI64Type(),
                           {adaptor.getComm()}));
    return success();
  }
};

/// The group size of a communicator: static from nccl.comm, else asked.
Value groupSize(ConversionPatternRewriter &b, Location loc, Operation *op,
                Value comm, Value converted) {
  if (auto commOp = comm.getDefiningOp<CommOp>())
    if (int64_t n = commOp.getGroupSize(); n > 0)
      return i64(b, loc, n);
  Value slot = LLVM::AllocaOp::create(b, loc, ptrType(b.getContext()),
                                      b.getI32Type(), i64(b, loc, 1));
  callChecked(b, loc, op, "ncclCommCount", {converted, slot});
  Value n = LLVM::LoadOp::create(b, loc, b.getI32Type(), slot);
  return LLVM::SExtOp::create(b, loc, b.getI64Type(), n);
}

struct CommSizeLowering : ConvertOpToLLVMPattern<CommSizeOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(CommSizeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    b.replaceOp(op,
                groupSize(b, op.getLoc(), op, op.getComm(), adaptor.getComm()));
    return success();
  }
};

/// One nccl op: one checked call of its NCCL function on the buffers'
/// pointers and element counts.
template <typename OpTy> struct CallLowering : ConvertOpToLLVMPattern<OpTy> {
  using ConvertOpToLLVMPattern<OpTy>::ConvertOpToLLVMPattern;
  using OpAdaptor = typename OpTy::Adaptor;

  LogicalResult matchAndRewrite(OpTy op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    // Pointer and element count of a buffer operand.
    auto buffer = [&](Value original, Value converted) {
      return bufferOf(b, loc, *this->getTypeConverter(), converted,
                      cast<MemRefType>(original.getType()));
    };
    auto dataTypeOf = [&](Value original) {
      return dataType(b, loc, cast<MemRefType>(original.getType()));
    };
    auto redOp = [&](RedOp red) {
      return i32(b, loc, static_cast<int64_t>(red));
    };
    Value comm = adaptor.getComm();
    if constexpr (std::is_same_v<OpTy, SendOp> ||
                  std::is_same_v<OpTy, RecvOp>) {
      auto [ptr, count] = buffer(op.getBuffer(), adaptor.getBuffer());
      Value peer =
          LLVM::TruncOp::create(b, loc, b.getI32Type(), adaptor.getPeer());
      callChecked(b, loc, op,
                  std::is_same_v<OpTy, SendOp> ? "ncclSend" : "ncclRecv",
                  {ptr, count, dataTypeOf(op.getBuffer()), peer, comm,
                   stream(b, loc, op)});
    } else {
      auto [send, sendCount] = buffer(op.getSend(), adaptor.getSend());
      auto [recv, recvCount] = buffer(op.getRecv(), adaptor.getRecv());
      Value type = dataTypeOf(op.getSend());
      if constexpr (std::is_same_v<OpTy, AllGatherOp>) {
        callChecked(b, loc, op, "ncclAllGather",
                    {send, recv, sendCount, type, comm, stream(b, loc, op)});
      } else if constexpr (std::is_same_v<OpTy, ReduceScatterOp>) {
        callChecked(b, loc, op, "ncclReduceScatter",
                    {send, recv, recvCount, type, redOp(op.getOp()), comm,
                     stream(b, loc, op)});
      } else if constexpr (std::is_same_v<OpTy, AllReduceOp>) {
        callChecked(b, loc, op, "ncclAllReduce",
                    {send, recv, sendCount, type, redOp(op.getOp()), comm,
                     stream(b, loc, op)});
      } else if constexpr (std::is_same_v<OpTy, AllToAllOp>) {
        // ncclAlltoAll counts the elements sent to each peer.
        Value n = groupSize(b, loc, op, op.getComm(), comm);
        Value perPeer = LLVM::UDivOp::create(b, loc, sendCount, n);
        callChecked(b, loc, op, "ncclAlltoAll",
                    {send, recv, perPeer, type, comm, stream(b, loc, op)});
      } else {
        static_assert(std::is_same_v<OpTy, BroadcastOp>);
        Value root = op.getRoot()
                         ? i32(b, loc, static_cast<int64_t>(*op.getRoot()))
                         : LLVM::TruncOp::create(b, loc, b.getI32Type(),
                                                 adaptor.getDynamicRoot())
                               .getResult();
        callChecked(
            b, loc, op, "ncclBroadcast",
            {send, recv, sendCount, type, root, comm, stream(b, loc, op)});
      }
    }
    b.eraseOp(op);
    return success();
  }
};

struct GroupLowering : ConvertOpToLLVMPattern<GroupOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(GroupOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    callChecked(b, loc, op, "ncclGroupStart", {});
    Block &body = op.getBody().front();
    b.inlineBlockBefore(&body, op);
    callChecked(b, loc, op, "ncclGroupEnd", {});
    b.eraseOp(op);
    return success();
  }
};

struct ConvertNCCLToLLVMPass
    : hp::impl::ConvertNCCLToLLVMBase<ConvertNCCLToLLVMPass> {
  void runOnOperation() override {
    // NCCL reads a pointer and a count: only a provably contiguous buffer
    // means what its type says.
    WalkResult strided = getOperation().walk([](Operation *op) {
      if ((op->getDialect() && !isa<NCCLDialect>(op->getDialect())) ||
          isa<GridOp>(op))
        return WalkResult::advance();
      // Calls and their string constants are emitted into a function.
      if (!op->getParentOfType<FunctionOpInterface>()) {
        op->emitOpError("must be inside a function to be lowered to NCCL "
                        "calls");
        return WalkResult::interrupt();
      }
      for (Value operand : op->getOperands())
        if (auto type = dyn_cast<MemRefType>(operand.getType());
            type && !isProvablyContiguous(type)) {
          op->emitOpError("buffer ") << type
                                     << " is not provably contiguous; run "
                                        "nccl-contiguous-buffers first";
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    if (strided.wasInterrupted())
      return signalPassFailure();
    LLVMTypeConverter converter(&getContext());
    converter.addConversion([](CommType type) {
      return LLVM::LLVMPointerType::get(type.getContext());
    });
    RewritePatternSet patterns(&getContext());
    hp::populateNCCLToLLVMConversionPatterns(converter, patterns);
    LLVMConversionTarget target(getContext());
    target.addIllegalDialect<NCCLDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    // Grids are read while their communicators are lowered; their shapes
    // and device lists then live in LLVM globals.
    target.addLegalOp<GridOp>();
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();
    for (auto grid :
         llvm::make_early_inc_range(getOperation().getOps<GridOp>()))
      grid.erase();
  }
};

} // namespace

void hp::populateNCCLToLLVMConversionPatterns(LLVMTypeConverter &converter,
                                              RewritePatternSet &patterns) {
  patterns.add<CommLowering, CommRankLowering, CommSizeLowering, GroupLowering,
               CallLowering<AllGatherOp>, CallLowering<ReduceScatterOp>,
               CallLowering<AllReduceOp>, CallLowering<AllToAllOp>,
               CallLowering<BroadcastOp>, CallLowering<SendOp>,
               CallLowering<RecvOp>>(converter);
}
