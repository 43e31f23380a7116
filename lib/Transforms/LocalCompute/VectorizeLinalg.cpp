//===- VectorizeLinalg.cpp - linalg on buffers as vector loops ------------===//
//
// What a BLAS does not take (elementwise chains, reductions, broadcasts,
// transposes) becomes loops whose innermost body works on a whole vector
// register: each structured op is tiled with upstream's TilingInterface, its
// innermost loop by the register width and every other loop by 1, and each
// tile vectorized with upstream's masked vectorizer (the last, partial tile
// of an uneven or dynamic extent runs under a mask instead of a scalar
// remainder loop). A reduction innermost loop becomes a vector reduction per
// tile. Ops the vectorizer refuses (gathers through tensor.extract, i1 and
// index element types) or gets wrong (reductions of terms that do not vary
// along the vectorized loop) keep the scalar loops convert-linalg-to-loops
// makes.
//
//===----------------------------------------------------------------------===//

#include "hp/Support/RootBuffer.h"
#include "hp/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

#include <limits>

namespace hp {
#define GEN_PASS_DEF_VECTORIZELINALGONBUFFERS
#include "hp/Transforms/Passes.h.inc"
} // namespace hp

using namespace mlir;

namespace {

/// Lanes of one `registerBits`-wide register for `type`, or 0 for types
/// kept scalar (i1 and index have no fixed width in memory).
int64_t lanes(Type type, int64_t registerBits) {
  if (!type.isIntOrFloat() || type.isInteger(1))
    return 0;
  unsigned bits = type.getIntOrFloatBitWidth();
  return bits >= 8 && registerBits % bits == 0 ? registerBits / bits : 0;
}

/// The vector width of `op`'s innermost loop: one register of the widest
/// element type it touches (narrower operands fill part of one), or 0 to
/// keep it scalar.
int64_t vectorWidth(linalg::LinalgOp op, int64_t registerBits) {
  int64_t width = std::numeric_limits<int64_t>::max();
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type)
      continue;
    int64_t n = lanes(type.getElementType(), registerBits);
    if (n == 0)
      return 0;
    width = std::min(width, n);
  }
  return width == std::numeric_limits<int64_t>::max() ? 0 : width;
}

/// Whether upstream's vectorizer reduces `op` right. It reduces a combiner's
/// operand only when that operand has the tile's vector shape, which holds
/// when it reads an input that varies along the vectorized (innermost) loop.
/// A term that does not (a constant: `sum over j of 1`) is stored as if
/// elementwise, a whole vector into the one element (a wrong value and a
/// store out of bounds), and a `linalg.index` term loses the accumulator
/// (`sum over j of j` gives the last tile's start). Such ops keep scalar
/// loops. Upstream LLVM 22's linalg::vectorize; docs/Performance.md.
bool vectorizerReducesRight(linalg::LinalgOp op) {
  if (op.getNumReductionLoops() == 0)
    return true;
  Block *body = op.getBlock();
  if (!body->getOps<linalg::IndexOp>().empty())
    return false;
  unsigned inner = op.getNumLoops() - 1;
  if (!linalg::isReductionIterator(op.getIteratorTypesArray()[inner]))
    return true; // the reduction loops are tiled by 1
  llvm::SmallPtrSet<Value, 8> varying;
  for (OpOperand *input : op.getDpsInputOperands())
    if (op.getMatchingIndexingMap(input).isFunctionOfDim(inner))
      varying.insert(op.getMatchingBlockArgument(input));
  for (Operation &inside : body->without_terminator())
    if (llvm::any_of(inside.getOperands(),
                     [&](Value v) { return varying.contains(v); }))
      varying.insert(inside.result_begin(), inside.result_end());
  for (unsigned r = 0, e = op.getNumDpsInits(); r < e; ++r) {
    SmallVector<Operation *> combiners;
    if (!matchReduction(op.getRegionOutputArgs(), r, combiners) ||
        combiners.size() != 1)
      return false;
    // The combined term: the combiner's operand that is not the accumulator.
    Value acc = op.getRegionOutputArgs()[r];
    if (llvm::none_of(combiners.front()->getOperands(),
                      [&](Value v) { return v != acc && varying.contains(v); }))
      return false;
  }
  return true;
}

