//===- Strategies.cpp - how an op of a global program may run -------------===//
//
// Per mesh axis an op does one thing: nothing (its values replicated on the
// axis), one loop sharded (shard<k> where an indexing map has the loop alone
// at position k; partial<combiner> results for a reduction loop), or partial
// sums passed through a body linear in some operands. A strategy picks one
// per axis. Facts about loops come from upstream's ShardingInterface where
// the op implements it, else from LinalgOp, which holds the same maps.
//
//===----------------------------------------------------------------------===//

#include "hp/Dialect/DTensor/Transforms/Strategies.h"
#include "hp/Dialect/DTensor/IR/DTensor.h"
#include "hp/Dialect/DTensor/Layout/Layout.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Shard/Interfaces/ShardingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace hp::dtensor;
using propagation::Strategy;
using Placement = plan::Placement;

SmallVector<Value> hp::dtensor::strategyOperands(Operation *op) {
  SmallVector<Value> values;
  for (Value v : op->getOperands())
    if (isa<RankedTensorType>(v.getType()))
      values.push_back(v);
  llvm::SetVector<Value> above;
  getUsedValuesDefinedAbove(op->getRegions(), above);
  for (Value v : above)
    if (isa<RankedTensorType>(v.getType()))
      values.push_back(v);
  return values;
}

bool hp::dtensor::holdsSizes(Operation *op) {
  return isa<tensor::ExpandShapeOp, tensor::ExtractSliceOp,
             tensor::InsertSliceOp>(op);
}

/// The linalg.index that `v` equals, through the casts and the wrap of
/// negative indices (`i < 0 ? i + n : i`, torch's index semantics) that
/// torch-mlir writes around it: an iteration index is never negative.
static linalg::IndexOp loopIndexOf(Value v) {
  while (true) {
    if (auto i = v.getDefiningOp<linalg::IndexOp>())
      return i;
    if (auto cast = v.getDefiningOp<arith::IndexCastOp>()) {
      v = cast.getIn();
      continue;
    }
    auto select = v.getDefiningOp<arith::SelectOp>();
    if (!select)
      return nullptr;
    auto cmp = select.getCondition().getDefiningOp<arith::CmpIOp>();
    if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::slt ||
        cmp.getLhs() != select.getFalseValue() ||
        !matchPattern(cmp.getRhs(), m_Zero()))
      return nullptr;
    v = select.getFalseValue();
    if (!loopIndexOf(v))
      return nullptr;
  }
}

std::optional<TableRead> hp::dtensor::tableReadOf(Operation *op, Value table) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  auto type = dyn_cast<RankedTensorType>(table.getType());
  if (!linalgOp || !type || op->getNumRegions() != 1 ||
      !op->getRegion(0).hasOneBlock())
    return std::nullopt;
  Block &body = op->getRegion(0).front();
  tensor::ExtractOp extract;
  for (Operation *user : table.getUsers()) {
    if (!op->isProperAncestor(user))
      continue;
    auto e = dyn_cast<tensor::ExtractOp>(user);
    if (!e || e->getBlock() != &body || extract)
      return std::nullopt;
    extract = e;
  }
  if (!extract)
    return std::nullopt;
  TableRead read{table, extract, /*yielded=*/false, {}};
  // Zeros may stand for the rows a rank lacks only where the value read is
  // yielded as is and the result's old value is not read.
  if (extract.getResult().hasOneUse()) {
    OpOperand &use = *extract.getResult().use_begin();
    int64_t r = use.getOperandNumber();
    read.yielded =
        isa<linalg::YieldOp>(use.getOwner()) && r < linalgOp.getNumDpsInits() &&
        !linalgOp.payloadUsesValueFromOperand(linalgOp.getDpsInitOperand(r));
  }
  SmallVector<int64_t> loopSizes = linalgOp.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = linalgOp.getIteratorTypesArray();
  for (auto [k, index] : llvm::enumerate(extract.getIndices())) {
    int64_t loop = -1;
    if (linalg::IndexOp i = loopIndexOf(index)) {
      int64_t d = i.getDim();
      if (iterators[d] == utils::IteratorType::parallel &&
          loopSizes[d] == type.getDimSize(k))
        loop = d;
    }
    read.loopOf.push_back(loop);
  }
  return read;
}

