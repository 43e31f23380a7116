//===- LowerRedistribute.cpp - redistribute -> shard collectives ----------===//
//
// Each dtensor.redistribute is planned (RedistributePlanner) and emitted on
// this rank's local tensor: to_local, one shard collective or local tensor
// op per step, from_local. Uneven (torch.chunk) splits are handled by packing
// every piece into a slot of the largest chunk before a collective and
// unpacking afterwards, so collectives always see equal, static pieces.
//
//===----------------------------------------------------------------------===//

#include "hp/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/Support/raw_ostream.h"

namespace hp::dtensor {
#define GEN_PASS_DEF_DTENSORLOWERREDISTRIBUTE
#include "hp/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace hp::dtensor

using namespace mlir;
using namespace hp::dtensor;

static_assert(static_cast<int64_t>(ReduceOp::Sum) == 0 &&
                  static_cast<int64_t>(ReduceOp::Avg) == 1 &&
                  static_cast<int64_t>(ReduceOp::Max) == 2 &&
                  static_cast<int64_t>(ReduceOp::Min) == 3 &&
                  static_cast<int64_t>(ReduceOp::Prod) == 4,
              "the planner names reduce ops by these values");

static plan::Placement toPlanPlacement(Attribute attr) {
  if (auto shard = dyn_cast<ShardAttr>(attr))
    return plan::Placement::shard(shard.getDim());
  if (auto partial = dyn_cast<PartialAttr>(attr))
    return plan::Placement::partial(
        static_cast<int64_t>(partial.getReduceOp()));
  return plan::Placement::replicate();
}

static shard::ReductionKind toReductionKind(int64_t op) {
  return toShardReduction(static_cast<ReduceOp>(op));
}

namespace {

/// Emits one plan on one rank's local tensor. Sizes are OpFoldResults: static
/// where every rank agrees, index values computed from this rank's mesh
/// coordinate otherwise.
class PlanEmitter {
public:
  PlanEmitter(OpBuilder &b, Location loc, FlatSymbolRefAttr grid,
              ArrayRef<int64_t> meshShape, DTensorType type, Value local)
      : b(b), loc(loc), grid(grid), meshShape(meshShape), value(local) {
    SmallVector<plan::Placement> placements =
        llvm::map_to_vector(type.getPlacements(), toPlanPlacement);
    state = plan::State::fromPlacements(placements, type.getRank());
    for (auto [d, g] : llvm::enumerate(type.getShape())) {
      levels.push_back({b.getIndexAttr(g)});
      maxLevels.push_back({g});
      for (int64_t m : state.order[d])
        pushSplit(d, m);
    }
  }

  void emit(const plan::Step &step);
  Value getValue() const { return value; }

private:
  // Index arithmetic that folds constants.
  OpFoldResult cst(int64_t v) { return b.getIndexAttr(v); }
  Value val(OpFoldResult v) {
    return getValueOrCreateConstantIndexOp(b, loc, v);
  }
  OpFoldResult mul(OpFoldResult a, OpFoldResult c) {
    auto x = getConstantIntValue(a), y = getConstantIntValue(c);
    if (x && y)
      return cst(*x * *y);
    return arith::MulIOp::create(b, loc, val(a), val(c)).getResult();
  }
  OpFoldResult add(OpFoldResult a, OpFoldResult c) {
    auto x = getConstantIntValue(a), y = getConstantIntValue(c);
    if (x && y)
      return cst(*x + *y);
    return arith::AddIOp::create(b, loc, val(a), val(c)).getResult();
  }
  OpFoldResult sub(OpFoldResult a, OpFoldResult c) {
    auto x = getConstantIntValue(a), y = getConstantIntValue(c);
    if (x && y)
      return cst(*x - *y);
    return arith::SubIOp::create(b, loc, val(a), val(c)).getResult();
  }
  OpFoldResult min(OpFoldResult a, OpFoldResult c) {
    auto x = getConstantIntValue(a), y = getConstantIntValue(c);
    if (x && y)
      return cst(std::min(*x, *y));
    return arith::MinSIOp::create(b, loc, val(a), val(c)).getResult();
  }
  OpFoldResult max(OpFoldResult a, OpFoldResult c) {
    auto x = getConstantIntValue(a), y = getConstantIntValue(c);
    if (x && y)
      return cst(std::max(*x, *y));
    return arith::MaxSIOp::create(b, loc, val(a), val(c)).getResult();
  }
  OpFoldResult ceilDiv(OpFoldResult a, int64_t n) {
    if (auto x = getConstantIntValue(a))
      return cst((*x + n - 1) / n);
    return arith::CeilDivSIOp::create(b, loc, val(a), val(cst(n))).getResult();
  }