/// The identity of a reduction `kind` on `type`'s elements.
TypedAttr identity(vector::CombiningKind kind, Type type) {
  using K = vector::CombiningKind;
  if (auto f = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics &sem = f.getFloatSemantics();
    switch (kind) {
    case K::ADD:
      return FloatAttr::get(f, llvm::APFloat::getZero(sem, /*Negative=*/true));
    case K::MUL:
      return FloatAttr::get(f, llvm::APFloat::getOne(sem));
    case K::MINNUMF:
    case K::MINIMUMF:
      return FloatAttr::get(f, llvm::APFloat::getInf(sem));
    case K::MAXNUMF:
    case K::MAXIMUMF:
      return FloatAttr::get(f, llvm::APFloat::getInf(sem, /*Negative=*/true));
    default:
      return {};
    }
  }
  auto i = dyn_cast<IntegerType>(type);
  if (!i)
    return {};
  unsigned w = i.getWidth();
  switch (kind) {
  case K::ADD:
  case K::OR:
  case K::XOR:
  case K::MAXUI:
    return IntegerAttr::get(i, llvm::APInt::getZero(w));
  case K::MUL:
    return IntegerAttr::get(i, llvm::APInt(w, 1));
  case K::AND:
  case K::MINUI:
    return IntegerAttr::get(i, llvm::APInt::getAllOnes(w));
  case K::MINSI:
    return IntegerAttr::get(i, llvm::APInt::getSignedMaxValue(w));
  case K::MAXSI:
    return IntegerAttr::get(i, llvm::APInt::getSignedMinValue(w));
  default:
    return {};
  }
}

/// A masked vector.reduction as the reduction of the vector with its
/// masked-off lanes set to the identity. Upstream lowers a masked
/// maximumf reduction with -denorm_min for those lanes (not -inf), which
/// is wrong whenever every active lane is negative.
struct MaskedReductionToSelect : OpRewritePattern<vector::MaskOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::MaskOp mask,
                                PatternRewriter &b) const override {
    auto reduction =
        dyn_cast_or_null<vector::ReductionOp>(mask.getMaskableOp());
    if (!reduction || mask.hasPassthru())
      return failure();
    auto vectorType = reduction.getSourceVectorType();
    TypedAttr neutral =
        identity(reduction.getKind(), vectorType.getElementType());
    if (!neutral)
      return failure();
    Location loc = mask.getLoc();
    Value fill = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(vectorType, neutral));
    Value kept = arith::SelectOp::create(b, loc, mask.getMask(),
                                         reduction.getVector(), fill);
    Value result =
        reduction.getAcc()
            ? vector::ReductionOp::create(b, loc, reduction.getKind(), kept,
                                          reduction.getAcc())
            : vector::ReductionOp::create(b, loc, reduction.getKind(), kept);
    b.replaceOp(mask, result);
    return success();
  }
};

/// A tile loop that reduces each tile into one loop-invariant element:
///   %a = transfer_read %dst ... : vector<1xT>
///   %r = vector.reduction <kind>, %v, (extract %a[0])
///   transfer_write (insert %r [0]), %dst ...
/// carries a vector accumulator instead: the loop combines each tile into
/// it lane by lane and one reduction after the loop folds it into %dst, so
/// a row is reduced horizontally once, not once per tile, and the element
/// is read and written once.
LogicalResult accumulateInVector(RewriterBase &rewriter, scf::ForOp loop) {
  if (loop.getNumResults() != 0)
    return failure();
  vector::TransferWriteOp write;
  for (Operation &op : loop.getBody()->without_terminator()) {
    auto w = dyn_cast<vector::TransferWriteOp>(op);
    bool writes = !isMemoryEffectFree(&op) &&
                  !isa<vector::TransferReadOp>(op) &&
                  !isa<memref::SubViewOp>(op);
    if (!w && writes)
      return failure();
    if (w) {
      if (write)
        return failure();
      write = w;
    }
  }
  if (!write || write.getVectorType().getNumElements() != 1 ||
      write.getMask() || !loop.isDefinedOutsideOfLoop(write.getBase()) ||
      !llvm::all_of(write.getIndices(),
                    [&](Value i) { return loop.isDefinedOutsideOfLoop(i); }))
    return failure();
  auto insert = write.getVector().getDefiningOp<vector::InsertOp>();
  auto reduction =
      insert ? insert.getValueToStore().getDefiningOp<vector::ReductionOp>()
             : vector::ReductionOp();
  auto extract = reduction && reduction.getAcc()
                     ? reduction.getAcc().getDefiningOp<vector::ExtractOp>()
                     : vector::ExtractOp();
  auto read = extract
                  ? extract.getSource().getDefiningOp<vector::TransferReadOp>()
                  : vector::TransferReadOp();
  if (!read || read.getBase() != write.getBase() ||
      read.getIndices() != write.getIndices() || read.getMask() ||
      !insert->hasOneUse() || !reduction->hasOneUse() ||
      !extract->hasOneUse() || !read->hasOneUse())
    return failure();
  // Nothing else in the loop may read the element being accumulated.
  Value root = hp::rootBuffer(write.getBase());
  for (Operation &op : loop.getBody()->without_terminator())
    if (auto r = dyn_cast<vector::TransferReadOp>(op);
        r && r != read && hp::rootBuffer(r.getBase()) == root)
      return failure();
  vector::CombiningKind kind = reduction.getKind();
  Value tile = reduction.getVector();
  auto tileType = cast<VectorType>(tile.getType());
  TypedAttr neutral = identity(kind, tileType.getElementType());
  if (!neutral || tileType.getRank() != 1)
    return failure();

  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  Value init = arith::ConstantOp::create(
      rewriter, loc, DenseElementsAttr::get(tileType, neutral));
  FailureOr<LoopLikeOpInterface> grown = loop.replaceWithAdditionalYields(
      rewriter, init, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &b, Location l, ArrayRef<BlockArgument> acc) {
        return SmallVector<Value>{
            vector::makeArithReduction(b, l, kind, tile, acc.front())};
      });
  if (failed(grown))
    return failure();
  auto newLoop = cast<scf::ForOp>(grown->getOperation());
  // The element once, after the loop: read, fold the accumulator in, write.
  rewriter.setInsertionPointAfter(newLoop);
  Operation *newRead = rewriter.clone(*read);
  IRMapping map;
  map.map(read.getResult(), newRead->getResult(0));
  Operation *newExtract = rewriter.clone(*extract, map);
  Value folded = vector::ReductionOp::create(
      rewriter, loc, kind, newLoop.getResults().back(),
      newExtract->getResult(0), reduction.getFastmath());
  map.map(reduction.getResult(), folded);
  Operation *newInsert = rewriter.clone(*insert, map);
  map.map(insert.getResult(), newInsert->getResult(0));
  rewriter.clone(*write, map);
  for (Operation *op :
       {write.getOperation(), insert.getOperation(), reduction.getOperation(),
        extract.getOperation(), read.getOperation()})
    rewriter.eraseOp(op);
  return success();
}

