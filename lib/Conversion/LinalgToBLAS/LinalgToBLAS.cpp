//===- LinalgToBLAS.cpp - contractions as library calls -------------------===//
//
// Loops the compiler generates for a matmul run two orders of magnitude
// below a tuned library; every contraction a BLAS can take goes to one
// through hp's runtime (lib/Runtime/Contractions.cpp on CPUs, where a gemm a
// BLAS cannot take falls back to a loop; CudaContractions.cpp with cuBLAS
// on GPUs, where only contractions whose static layout fits go).
//
//===----------------------------------------------------------------------===//

#include "hp/Conversion/Passes.h"
#include "hp/Runtime/ContractionPlan.h"
#include "hp/Support/RootBuffer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

#include <array>

namespace hp {
#define GEN_PASS_DEF_CONVERTLINALGTOBLAS
#include "hp/Conversion/Passes.h.inc"
} // namespace hp

using namespace mlir;
namespace contraction = hp::runtime::contraction;

namespace {

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

/// For a contraction the runtime takes, its loop spec: for each loop, the
/// memref dim of A, B and C it indexes (-1 for none). Every loop must be a
/// batch (A, B, C), m (A, C), n (B, C) or k (A, B) loop, with at least one
/// k loop and one m or n loop: the runtime turns the largest of them into a
/// gemm and loops over the rest.
std::optional<std::vector<contraction::LoopDims>>
loopSpec(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !isMultiplyAdd(op))
    return std::nullopt;
  // A BLAS reads its inputs whole before writing; loops see their own
  // writes. Views of one buffer as input and output keep the loops.
  Value out = hp::rootBuffer(op.getDpsInits()[0]);
  if (llvm::any_of(op.getDpsInputs(),
                   [&](Value in) { return hp::rootBuffer(in) == out; }))
    return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (!llvm::all_of(maps, [](AffineMap m) {
        return m.isProjectedPermutation(/*allowZeroInResults=*/false);
      }))
    return std::nullopt;
  std::vector<contraction::LoopDims> spec;
  bool hasK = false, hasMN = false;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned loop = 0, e = op.getNumLoops(); loop < e; ++loop) {
    bool in[3];
    contraction::LoopDims dims;
    for (unsigned o = 0; o < 3; ++o) {
      std::optional<unsigned> dim =
          maps[o].getResultPosition(getAffineDimExpr(loop, op.getContext()));
      in[o] = dim.has_value();
      dims[o] = dim ? int64_t(*dim) : int64_t(-1);
    }
    spec.push_back(dims);
    bool reduction = iterators[loop] == utils::IteratorType::reduction;
    if (in[0] && in[1] && !in[2] && reduction)
      hasK = true;
    else if (in[2] && (in[0] || in[1]) && !reduction)
      hasMN |= !(in[0] && in[1]);
    else
      return std::nullopt;
  }
  if (!hasK || !hasMN)
    return std::nullopt;
  return spec;
}

/// On GPUs the runtime has no plain loop to fall back on: a contraction
/// goes to cuBLAS only if its static sizes and strides already make every
/// gemm of its plan a BLAS call.
bool fitsBlasStatically(linalg::LinalgOp op,
                        const std::vector<contraction::LoopDims> &spec) {
  std::array<SmallVector<int64_t>, 3> sizes, strides;
  int64_t ranks[3];
  for (unsigned o = 0; o < 3; ++o) {
    auto type = cast<MemRefType>(op->getOperand(o).getType());
    int64_t offset;
    if (!type.hasStaticShape() ||
        failed(type.getStridesAndOffset(strides[o], offset)) ||
        llvm::any_of(strides[o], ShapedType::isDynamic))
      return false;
    sizes[o] = llvm::to_vector(type.getShape());
    ranks[o] = type.getRank();
  }
  const int64_t *sizePtrs[3] = {sizes[0].data(), sizes[1].data(),
                                sizes[2].data()};
  const int64_t *stridePtrs[3] = {strides[0].data(), strides[1].data(),
                                  strides[2].data()};
  std::optional<contraction::Plan> plan =
      contraction::makePlan(spec, sizePtrs, stridePtrs, ranks);
  return plan && (plan->empty || plan->gemm.fits());
}