  /// This rank's coordinate on mesh axis `m`.
  OpFoldResult coord(int64_t m) {
    if (meshShape[m] == 1)
      return cst(0);
    if (coords.empty()) {
      OpBuilder::InsertionGuard guard(b);
      SmallVector<Type> types(meshShape.size(), b.getIndexType());
      auto op = shard::ProcessMultiIndexOp::create(b, loc, types, grid,
                                                   b.getDenseI16ArrayAttr({}));
      coords.assign(op.getResults().begin(), op.getResults().end());
    }
    return coords[m];
  }

  /// torch.chunk piece `i` of `size` in `n` parts: (offset, length).
  std::pair<OpFoldResult, OpFoldResult> chunk(OpFoldResult size, int64_t n,
                                              OpFoldResult i) {
    if (n == 1)
      return {cst(0), size};
    // Even splits are static whatever the coordinate.
    if (auto s = getConstantIntValue(size); s && *s % n == 0)
      return {mul(i, cst(*s / n)), cst(*s / n)};
    OpFoldResult c = ceilDiv(size, n);
    OpFoldResult start = mul(i, c);
    return {min(start, size), max(cst(0), min(c, sub(size, start)))};
  }

  void pushSplit(int64_t d, int64_t m) {
    levels[d].push_back(chunk(levels[d].back(), meshShape[m], coord(m)).second);
    int64_t n = meshShape[m];
    maxLevels[d].push_back((maxLevels[d].back() + n - 1) / n);
  }

  int64_t groupSize(ArrayRef<int64_t> axes) {
    int64_t n = 1;
    for (int64_t m : axes)
      n *= meshShape[m];
    return n;
  }
  int64_t paddedPiece(int64_t size, ArrayRef<int64_t> axes) {
    for (int64_t m : axes)
      size = (size + meshShape[m] - 1) / meshShape[m];
    return size;
  }

  /// Offsets and lengths of every piece when `size` is split over `axes` in
  /// nested order; piece j is the row-major group index over `axes`.
  SmallVector<std::pair<OpFoldResult, OpFoldResult>>
  groupPieces(OpFoldResult size, ArrayRef<int64_t> axes) {
    SmallVector<std::pair<OpFoldResult, OpFoldResult>> pieces;
    SmallVector<int64_t> sizes = llvm::map_to_vector(
        axes, [&](int64_t m) { return meshShape[m]; });
    for (int64_t j = 0, e = groupSize(axes); j < e; ++j) {
      OpFoldResult off = cst(0), len = size;
      int64_t rest = j, stride = e;
      for (int64_t n : sizes) {
        stride /= n;
        auto [o, l] = chunk(len, n, cst(rest / stride));
        rest %= stride;
        off = add(off, o);
        len = l;
      }
      pieces.push_back({off, len});
    }
    return pieces;
  }

  RankedTensorType typeWithDim(Value x, int64_t d, int64_t size) {
    auto t = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> shape(t.getShape());
    shape[d] = size;
    return RankedTensorType::get(shape, t.getElementType());
  }

  Value slice(Value x, int64_t d, OpFoldResult off, OpFoldResult len) {
    int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
    SmallVector<OpFoldResult> offsets(rank, cst(0)), strides(rank, cst(1));
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
    offsets[d] = off;
    sizes[d] = len;
    return tensor::ExtractSliceOp::create(b, loc, x, offsets, sizes, strides);
  }