namespace {

//===----------------------------------------------------------------------===//
// Linearity
//===----------------------------------------------------------------------===//

/// How a value depends on the operands that carry partial sums.
enum class Lin { Const, Linear, Bad };

/// Whether `v` is a compile-time constant whose every element is a finite
/// number of magnitude at most 1 (`atMostOne`) or at least 1: the only float
/// factors (at most 1) and divisors (at least 1) partial sums pass through.
/// A piece times inf is NaN on a rank whose piece is 0 (or of the other
/// sign), and `a/0` is NaN where the pieces cancel, while the sum times inf
/// (or over 0) is the one device's inf; a larger factor can overflow a piece
/// where the sum does not (f16 pieces 40000 and -39999, times 2). A
/// replicated (non-constant) factor's values are unknown, so it is refused
/// too (torch DTensor's mul.Tensor accepts it, and gives NaN where the
/// factor holds inf).
bool isScaleConstant(Value v, bool atMostOne) {
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return false;
  auto ok = [&](const APFloat &f) {
    if (!f.isFinite())
      return false;
    APFloat one(f.getSemantics(), 1);
    APFloat::cmpResult c = abs(f).compare(one);
    return atMostOne ? c != APFloat::cmpGreaterThan : c != APFloat::cmpLessThan;
  };
  if (auto f = dyn_cast<FloatAttr>(attr))
    return ok(f.getValue());
  if (auto d = dyn_cast<DenseFPElementsAttr>(attr))
    return llvm::all_of(d.getValues<APFloat>(), ok);
  return false;
}

/// The linearity of `op`'s results from its operands'. Each rule holds in
/// IEEE arithmetic up to rounding and never takes a piece past the range the
/// pieces already have (docs/Propagation.md lists the conditions): sums and
/// differences of partials (torch's add.Tensor), products by a constant of
/// magnitude at most 1 and quotients by one of at least 1 (torch's
/// mul.Scalar, div.Scalar), negation, widening and a select on a condition
/// held constant (no arithmetic at all). Integer products wrap modulo 2^n,
/// so any factor is exact. Narrowing (truncf) is not linear: each piece may
/// overflow where their sum does not.
Lin linearityOf(Operation *op, ArrayRef<Lin> in) {
  if (llvm::is_contained(in, Lin::Bad))
    return Lin::Bad;
  if (llvm::all_of(in, [](Lin l) { return l == Lin::Const; }))
    return Lin::Const;
  // Some operand is linear from here on.
  if (isa<arith::AddFOp, arith::SubFOp, arith::AddIOp, arith::SubIOp>(op))
    return in[0] == in[1] ? Lin::Linear : Lin::Bad;
  if (isa<arith::MulIOp>(op))
    return in[0] != in[1] ? Lin::Linear : Lin::Bad;
  if (isa<arith::MulFOp>(op)) {
    if (in[0] == in[1])
      return Lin::Bad;
    int factor = in[0] == Lin::Const ? 0 : 1;
    return isScaleConstant(op->getOperand(factor), /*atMostOne=*/true)
               ? Lin::Linear
               : Lin::Bad;
  }
  if (isa<arith::DivFOp>(op))
    return in[0] == Lin::Linear && in[1] == Lin::Const &&
                   isScaleConstant(op->getOperand(1), /*atMostOne=*/false)
               ? Lin::Linear
               : Lin::Bad;
  if (isa<arith::NegFOp, arith::ExtFOp>(op))
    return Lin::Linear;
  if (isa<arith::SelectOp>(op))
    return in[0] == Lin::Const && in[1] == Lin::Linear && in[2] == Lin::Linear
               ? Lin::Linear
               : Lin::Bad;
  return Lin::Bad;
}

/// Whether every value `body` yields is linear in the block arguments
/// flagged in `linear`, jointly, the others held constant.
bool isLinearIn(Block &body, ArrayRef<bool> linear) {
  llvm::DenseMap<Value, Lin> lin;
  for (auto [arg, l] : llvm::zip(body.getArguments(), linear))
    lin[arg] = l ? Lin::Linear : Lin::Const;
  auto of = [&](Value v) {
    auto it = lin.find(v);
    return it == lin.end() ? Lin::Const : it->second; // defined above
  };
  for (Operation &op : body) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      return llvm::all_of(op.getOperands(),
                          [&](Value v) { return of(v) == Lin::Linear; });
    if (op.getNumRegions() != 0)
      return false;
    SmallVector<Lin> in = llvm::map_to_vector(op.getOperands(), of);
    Lin l = linearityOf(&op, in);
    for (Value r : op.getResults())
      lin[r] = l;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Structured ops
//===----------------------------------------------------------------------===//

/// The loops of an op and how its tensor operands and results index them.
struct Structure {
  SmallVector<int64_t> loopSizes;
  SmallVector<utils::IteratorType> iterators;
  /// Per strategy operand and per result.
  SmallVector<AffineMap> operandMaps, resultMaps;
  /// Per strategy operand: the result it initialises, or -1.
  SmallVector<int64_t> initOf;
  /// Per result: the partial its reduction loops leave, if known.
  SmallVector<std::optional<ReduceOp>> combiners;
  /// Operand sets (flags per strategy operand) the op is linear in.
  SmallVector<SmallVector<bool>> linearSets;
  double flopsPerPoint = 1;
};

/// hp's reduce op for a combiner, when upstream's kind agrees.
std::optional<ReduceOp> combinerOf(Operation *combiner,
                                   std::optional<shard::ReductionKind> kind) {
  std::optional<ReduceOp> mine;
  if (isa<arith::AddFOp, arith::AddIOp>(combiner))
    mine = ReduceOp::Sum;
  else if (isa<arith::MulFOp, arith::MulIOp>(combiner))
    mine = ReduceOp::Prod;
  else if (isa<arith::MaximumFOp, arith::MaxSIOp>(combiner))
    mine = ReduceOp::Max;
  else if (isa<arith::MinimumFOp, arith::MinSIOp>(combiner))
    mine = ReduceOp::Min;
  if (!mine || !kind)
    return mine;
  // Upstream's table maps some combiners loosely (andi to sum, unsigned
  // max to max); only what both say is used.
  static const std::pair<ReduceOp, shard::ReductionKind> agree[] = {
      {ReduceOp::Sum, shard::ReductionKind::Sum},
      {ReduceOp::Prod, shard::ReductionKind::Product},
      {ReduceOp::Max, shard::ReductionKind::Max},
      {ReduceOp::Min, shard::ReductionKind::Min}};
  for (auto [op, k] : agree)
    if (*mine == op)
      return *kind == k ? mine : std::nullopt;
  return std::nullopt;
}

std::optional<Structure> structureOf(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics())
    return std::nullopt;
  Structure s;
  SmallVector<AffineMap> maps;
  SmallVector<shard::ReductionKind> kinds;
  if (auto si = dyn_cast<shard::ShardingInterface>(op.getOperation())) {
    s.iterators = si.getLoopIteratorTypes();
    maps = si.getIndexingMaps(); // operands, then results
    // Upstream reads the first output's combiner without checking there is
    // one: a generic with no outputs (torch-mlir's index checks, bodies of
    // cf.assert only) would read past its block arguments.
    if (op.getNumDpsInits() > 0)
      kinds = si.getReductionLoopIteratorKinds();
  } else {
    s.iterators = op.getIteratorTypesArray();
    maps = op.getIndexingMapsArray();
    for (OpOperand &init : op.getDpsInitsMutable())
      maps.push_back(op.getMatchingIndexingMap(&init));
  }
  if (maps.size() != op->getNumOperands() + op->getNumResults())
    return std::nullopt;
  s.loopSizes = op.getStaticLoopRanges();
  if (llvm::any_of(s.loopSizes, ShapedType::isDynamic))
    return std::nullopt;
  Block *body = op.getBlock();
  SmallVector<bool> isTensor;
  for (OpOperand &operand : op->getOpOperands()) {
    bool tensor = isa<RankedTensorType>(operand.get().getType());
    isTensor.push_back(tensor);
    if (!tensor)
      continue;
    s.operandMaps.push_back(maps[operand.getOperandNumber()]);
    s.initOf.push_back(op.isDpsInit(&operand)
                           ? static_cast<int64_t>(
                                 op.getTiedOpResult(&operand).getResultNumber())
                           : int64_t(-1));
  }
  for (int64_t r = 0, e = op->getNumResults(); r < e; ++r)
    s.resultMaps.push_back(maps[op->getNumOperands() + r]);

  // Combiners of reduction results.
  bool hasReduction = llvm::any_of(s.iterators, [](utils::IteratorType t) {
    return t == utils::IteratorType::reduction;
  });
  // Upstream's one kind per loop describes a single result (it reads the
  // first combiner) and says `Generic` where it does not know; with several
  // results, or no kind, each result's own combiner decides.
  std::optional<shard::ReductionKind> kind;
  if (op->getNumResults() == 1 && !kinds.empty() && llvm::all_equal(kinds) &&
      kinds.front() != shard::ReductionKind::Generic)
    kind = kinds.front();
  for (int64_t r = 0, e = op->getNumResults(); r < e; ++r) {
    std::optional<ReduceOp> c;
    if (hasReduction) {
      SmallVector<Operation *> combinerOps;
      if (matchReduction(op.getRegionOutputArgs(), r, combinerOps) &&
          combinerOps.size() == 1)
        c = combinerOf(combinerOps.front(), kind);
    }
    s.combiners.push_back(c);
  }

  // Linear sets: subsets of the tensor inputs, with every init the body
  // reads (an init held constant would be counted once per rank).
  SmallVector<int64_t> inputs, readInits;
  int64_t t = 0;
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isTensor[operand.getOperandNumber()])
      continue;
    if (op.isDpsInit(&operand)) {
      if (op.payloadUsesValueFromOperand(&operand))
        readInits.push_back(t);
    } else {
      inputs.push_back(t);
    }
    ++t;
  }
  if (inputs.size() <= 4) {
    for (int64_t mask = 1; mask < (int64_t(1) << inputs.size()); ++mask) {
      SmallVector<bool> set(t, false), args(body->getNumArguments(), false);
      for (auto [k, i] : llvm::enumerate(inputs))
        set[i] = (mask >> k) & 1;
      for (int64_t i : readInits)
        set[i] = true;
      // Strategy operand i is block argument (operand number) of the i-th
      // tensor operand.
      int64_t ti = 0;
      for (OpOperand &operand : op->getOpOperands()) {
        if (!isTensor[operand.getOperandNumber()])
          continue;
        // linalg.map's body has no argument for its init.
        if (operand.getOperandNumber() < body->getNumArguments())
          args[operand.getOperandNumber()] = set[ti];
        ++ti;
      }
      if (isLinearIn(*body, args))
        s.linearSets.push_back(set);
    }
  }
  int64_t ops = 0;
  for (Operation &inner : body->without_terminator())
    if (!isa<linalg::IndexOp>(inner))
      ++ops;
  s.flopsPerPoint = std::max<int64_t>(ops, 1);
  return s;
}