/// `op`'s element type as the entry points' suffix, if a BLAS has it.
std::optional<StringRef> elementSuffix(linalg::LinalgOp op) {
  Type element = getElementTypeOrSelf(op.getDpsInits()[0].getType());
  for (Value v : op->getOperands())
    if (getElementTypeOrSelf(v.getType()) != element)
      return std::nullopt;
  if (element.isF32())
    return StringRef("f32");
  if (element.isF64())
    return StringRef("f64");
  return std::nullopt;
}

/// `type` with its shape and layout erased: the one memref type each runtime
/// entry point takes, whatever the rank.
UnrankedMemRefType unranked(MemRefType type) {
  return UnrankedMemRefType::get(type.getElementType(), type.getMemorySpace());
}

struct ConvertLinalgToBLASPass
    : hp::impl::ConvertLinalgToBLASBase<ConvertLinalgToBLASPass> {
  using Base::Base;

  void runOnOperation() override {
    if (target != "cpu" && target != "gpu") {
      getOperation().emitError()
          << "convert-linalg-to-blas: target must be 'cpu' or 'gpu', got '"
          << target << "'";
      return signalPassFailure();
    }
    bool gpu = target == "gpu";
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    struct Todo {
      linalg::LinalgOp op;
      std::string name;
      std::array<int64_t, contraction::kSpecWords> words;
      int64_t loops;
    };
    SmallVector<Todo> todo;
    module.walk([&](linalg::LinalgOp op) {
      std::optional<std::vector<contraction::LoopDims>> spec = loopSpec(op);
      if (!spec)
        return;
      std::optional<StringRef> suffix = elementSuffix(op);
      auto words = contraction::packSpec(*spec);
      if (!suffix || !words || (gpu && !fitsBlasStatically(op, *spec)))
        return;
      todo.push_back(
          {op, ((gpu ? "hp_gpu_contract_" : "hp_contract_") + *suffix).str(),
           *words, int64_t(spec->size())});
    });
    OpBuilder top = OpBuilder::atBlockBegin(module.getBody());
    for (Todo &t : todo) {
      Location loc = t.op.getLoc();
      OpBuilder b(t.op);
      SmallVector<Value> args;
      for (Value v : t.op->getOperands())
        args.push_back(memref::CastOp::create(
            b, loc, unranked(cast<MemRefType>(v.getType())), v));
      args.push_back(arith::ConstantIntOp::create(b, loc, t.loops, 64));
      for (int64_t word : t.words)
        args.push_back(arith::ConstantIntOp::create(b, loc, word, 64));
      auto type = b.getFunctionType(ValueRange(args).getTypes(), {});
      Operation *existing = symbols.lookup(t.name);
      auto fn = dyn_cast_or_null<func::FuncOp>(existing);
      // Only a declaration of this pass's own making may stand there: a
      // definition, another signature or a plain C ABI would be called
      // instead of the runtime.
      if (existing &&
          (!fn || fn.getFunctionType() != type || !fn.isExternal() ||
           !fn->hasAttr("llvm.emit_c_interface"))) {
        existing->emitError() << "'" << t.name
                              << "' is the name of hp's runtime entry point "
                                 "that convert-linalg-to-blas calls";
        return signalPassFailure();
      }
      if (!fn) {
        fn = func::FuncOp::create(top, loc, t.name, type);
        fn.setPrivate();
        fn->setAttr("llvm.emit_c_interface", top.getUnitAttr());
        symbols.insert(fn);
      }
      func::CallOp::create(b, loc, fn, args);
      t.op->erase();
    }
  }
};

} // namespace