  Value insert(Value piece, Value dest, int64_t d, OpFoldResult off) {
    int64_t rank = cast<RankedTensorType>(dest.getType()).getRank();
    SmallVector<OpFoldResult> offsets(rank, cst(0)), strides(rank, cst(1));
    offsets[d] = off;
    return tensor::InsertSliceOp::create(b, loc, piece, dest, offsets,
                                         tensor::getMixedSizes(b, loc, piece),
                                         strides);
  }

  /// A tensor shaped like `x` with dim `d` of `size`, filled with `fill`
  /// (uninitialised when `fill` is null).
  Value buffer(Value x, int64_t d, OpFoldResult size, TypedAttr fill) {
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
    sizes[d] = size;
    Type elementType = cast<RankedTensorType>(x.getType()).getElementType();
    Value empty = tensor::EmptyOp::create(b, loc, sizes, elementType);
    if (!fill)
      return empty;
    Value scalar = arith::ConstantOp::create(b, loc, fill);
    return linalg::FillOp::create(b, loc, ValueRange{scalar}, ValueRange{empty})
        .getResult(0);
  }

  Value filledLike(Value x, TypedAttr fill) {
    Type elementType = cast<RankedTensorType>(x.getType()).getElementType();
    Value empty = tensor::EmptyOp::create(
        b, loc, tensor::getMixedSizes(b, loc, x), elementType);
    Value scalar = arith::ConstantOp::create(b, loc, fill);
    return linalg::FillOp::create(b, loc, ValueRange{scalar}, ValueRange{empty})
        .getResult(0);
  }

  TypedAttr zeroOf(Value x) {
    return cast<TypedAttr>(
        b.getZeroAttr(cast<RankedTensorType>(x.getType()).getElementType()));
  }
  TypedAttr oneOf(Value x) {
    Type t = cast<RankedTensorType>(x.getType()).getElementType();
    if (auto f = dyn_cast<FloatType>(t))
      return b.getFloatAttr(f, 1.0);
    return b.getIntegerAttr(t, 1);
  }

  /// Grows dim `d` of `x` to `size` with trailing zeros.
  Value padTo(Value x, int64_t d, int64_t size) {
    if (cast<RankedTensorType>(x.getType()).getDimSize(d) == size)
      return x;
    return insert(x, buffer(x, d, cst(size), zeroOf(x)), d, cst(0));
  }

  /// The inverse of padTo: the first `len` of a dim padded to `padded`.
  Value trimTo(Value x, int64_t d, OpFoldResult len, int64_t padded) {
    if (getConstantIntValue(len) == padded)
      return x;
    return slice(x, d, cst(0), len);
  }

  static bool allStatic(ArrayRef<std::pair<OpFoldResult, OpFoldResult>> ps) {
    return llvm::all_of(ps, [](auto &p) {
      return getConstantIntValue(p.first) && getConstantIntValue(p.second);
    });
  }
  /// Pieces laid out at j*P already: packing is a pad, unpacking a slice.
  static bool isPrefixLayout(ArrayRef<std::pair<OpFoldResult, OpFoldResult>> ps,
                             int64_t piece) {
    if (!allStatic(ps))
      return false;
    for (auto [j, p] : llvm::enumerate(ps))
      if (*getConstantIntValue(p.second) > 0 &&
          *getConstantIntValue(p.first) != static_cast<int64_t>(j) * piece)
        return false;
    return true;
  }
  static bool isEven(ArrayRef<std::pair<OpFoldResult, OpFoldResult>> ps,
                     int64_t piece) {
    return allStatic(ps) && llvm::all_of(ps, [&](auto &p) {
             return *getConstantIntValue(p.second) == piece;
           });
  }

  /// Lays the pieces of dim `d` out in slots of `piece` elements.
  Value pack(Value x, int64_t d,
             ArrayRef<std::pair<OpFoldResult, OpFoldResult>> pieces,
             int64_t piece) {
    int64_t total = piece * pieces.size();
    if (isEven(pieces, piece))
      return castDim(x, d, total);
    if (isPrefixLayout(pieces, piece))
      return padTo(x, d, total);
    Value out = buffer(x, d, cst(total), zeroOf(x));
    for (auto [j, p] : llvm::enumerate(pieces))
      out = insert(slice(x, d, p.first, p.second), out, d,
                   cst(static_cast<int64_t>(j) * piece));
    return out;
  }