/// An elementwise op on tensors of one shape: identity maps, all parallel.
std::optional<Structure> elementwiseStructure(Operation *op) {
  if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumResults() != 1 ||
      op->getNumRegions() != 0)
    return std::nullopt;
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  for (Value v : op->getOperands()) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || t.getShape() != type.getShape())
      return std::nullopt;
  }
  Structure s;
  s.loopSizes.assign(type.getShape().begin(), type.getShape().end());
  s.iterators.assign(type.getRank(), utils::IteratorType::parallel);
  AffineMap id =
      AffineMap::getMultiDimIdentityMap(type.getRank(), op->getContext());
  s.operandMaps.assign(op->getNumOperands(), id);
  s.initOf.assign(op->getNumOperands(), -1);
  s.resultMaps = {id};
  s.combiners = {std::nullopt};
  int64_t n = op->getNumOperands();
  for (int64_t mask = 1; mask < (int64_t(1) << n); ++mask) {
    SmallVector<Lin> in;
    SmallVector<bool> set;
    for (int64_t i = 0; i < n; ++i) {
      set.push_back((mask >> i) & 1);
      in.push_back(set.back() ? Lin::Linear : Lin::Const);
    }
    if (linearityOf(op, in) == Lin::Linear)
      s.linearSets.push_back(set);
  }
  return s;
}

