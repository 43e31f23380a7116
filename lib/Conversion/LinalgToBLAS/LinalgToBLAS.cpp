//===- LinalgToBLAS.cpp - contractions as library calls -------------------===//
//
// Loops the compiler generates for a matmul run two orders of magnitude
// below a tuned library; every contraction a BLAS can take goes to one
// through hp's CPU runtime (lib/Runtime/Contractions.cpp), which handles the
// strides and falls back to a loop where a BLAS cannot.
//
//===----------------------------------------------------------------------===//

#include "hp/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace hp {
#define GEN_PASS_DEF_CONVERTLINALGTOBLAS
#include "hp/Conversion/Passes.h.inc"
} // namespace hp

using namespace mlir;

namespace {

/// A contraction the runtime takes: which entry point and the transpose
/// flags of A and B.
struct Call {
  std::string name;
  bool transA = false, transB = false;
};

/// Whether `map` is exactly the loops `dims`, in order.
bool isExactly(AffineMap map, ArrayRef<unsigned> dims) {
  if (map.getNumResults() != dims.size())
    return false;
  for (auto [e, d] : llvm::zip(map.getResults(), dims)) {
    auto dim = dyn_cast<AffineDimExpr>(e);
    if (!dim || dim.getPosition() != d)
      return false;
  }
  return true;
}

/// The body multiplies its two inputs and adds the product to the init.
bool isMultiplyAdd(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  if (body->getNumArguments() != 3 || body->getOperations().size() != 3)
    return false;
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  Value acc = body->getArgument(2);
  Value product = add.getLhs() == acc ? add.getRhs() : add.getLhs();
  auto mul = product.getDefiningOp<arith::MulFOp>();
  if (!mul || (add.getLhs() != acc && add.getRhs() != acc))
    return false;
  Value a = body->getArgument(0), b = body->getArgument(1);
  return (mul.getLhs() == a && mul.getRhs() == b) ||
         (mul.getLhs() == b && mul.getRhs() == a);
}

/// The buffer `v` is a view of (through subviews, casts, transposes).
Value rootBuffer(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

std::optional<Call> callFor(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !linalg::isaContractionOpInterface(op) ||
      !isMultiplyAdd(op))
    return std::nullopt;
  // A BLAS reads its inputs whole before writing; loops see their own
  // writes. Views of one buffer as input and output keep the loops.
  Value out = rootBuffer(op.getDpsInits()[0]);
  if (llvm::any_of(op.getDpsInputs(),
                   [&](Value in) { return rootBuffer(in) == out; }))
    return std::nullopt;
  Type element = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  for (Value v : op->getOperands())
    if (getElementTypeOrSelf(v.getType()) != element)
      return std::nullopt;
  std::string suffix;
  if (element.isF32())
    suffix = "_f32";
  else if (element.isF64())
    suffix = "_f64";
  else
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->batch.size() > 1 || dims->m.size() != 1 ||
      dims->k.size() != 1 || dims->n.size() > 1)
    return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<unsigned> b(dims->batch.begin(), dims->batch.end());
  auto with = [&](std::initializer_list<unsigned> rest) {
    SmallVector<unsigned> all = b;
    all.append(rest);
    return all;
  };
  unsigned m = dims->m[0], k = dims->k[0];
  Call call;
  if (isExactly(maps[0], with({m, k})))
    call.transA = false;
  else if (isExactly(maps[0], with({k, m})))
    call.transA = true;
  else
    return std::nullopt;
  if (dims->n.empty()) { // y += A x
    if (!b.empty() || !isExactly(maps[1], {k}) || !isExactly(maps[2], {m}))
      return std::nullopt;
    call.name = "hp_matvec" + suffix;
    return call;
  }
  unsigned n = dims->n[0];
  if (isExactly(maps[1], with({k, n})))
    call.transB = false;
  else if (isExactly(maps[1], with({n, k})))
    call.transB = true;
  else
    return std::nullopt;
  if (!isExactly(maps[2], with({m, n})))
    return std::nullopt;
  call.name = (b.empty() ? "hp_matmul" : "hp_batch_matmul") + suffix;
  return call;
}

/// `type` with every size, stride and the offset dynamic: the one memref
/// type each runtime entry point takes.
MemRefType anyLayout(MemRefType type) {
  int64_t rank = type.getRank();
  SmallVector<int64_t> sizes(rank, ShapedType::kDynamic);
  SmallVector<int64_t> strides(rank, ShapedType::kDynamic);
  auto layout = StridedLayoutAttr::get(type.getContext(),
                                       ShapedType::kDynamic, strides);
  return MemRefType::get(sizes, type.getElementType(), layout,
                         type.getMemorySpace());
}

struct ConvertLinalgToBLASPass
    : hp::impl::ConvertLinalgToBLASBase<ConvertLinalgToBLASPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<std::pair<linalg::LinalgOp, Call>> todo;
    module.walk([&](linalg::LinalgOp op) {
      if (std::optional<Call> call = callFor(op))
        todo.push_back({op, *call});
    });
    for (auto &[op, call] : todo) {
      OpBuilder b(op);
      Location loc = op.getLoc();
      SmallVector<Value> args;
      for (Value v : op->getOperands()) {
        auto type = cast<MemRefType>(v.getType());
        args.push_back(memref::CastOp::create(b, loc, anyLayout(type), v));
      }
      args.push_back(arith::ConstantIntOp::create(b, loc, call.transA, 32));
      if (!llvm::StringRef(call.name).starts_with("hp_matvec"))
        args.push_back(arith::ConstantIntOp::create(b, loc, call.transB, 32));
      auto type = b.getFunctionType(ValueRange(args).getTypes(), {});
      Operation *existing = symbols.lookup(call.name);
      auto fn = dyn_cast_or_null<func::FuncOp>(existing);
      // Only a declaration of this pass's own making may stand there: a
      // definition, another signature or a plain C ABI would be called
      // instead of the runtime.
      if (existing &&
          (!fn || fn.getFunctionType() != type || !fn.isExternal() ||
           !fn->hasAttr("llvm.emit_c_interface"))) {
        existing->emitError() << "'" << call.name
                              << "' is the name of hp's runtime entry point "
                                 "that convert-linalg-to-blas calls";
        return signalPassFailure();
      }
      if (!fn) {
        OpBuilder top = OpBuilder::atBlockBegin(module.getBody());
        fn = func::FuncOp::create(top, loc, call.name, type);
        fn.setPrivate();
        fn->setAttr("llvm.emit_c_interface", top.getUnitAttr());
        symbols.insert(fn);
      }
      func::CallOp::create(b, loc, fn, args);
      op->erase();
    }
  }
};

} // namespace