  /// Inverse of pack: slots of `piece` elements back to a dim of `size`.
  Value unpack(Value y, int64_t d,
               ArrayRef<std::pair<OpFoldResult, OpFoldResult>> pieces,
               int64_t piece, OpFoldResult size) {
    if (isEven(pieces, piece))
      return y;
    if (isPrefixLayout(pieces, piece))
      return slice(y, d, cst(0), size);
    Value out = buffer(y, d, size, /*fill=*/nullptr);
    for (auto [j, p] : llvm::enumerate(pieces))
      out = insert(slice(y, d, cst(static_cast<int64_t>(j) * piece), p.second),
                   out, d, p.first);
    return out;
  }

  /// Makes dim `d` static `size` (it already is, at run time).
  Value castDim(Value x, int64_t d, int64_t size) {
    auto t = cast<RankedTensorType>(x.getType());
    if (t.getDimSize(d) == size)
      return x;
    return tensor::CastOp::create(b, loc, typeWithDim(x, d, size), x);
  }

  DenseI16ArrayAttr axesAttr(ArrayRef<int64_t> axes) {
    SmallVector<int16_t> a = llvm::map_to_vector(
        axes, [](int64_t m) { return static_cast<int16_t>(m); });
    return b.getDenseI16ArrayAttr(a);
  }