/// What an op does on one mesh axis: the placement of each strategy
/// operand and result there.
struct AxisOption {
  int64_t loop = Strategy::kNoLoop;
  SmallVector<Placement> operands, results;
};

/// Where loop `l` sits in `map`: shard<k> if alone at position k, replicate
/// if absent, nullopt if in a compound expression or at two positions.
std::optional<Placement> placementOfLoop(AffineMap map, int64_t l) {
  std::optional<Placement> found = Placement::replicate();
  for (auto [k, e] : llvm::enumerate(map.getResults())) {
    if (auto d = dyn_cast<AffineDimExpr>(e); d && d.getPosition() == l) {
      if (found->kind != Placement::Replicate)
        return std::nullopt;
      found = Placement::shard(k);
    } else if (e.isFunctionOfDim(l)) {
      return std::nullopt;
    }
  }
  return found;
}

SmallVector<AxisOption> axisOptions(const Structure &s) {
  SmallVector<AxisOption> options;
  int64_t numOperands = s.operandMaps.size(), numResults = s.resultMaps.size();
  for (int64_t l = 0, e = s.loopSizes.size(); l < e; ++l) {
    if (s.loopSizes[l] < 2)
      continue;
    bool reduction = s.iterators[l] == utils::IteratorType::reduction;
    AxisOption o;
    o.loop = l;
    bool ok = true;
    for (int64_t r = 0; r < numResults && ok; ++r) {
      if (reduction) {
        ok = s.combiners[r].has_value() &&
             placementOfLoop(s.resultMaps[r], l) == Placement::replicate();
        if (ok)
          o.results.push_back(Placement::partial(*s.combiners[r]));
      } else {
        std::optional<Placement> p = placementOfLoop(s.resultMaps[r], l);
        // Every result must be split by a parallel loop, or each rank would
        // hold only its part of a value declared whole.
        ok = p && p->kind == Placement::Shard;
        if (ok)
          o.results.push_back(*p);
      }
    }
    for (int64_t i = 0; i < numOperands && ok; ++i) {
      if (reduction && s.initOf[i] >= 0) {
        o.operands.push_back(o.results[s.initOf[i]]);
        continue;
      }
      std::optional<Placement> p = placementOfLoop(s.operandMaps[i], l);
      ok = p.has_value();
      if (ok)
        o.operands.push_back(*p);
    }
    if (ok)
      options.push_back(std::move(o));
  }
  Placement sum = Placement::partial(ReduceOp::Sum);
  for (const SmallVector<bool> &set : s.linearSets) {
    AxisOption o;
    for (int64_t i = 0; i < numOperands; ++i)
      o.operands.push_back(set[i] || s.initOf[i] >= 0 ? sum
                                                      : Placement::replicate());
    o.results.assign(numResults, sum);
    options.push_back(std::move(o));
  }
  return options;
}