struct VectorizeLinalgOnBuffersPass
    : hp::impl::VectorizeLinalgOnBuffersBase<VectorizeLinalgOnBuffersPass> {
  using Base::Base;

  void runOnOperation() override {
    if (registerBits < 8 || registerBits % 8 != 0 || registerBits > 8192) {
      getOperation()->emitError()
          << "register-bits must be a multiple of 8 from 8 to 8192, got "
          << static_cast<int64_t>(registerBits);
      return signalPassFailure();
    }
    SmallVector<linalg::LinalgOp> ops;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics() && op.getNumLoops() > 0)
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops)
      (void)tileAndVectorize(rewriter, op);

    // The vectorizer's vector.mask / multi_reduction / permuted transfers,
    // in the forms convert-vector-to-llvm takes.
    RewritePatternSet patterns(&getContext());
    patterns.add<MaskedReductionToSelect>(&getContext(), /*benefit=*/2);
    vector::populateVectorMaskLoweringPatternsForSideEffectingOps(patterns);
    vector::populateVectorMultiReductionLoweringPatterns(
        patterns, vector::VectorMultiReductionLowering::InnerReduction);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorShapeCastLoweringPatterns(patterns);
    // Tiles are 1 x ... x 1 x lanes: one-dimensional vectors.
    vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();

    // Reductions across tiles in a vector register; the element's view is
    // computed in the loop until loop-invariant code motion hoists it.
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops) {
      bool writesOneElement =
          llvm::any_of(loop.getBody()->getOps<vector::TransferWriteOp>(),
                       [](vector::TransferWriteOp w) {
                         return w.getVectorType().getNumElements() == 1;
                       });
      if (!writesOneElement)
        continue;
      moveLoopInvariantCode(cast<LoopLikeOpInterface>(loop.getOperation()));
      (void)accumulateInVector(rewriter, loop);
    }

    // Transcendentals on vectors as upstream's polynomial approximations
    // (a few ulp from libm in f32): LLVM would otherwise call the scalar
    // libm function once per lane. Scalar ones keep their exact lowering.
    // fpowi (x.pow(2) in torch's RMSNorm) as multiplications.
    SmallVector<Operation *> vectorMath;
    getOperation()->walk([&](Operation *op) {
      if (isa<math::MathDialect>(op->getDialect()) &&
          llvm::any_of(op->getResultTypes(), llvm::IsaPred<VectorType>))
        vectorMath.push_back(op);
    });
    RewritePatternSet approximations(&getContext());
    // A vectorized fpowi has a vector exponent, which llvm.intr.powi refuses.
    math::populateExpansionPatterns(approximations, {"fpowi"});
    populateMathF32ExpansionPatterns(approximations, approximated);
    populateMathPolynomialApproximationPatterns(approximations, approximated);
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    (void)applyOpPatternsGreedily(vectorMath, std::move(approximations),
                                  config);
  }

  static bool approximated(StringRef name) {
    name.consume_front("math.");
    return llvm::is_contained(
        {"exp", "expm1", "log", "log1p", "log2", "tanh", "erf"}, name);
  }

  /// Whether every operand reads or writes the innermost loop contiguously
  /// (as its last dim) or not at all (a broadcast). A transposed access
  /// would be a strided gather whose masked lowering reads past the end of
  /// the buffer; LLVM's own vectorizer handles those scalar loops.
  static bool innermostIsContiguous(linalg::LinalgOp op) {
    unsigned inner = op.getNumLoops() - 1;
    for (AffineMap map : op.getIndexingMapsArray()) {
      for (auto [i, expr] : llvm::enumerate(map.getResults())) {
        if (!expr.isFunctionOfDim(inner))
          continue;
        auto dim = dyn_cast<AffineDimExpr>(expr);
        if (!dim || i + 1 != map.getNumResults())
          return false;
      }
    }
    return true;
  }

  LogicalResult tileAndVectorize(RewriterBase &rewriter, linalg::LinalgOp op) {
    int64_t width = vectorWidth(op, registerBits);
    if (width == 0 || !innermostIsContiguous(op) || !vectorizerReducesRight(op))
      return failure();
    unsigned loops = op.getNumLoops();
    SmallVector<int64_t> vectorSizes(loops, 1);
    vectorSizes.back() = width;
    // Check before tiling: a refused op keeps its scalar loops untouched.
    if (failed(linalg::vectorizeOpPrecondition(op, {}, {})))
      return failure();

    SmallVector<OpFoldResult> tileSizes;
    for (int64_t s : vectorSizes)
      tileSizes.push_back(rewriter.getIndexAttr(s));
    scf::SCFTilingOptions options;
    options.setTileSizes(tileSizes);
    options.setLoopType(scf::SCFTilingOptions::LoopType::ForOp);
    rewriter.setInsertionPoint(op);
    FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
        rewriter, cast<TilingInterface>(op.getOperation()), options);
    if (failed(tiled))
      return failure();
    if (tiled->tiledOps.size() != 1) {
      // Keep the original op alone: on buffers a second copy would
      // accumulate twice.
      if (!tiled->loops.empty())
        rewriter.eraseOp(tiled->loops.front());
      return failure();
    }
    rewriter.eraseOp(op);
    // Fixed-width registers: no dim is scalable (the vectorizer reads one
    // flag per vector size).
    SmallVector<bool> scalable(loops, false);
    for (Operation *tile : peelLastTile(rewriter, *tiled)) {
      if (failed(linalg::vectorizeOpPrecondition(tile, vectorSizes, scalable)))
        continue; // the tile stays a linalg op: scalar loops later
      rewriter.setInsertionPoint(tile);
      FailureOr<linalg::VectorizationResult> vectorized =
          linalg::vectorize(rewriter, tile, vectorSizes, scalable);
      if (succeeded(vectorized))
        rewriter.eraseOp(tile);
    }
    return success();
  }

  /// Splits the innermost tile loop into full tiles and the partial last
  /// one (upstream's loop peeling), so that only the last tile runs under a
  /// mask; the full tiles' views get static sizes. Returns the tiles to
  /// vectorize.
  static SmallVector<Operation *> peelLastTile(RewriterBase &rewriter,
                                               scf::SCFTilingResult &tiled) {
    SmallVector<Operation *> tiles{tiled.tiledOps.front()};
    auto inner = tiled.loops.empty()
                     ? scf::ForOp()
                     : dyn_cast<scf::ForOp>(tiled.loops.back().getOperation());
    scf::ForOp partial;
    if (!inner ||
        failed(scf::peelForLoopAndSimplifyBounds(rewriter, inner, partial)))
      return tiles;
    MLIRContext *context = rewriter.getContext();
    RewritePatternSet patterns(context);
    memref::SubViewOp::getCanonicalizationPatterns(patterns, context);
    (void)applyPatternsGreedily(inner, std::move(patterns));
    tiles.clear();
    for (scf::ForOp loop : {inner, partial})
      loop.walk([&](linalg::LinalgOp tile) { tiles.push_back(tile); });
    return tiles;
  }
};

} // namespace