  OpBuilder &b;
  Location loc;
  FlatSymbolRefAttr grid;
  ArrayRef<int64_t> meshShape;
  Value value;
  plan::State state;
  SmallVector<Value> coords;
  /// Per tensor dim, this rank's size after 0, 1, ... splits (its order).
  SmallVector<SmallVector<OpFoldResult>> levels;
  /// Per tensor dim, the largest size over all ranks after each split.
  SmallVector<SmallVector<int64_t>> maxLevels;
};

void PlanEmitter::emit(const plan::Step &step) {
  ArrayRef<int64_t> axes = step.axes;
  int64_t n = groupSize(axes);
  switch (step.kind) {
  case plan::Step::AllGather: {
    int64_t d = step.dim;
    size_t parent = levels[d].size() - 1 - axes.size();
    OpFoldResult size = levels[d][parent];
    int64_t piece = paddedPiece(maxLevels[d][parent], axes);
    if (n > 1) {
      auto pieces = groupPieces(size, axes);
      Value x = padTo(value, d, piece);
      Value gathered = shard::AllGatherOp::create(
          b, loc, typeWithDim(x, d, piece * n), grid, axesAttr(axes), x,
          b.getIndexAttr(d));
      value = unpack(gathered, d, pieces, piece, size);
    }
    levels[d].resize(parent + 1);
    maxLevels[d].resize(parent + 1);
    break;
  }
  case plan::Step::AllReduce:
    if (n > 1)
      value = shard::AllReduceOp::create(
          b, loc, value.getType(), grid, axesAttr(axes), value,
          shard::ReductionKindAttr::get(b.getContext(),
                                        toReductionKind(step.reduceOp)));
    break;
  case plan::Step::ReduceScatter: {
    int64_t d = step.dim;
    OpFoldResult size = levels[d].back();
    int64_t piece = paddedPiece(maxLevels[d].back(), axes);
    for (int64_t m : axes)
      pushSplit(d, m);
    if (n > 1) {
      auto pieces = groupPieces(size, axes);
      Value packed = pack(value, d, pieces, piece);
      Value scattered = shard::ReduceScatterOp::create(
          b, loc, typeWithDim(packed, d, piece), grid, axesAttr(axes), packed,
          shard::ReductionKindAttr::get(b.getContext(),
                                        toReductionKind(step.reduceOp)),
          b.getIndexAttr(d));
      value = trimTo(scattered, d, levels[d].back(), piece);
    }
    break;
  }
  case plan::Step::AllToAll: {
    int64_t d = step.dim, d2 = step.dstDim;
    size_t parent = levels[d].size() - 1 - axes.size();
    OpFoldResult size1 = levels[d][parent];
    int64_t piece1 = paddedPiece(maxLevels[d][parent], axes);
    OpFoldResult size2 = levels[d2].back();
    int64_t piece2 = paddedPiece(maxLevels[d2].back(), axes);
    levels[d].resize(parent + 1);
    maxLevels[d].resize(parent + 1);
    for (int64_t m : axes)
      pushSplit(d2, m);
    if (n > 1) {
      auto pieces1 = groupPieces(size1, axes);
      auto pieces2 = groupPieces(size2, axes);
      Value x = padTo(value, d, piece1);
      x = pack(x, d2, pieces2, piece2);
      // Split along d2 into n slots, concatenate the received slots along d.
      SmallVector<int64_t> shape(cast<RankedTensorType>(x.getType()).getShape());
      shape[d] = piece1 * n;
      shape[d2] = piece2;
      auto resultType = RankedTensorType::get(
          shape, cast<RankedTensorType>(x.getType()).getElementType());
      Value moved = shard::AllToAllOp::create(
          b, loc, resultType, grid, axesAttr(axes), x, b.getIndexAttr(d2),
          b.getIndexAttr(d));
      Value y = unpack(moved, d, pieces1, piece1, size1);
      value = trimTo(y, d2, levels[d2].back(), piece2);
    }
    break;
  }
  case plan::Step::Chunk: {
    int64_t d = step.dim, m = axes.front();
    OpFoldResult size = levels[d].back();
    auto [off, len] = chunk(size, meshShape[m], coord(m));
    auto staticSize = getConstantIntValue(size);
    pushSplit(d, m);
    if (meshShape[m] == 1)
      break;
    if (staticSize && *staticSize % meshShape[m] == 0)
      value = shard::AllSliceOp::create(
          b, loc, typeWithDim(value, d, *staticSize / meshShape[m]), grid,
          axesAttr(axes), value, b.getIndexAttr(d));
    else
      value = slice(value, d, off, len);
    break;
  }
  case plan::Step::MakePartial: {
    int64_t m = axes.front();
    auto op = static_cast<ReduceOp>(step.reduceOp);
    if (meshShape[m] == 1 || (op != ReduceOp::Sum && op != ReduceOp::Prod))
      break; // avg, max and min of copies are the value itself.
    // Coordinate 0 keeps the value; the others hold the reduction's identity,
    // which is exact for every dtype (torch divides by n instead).
    TypedAttr identity = op == ReduceOp::Sum ? zeroOf(value) : oneOf(value);
    Value other = filledLike(value, identity);
    Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          val(coord(m)), val(cst(0)));
    value = arith::SelectOp::create(b, loc, isFirst, value, other);
    break;
  }
  }
}

struct LowerRedistributePattern : OpRewritePattern<RedistributeOp> {
  LowerRedistributePattern(MLIRContext *ctx, const plan::Options &options,
                           bool printPlans)
      : OpRewritePattern(ctx), options(options), printPlans(printPlans) {}