/// One op's per-axis options combined over the mesh; the all-replicate
/// strategy comes first.
std::vector<Strategy>
combine(ArrayRef<int64_t> meshShape, int64_t numOperands, int64_t numResults,
        ArrayRef<AxisOption> options,
        llvm::function_ref<double(const Strategy &)> flops) {
  AxisOption none;
  none.operands.assign(numOperands, Placement::replicate());
  none.results.assign(numResults, Placement::replicate());
  std::vector<Strategy> strategies(1);
  strategies[0].operands.assign(numOperands, {});
  strategies[0].results.assign(numResults, {});
  for (int64_t size : meshShape) {
    SmallVector<const AxisOption *> here = {&none};
    if (size > 1)
      for (const AxisOption &o : options)
        here.push_back(&o);
    std::vector<Strategy> next;
    for (const Strategy &s : strategies)
      for (const AxisOption *o : here) {
        Strategy t = s;
        for (int64_t i = 0; i < numOperands; ++i)
          t.operands[i].push_back(o->operands[i]);
        for (int64_t r = 0; r < numResults; ++r)
          t.results[r].push_back(o->results[r]);
        t.loops.push_back(o->loop);
        next.push_back(std::move(t));
      }
    strategies = std::move(next);
  }
  for (Strategy &s : strategies)
    s.flops = flops(s);
  return strategies;
}

/// The largest piece of `size` split over `axes` (outermost first), by the
/// layout model's chunking.
int64_t largestPiece(int64_t size, ArrayRef<int64_t> meshShape,
                     ArrayRef<int64_t> axes) {
  for (int64_t m : axes)
    size = chunkLength(size, meshShape[m]);
  return size;
}

std::vector<Strategy> structuredStrategies(const Structure &s,
                                           ArrayRef<int64_t> meshShape,
                                           ArrayRef<AxisOption> options,
                                           int64_t numOperands) {
  return combine(meshShape, numOperands, s.resultMaps.size(), options,
                 [&](const Strategy &st) {
                   double points = s.flopsPerPoint;
                   for (auto [l, size] : llvm::enumerate(s.loopSizes)) {
                     SmallVector<int64_t> axes;
                     for (auto [m, loop] : llvm::enumerate(st.loops))
                       if (loop == static_cast<int64_t>(l))
                         axes.push_back(m);
                     points *= largestPiece(size, meshShape, axes);
                   }
                   return points;
                 });
}

std::vector<Strategy> structuredStrategies(const Structure &s,
                                           ArrayRef<int64_t> meshShape) {
  return structuredStrategies(s, meshShape, axisOptions(s),
                              s.operandMaps.size());
}

/// The options of a linalg op whose body reads `tables` from above (after
/// its own operands in a strategy): its own options with every table
/// replicated; with a table split alike along a dim its loop's index reads;
/// and, with nothing else split, a table split along a dim read at a
/// computed index, which leaves the result a partial sum.
SmallVector<AxisOption> tableOptions(const Structure &s,
                                     ArrayRef<TableRead> tables) {
  int64_t own = s.operandMaps.size();
  SmallVector<AxisOption> options;
  for (AxisOption o : axisOptions(s)) {
    o.operands.resize(own + tables.size(), Placement::replicate());
    options.push_back(o);
    for (auto [t, read] : llvm::enumerate(tables))
      for (auto [k, loop] : llvm::enumerate(read.loopOf))
        if (loop >= 0 && loop == o.loop) {
          AxisOption split = o;
          split.operands[own + t] = Placement::shard(k);
          options.push_back(std::move(split));
        }
  }
  if (s.resultMaps.size() == 1)
    for (auto [t, read] : llvm::enumerate(tables))
      for (auto [k, loop] : llvm::enumerate(read.loopOf))
        if (loop < 0 && read.yielded) {
          AxisOption rows;
          rows.operands.assign(own + tables.size(), Placement::replicate());
          rows.operands[own + t] = Placement::shard(k);
          rows.results = {Placement::partial(ReduceOp::Sum)};
          options.push_back(std::move(rows));
        }
  return options;
}