  LogicalResult matchAndRewrite(RedistributeOp op,
                                PatternRewriter &rewriter) const override {
    DTensorType from = op.getInput().getType(), to = op.getType();
    MeshInfo mesh = lookupGrid(op, from.getMesh());
    if (!mesh || !isa<shard::GridOp>(mesh.op))
      return rewriter.notifyMatchFailure(op, "mesh is not a shard.grid yet");
    if (llvm::any_of(from.getShape(), ShapedType::isDynamic))
      return rewriter.notifyMatchFailure(op, "dynamic global shape");

    plan::Problem problem;
    problem.globalShape.assign(from.getShape().begin(), from.getShape().end());
    problem.meshShape.assign(mesh.shape.begin(), mesh.shape.end());
    problem.elementBytes =
        std::max<int64_t>(1, from.getElementType().getIntOrFloatBitWidth() / 8);
    problem.source = llvm::map_to_vector(from.getPlacements(), toPlanPlacement);
    problem.target = llvm::map_to_vector(to.getPlacements(), toPlanPlacement);
    std::optional<plan::Plan> plan = plan::planRedistribute(problem, options);
    if (!plan) // Only P(a) -> P(b), which the verifier rejects.
      return rewriter.notifyMatchFailure(op, "no plan");
    if (printPlans)
      op.emitRemark() << "plan " << plan::placementsToString(problem.source)
                      << " -> " << plan::placementsToString(problem.target)
                      << ": " << plan->str();

    Location loc = op.getLoc();
    RankedTensorType fromLocal = getLocalType(from, mesh);
    RankedTensorType toLocal = getLocalType(to, mesh);
    Value local = ToLocalOp::create(rewriter, loc, fromLocal, op.getInput());
    PlanEmitter emitter(rewriter, loc, from.getMesh(), mesh.shape, from, local);
    for (const plan::Step &step : plan->steps)
      emitter.emit(step);
    Value result = emitter.getValue();
    if (result.getType() != toLocal)
      result = tensor::CastOp::create(rewriter, loc, toLocal, result);
    rewriter.replaceOpWithNewOp<FromLocalOp>(op, to, result);
    return success();
  }

  /// Symbol lookup scans the module, so each mesh is looked up once: large
  /// modules would otherwise lower in quadratic time.
  MeshInfo lookupGrid(Operation *op, FlatSymbolRefAttr name) const {
    Operation *table = SymbolTable::getNearestSymbolTable(op);
    auto key = std::make_pair(table, name.getAttr());
    auto it = meshCache.find(key);
    if (it != meshCache.end())
      return it->second;
    MeshInfo mesh = getMeshInfo(
        SymbolTable::lookupNearestSymbolFrom(op, name.getAttr()));
    // Only grids are final: a dtensor.mesh is converted before lowering.
    if (mesh && isa<shard::GridOp>(mesh.op))
      meshCache[key] = mesh;
    return mesh;
  }

  plan::Options options;
  bool printPlans;
  mutable llvm::DenseMap<std::pair<Operation *, StringAttr>, MeshInfo>
      meshCache;
};

struct DTensorLowerRedistributePass
    : hp::dtensor::impl::DTensorLowerRedistributeBase<
          DTensorLowerRedistributePass> {
  using Base::Base;
  void runOnOperation() override {
    convertMeshesToGrids(getOperation());
    plan::Options options;
    options.latencyBytes = static_cast<double>(latencyBytes);
    options.axisWeights.assign(axisWeights.begin(), axisWeights.end());
    for (double w : options.axisWeights)
      if (!(w > 0)) {
        getOperation().emitError("axis-weights must be positive, got ") << w;
        return signalPassFailure();
      }
    WalkResult unsupported = getOperation().walk([](RedistributeOp op) {
      if (llvm::none_of(op.getType().getShape(), ShapedType::isDynamic))
        return WalkResult::advance();
      op.emitOpError("cannot lower a redistribute of a dynamic global shape: "
                     "the planner and the padding need static sizes");
      return WalkResult::interrupt();
    });
    if (unsupported.wasInterrupted())
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    populateLowerRedistributePatterns(patterns, options, printPlans);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace

void hp::dtensor::convertMeshesToGrids(ModuleOp module) {
  for (MeshOp mesh : llvm::make_early_inc_range(module.getOps<MeshOp>())) {
    OpBuilder b(mesh);
    auto grid = shard::GridOp::create(b, mesh.getLoc(), mesh.getSymName(),
                                      mesh.getShape());
    if (auto names = mesh.getNamesAttr())
      grid->setAttr("dtensor.axis_names", names);
    if (auto devices = mesh.getDevicesAttr())
      grid->setAttr("dtensor.devices", devices);
    mesh.erase();
  }
}

void hp::dtensor::populateLowerRedistributePatterns(
    RewritePatternSet &patterns, const plan::Options &options,
    bool printPlans) {
  patterns.add<LowerRedistributePattern>(patterns.getContext(), options,
                                         printPlans);
}