/// Whether `s` splits some table dim both ways (by a loop on one axis, by
/// rows on another): the local index and the rows each rank holds would
/// disagree.
bool mixesTableSplits(const Strategy &s, int64_t own,
                      ArrayRef<TableRead> tables) {
  for (auto [t, read] : llvm::enumerate(tables)) {
    SmallVector<int> ways(read.loopOf.size(), 0);
    for (auto [m, p] : llvm::enumerate(s.operands[own + t]))
      if (p.kind == Placement::Shard)
        ways[p.dim] |= s.loops[m] == Strategy::kNoLoop ? 1 : 2;
    if (llvm::is_contained(ways, 3))
      return true;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

/// A dim a shape op may keep split: the dim of each operand that carries it
/// into result dim `resultDim`, and the size that must split evenly for the
/// pieces to line up (0: any split).
struct SplitDim {
  SmallVector<int64_t> operandDims;
  int64_t resultDim;
  int64_t evenSize = 0;
};

/// What a shape op lets through: the dims it does not cut, and partial sums
/// (the op moves data, so it is linear) where it fills nothing in.
struct ShapeRule {
  SmallVector<SplitDim> dims;
  bool partialSums = false;
};

std::optional<ShapeRule> shapeRuleOf(Operation *op) {
  ShapeRule rule;
  auto uncut = [](ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes,
                  ArrayRef<int64_t> strides, int64_t d, int64_t full) {
    return offsets[d] == 0 && sizes[d] == full && strides[d] == 1;
  };
  // A group's split is carried by its first dim that is not 1 (unit dims
  // in front of it add nothing: [64] into [1, 64]). Where the dims after
  // the carrier are all 1 too, the group only adds or drops unit dims and
  // its pieces line up however it is split (uneven, empty).
  auto carrierOf = [](RankedTensorType expanded, ReassociationIndicesRef g) {
    const int64_t *d = llvm::find_if(
        g, [&](int64_t d) { return expanded.getDimSize(d) != 1; });
    return d == g.end() ? g.front() : *d;
  };
  auto evenSizeOf = [](RankedTensorType expanded, ReassociationIndicesRef g,
                       int64_t carrier) {
    bool unitInner = llvm::all_of(g, [&](int64_t d) {
      return d <= carrier || expanded.getDimSize(d) == 1;
    });
    return unitInner ? 0 : expanded.getDimSize(carrier);
  };
  if (auto e = dyn_cast<tensor::ExpandShapeOp>(op)) {
    for (auto [i, group] : llvm::enumerate(e.getReassociationIndices())) {
      int64_t carrier = carrierOf(e.getResultType(), group);
      rule.dims.push_back({{static_cast<int64_t>(i)},
                           carrier,
                           evenSizeOf(e.getResultType(), group, carrier)});
    }
    rule.partialSums = true;
    return rule;
  }
  if (auto c = dyn_cast<tensor::CollapseShapeOp>(op)) {
    for (auto [j, group] : llvm::enumerate(c.getReassociationIndices())) {
      int64_t carrier = carrierOf(c.getSrcType(), group);
      rule.dims.push_back({{carrier},
                           static_cast<int64_t>(j),
                           evenSizeOf(c.getSrcType(), group, carrier)});
    }
    rule.partialSums = true;
    return rule;
  }
  // Slices with dynamic offsets, sizes or strides read index values of the
  // body; they run replicated rather than be rebuilt around them.
  if (auto s = dyn_cast<tensor::ExtractSliceOp>(op)) {
    RankedTensorType src = s.getSourceType();
    if (s.getResultType().getRank() != src.getRank() ||
        !s.getOffsets().empty() || !s.getSizes().empty() ||
        !s.getStrides().empty())
      return std::nullopt;
    for (int64_t d = 0; d < src.getRank(); ++d)
      if (uncut(s.getStaticOffsets(), s.getStaticSizes(), s.getStaticStrides(),
                d, src.getDimSize(d)))
        rule.dims.push_back({{d}, d});
    rule.partialSums = true;
    return rule;
  }
  if (auto s = dyn_cast<tensor::InsertSliceOp>(op)) {
    RankedTensorType src = s.getSourceType(), dst = s.getDestType();
    if (src.getRank() != dst.getRank() || !s.getOffsets().empty() ||
        !s.getSizes().empty() || !s.getStrides().empty())
      return std::nullopt;
    for (int64_t d = 0; d < dst.getRank(); ++d)
      if (src.getDimSize(d) == dst.getDimSize(d) &&
          uncut(s.getStaticOffsets(), s.getStaticSizes(), s.getStaticStrides(),
                d, dst.getDimSize(d)))
        rule.dims.push_back({{d, d}, d});
    rule.partialSums = true;
    return rule;
  }
  if (auto pad = dyn_cast<tensor::PadOp>(op)) {
    // A padding value that reads its index along a split dim would see the
    // local index there.
    Block &body = pad.getRegion().front();
    for (int64_t d = 0, e = pad.getSourceType().getRank(); d < e; ++d)
      if (pad.getStaticLow()[d] == 0 && pad.getStaticHigh()[d] == 0 &&
          body.getArgument(d).use_empty())
        rule.dims.push_back({{d}, d});
    return rule; // the padding value is not a partial sum
  }
  if (auto concat = dyn_cast<tensor::ConcatOp>(op)) {
    int64_t n = concat.getInputs().size();
    for (int64_t d = 0, e = concat.getResultType().getRank(); d < e; ++d)
      if (d != static_cast<int64_t>(concat.getDim()))
        rule.dims.push_back({SmallVector<int64_t>(n, d), d});
    rule.partialSums = true;
    return rule;
  }
  return std::nullopt;
}

/// A shape op's strategies; `loops` holds the result dim split per axis.
std::vector<Strategy> shapeStrategies(const ShapeRule &rule,
                                      ArrayRef<int64_t> meshShape,
                                      int64_t numOperands) {
  SmallVector<AxisOption> options;
  for (const SplitDim &split : rule.dims) {
    AxisOption o;
    o.loop = split.resultDim;
    for (int64_t d : split.operandDims)
      o.operands.push_back(Placement::shard(d));
    o.results.push_back(Placement::shard(split.resultDim));
    options.push_back(std::move(o));
  }
  if (rule.partialSums) {
    AxisOption o;
    Placement sum = Placement::partial(ReduceOp::Sum);
    o.operands.assign(numOperands, sum);
    o.results.assign(1, sum);
    options.push_back(std::move(o));
  }
  std::vector<Strategy> all = combine(meshShape, numOperands, 1, options,
                                      [](const Strategy &) { return 0.0; });
  // Reshapes split a group's outer dim only where the pieces line up.
  std::vector<Strategy> kept;
  for (Strategy &s : all) {
    bool even = true;
    for (const SplitDim &split : rule.dims) {
      if (split.evenSize == 0)
        continue;
      int64_t parts = 1;
      for (auto [m, dim] : llvm::enumerate(s.loops))
        if (dim == split.resultDim)
          parts *= meshShape[m];
      even &= split.evenSize % parts == 0;
    }
    if (even)
      kept.push_back(std::move(s));
  }
  return kept;
}

/// Whether every tensor the op reads or writes is ranked and static.
bool allStatic(Operation *op) {
  auto isStatic = [](Type t) {
    if (isa<UnrankedTensorType>(t))
      return false;
    auto r = dyn_cast<RankedTensorType>(t);
    return !r || r.hasStaticShape();
  };
  return llvm::all_of(op->getOperandTypes(), isStatic) &&
         llvm::all_of(op->getResultTypes(), isStatic);
}

} // namespace

std::vector<Strategy> hp::dtensor::deriveStrategies(Operation *op,
                                                    ArrayRef<int64_t> meshShape,
                                                    bool &fallback,
                                                    std::string &why) {
  fallback = false;
  SmallVector<Value> operands = strategyOperands(op);
  int64_t numOperands = operands.size();
  int64_t numResults = llvm::count_if(
      op->getResultTypes(), [](Type t) { return isa<RankedTensorType>(t); });
  bool capturesTensors =
      numOperands !=
      static_cast<int64_t>(llvm::count_if(op->getOperandTypes(), [](Type t) {
        return isa<RankedTensorType>(t);
      }));
  if (!allStatic(op)) {
    why = "a dynamic shape";
  } else if (capturesTensors) {
    // A linalg op whose body reads whole tensors from above (a lookup or a
    // mask built by index arithmetic): its loops split as usual with those
    // tensors replicated, since lowerOp shifts each linalg.index to the
    // global index the body computes its reads from.
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    std::optional<Structure> s;
    if (linalgOp && numResults == static_cast<int64_t>(op->getNumResults()))
      s = structureOf(linalgOp);
    if (s) {
      int64_t own = s->operandMaps.size();
      SmallVector<TableRead> tables;
      for (Value v : ArrayRef(operands).drop_front(own)) {
        std::optional<TableRead> read = tableReadOf(op, v);
        if (!read) {
          // Read some other way: replicated.
          read = TableRead{v, nullptr, false, {}};
        }
        tables.push_back(std::move(*read));
      }
      std::vector<Strategy> strategies = structuredStrategies(
          *s, meshShape, tableOptions(*s, tables), numOperands);
      llvm::erase_if(strategies, [&](const Strategy &st) {
        return mixesTableSplits(st, own, tables);
      });
      return strategies;
    }
    why = "a region that reads tensors from above";
  } else if (numResults == static_cast<int64_t>(op->getNumResults())) {
    std::optional<Structure> s;
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
      s = structureOf(linalgOp);
    else
      s = elementwiseStructure(op);
    if (s)
      return structuredStrategies(*s, meshShape);
    if (numResults == 1)
      if (std::optional<ShapeRule> rule = shapeRuleOf(op))
        return shapeStrategies(*rule, meshShape, numOperands);
    why = "no sharding rule for this op";
  } else {
    why = "results that are not tensors";
  }
  fallback = true;
  Strategy replicated;
  propagation::Placements r(meshShape.size(), Placement::replicate());
  replicated.operands.assign(numOperands, r);
  replicated.results.assign(numResults, r);
  replicated.loops.assign(meshShape.size(), Strategy::kNoLoop);
  for (Type t : op->getResultTypes())
    if (auto tensor = dyn_cast<RankedTensorType>(t);
        tensor && tensor.hasStaticShape())
      replicated.flops += tensor.getNumElements();
  return {replicated};
}
