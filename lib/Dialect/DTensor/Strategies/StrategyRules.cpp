//===- StrategyRules.cpp - building blocks of strategy models -------------===//

#include "hp/Dialect/DTensor/Strategies/StrategyRules.h"
#include "hp/Dialect/DTensor/Layout/Layout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Operation.h"

using namespace mlir;
using namespace hp::dtensor;
using namespace hp::dtensor::strategies;
using Placement = plan::Placement;

//===----------------------------------------------------------------------===//
// Linearity
//===----------------------------------------------------------------------===//

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
static bool isScaleConstant(Value v, bool atMostOne) {
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
Linearity strategies::linearityOf(Operation *op, ArrayRef<Linearity> in) {
  if (llvm::is_contained(in, Linearity::Bad))
    return Linearity::Bad;
  if (llvm::all_of(in, [](Linearity l) { return l == Linearity::Const; }))
    return Linearity::Const;
  // Some operand is linear from here on.
  if (isa<arith::AddFOp, arith::SubFOp, arith::AddIOp, arith::SubIOp>(op))
    return in[0] == in[1] ? Linearity::Linear : Linearity::Bad;
  if (isa<arith::MulIOp>(op))
    return in[0] != in[1] ? Linearity::Linear : Linearity::Bad;
  if (isa<arith::MulFOp>(op)) {
    if (in[0] == in[1])
      return Linearity::Bad;
    int factor = in[0] == Linearity::Const ? 0 : 1;
    return isScaleConstant(op->getOperand(factor), /*atMostOne=*/true)
               ? Linearity::Linear
               : Linearity::Bad;
  }
  if (isa<arith::DivFOp>(op))
    return in[0] == Linearity::Linear && in[1] == Linearity::Const &&
                   isScaleConstant(op->getOperand(1), /*atMostOne=*/false)
               ? Linearity::Linear
               : Linearity::Bad;
  if (isa<arith::NegFOp, arith::ExtFOp>(op))
    return Linearity::Linear;
  if (isa<arith::SelectOp>(op))
    return in[0] == Linearity::Const && in[1] == Linearity::Linear &&
                   in[2] == Linearity::Linear
               ? Linearity::Linear
               : Linearity::Bad;
  return Linearity::Bad;
}

/// Whether every value `body` yields is linear in the block arguments
/// flagged in `linear`, jointly, the others held constant.
bool strategies::isLinearIn(Block &body, ArrayRef<bool> linear) {
  llvm::DenseMap<Value, Linearity> lin;
  for (auto [arg, l] : llvm::zip(body.getArguments(), linear))
    lin[arg] = l ? Linearity::Linear : Linearity::Const;
  auto of = [&](Value v) {
    auto it = lin.find(v);
    return it == lin.end() ? Linearity::Const : it->second; // defined above
  };
  for (Operation &op : body) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      return llvm::all_of(op.getOperands(),
                          [&](Value v) { return of(v) == Linearity::Linear; });
    if (op.getNumRegions() != 0)
      return false;
    SmallVector<Linearity> in = llvm::map_to_vector(op.getOperands(), of);
    Linearity l = linearityOf(&op, in);
    for (Value r : op.getResults())
      lin[r] = l;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Per-axis options
//===----------------------------------------------------------------------===//

/// Where loop `l` sits in `map`: shard<k> if alone at position k, replicate
/// if absent, nullopt if in a compound expression or at two positions.
static std::optional<Placement> placementOfLoop(AffineMap map, int64_t l) {
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

SmallVector<AxisOption> strategies::axisOptions(const Structure &s) {
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

std::vector<Strategy> strategies::combineAxisOptions(
    ArrayRef<int64_t> meshShape, int64_t numOperands, int64_t numResults,
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
static int64_t largestPiece(int64_t size, ArrayRef<int64_t> meshShape,
                            ArrayRef<int64_t> axes) {
  for (int64_t m : axes)
    size = chunkLength(size, meshShape[m]);
  return size;
}

std::vector<Strategy> strategies::structuredStrategies(
    const Structure &s, ArrayRef<int64_t> meshShape,
    ArrayRef<AxisOption> options, int64_t numOperands) {
  return combineAxisOptions(meshShape, numOperands, s.resultMaps.size(),
                            options, [&](const Strategy &st) {
                              double points = s.flopsPerPoint;
                              for (auto [l, size] :
                                   llvm::enumerate(s.loopSizes)) {
                                SmallVector<int64_t> axes;
                                for (auto [m, loop] : llvm::enumerate(st.loops))
                                  if (loop == static_cast<int64_t>(l))
                                    axes.push_back(m);
                                points *= largestPiece(size, meshShape, axes);
                              }
                              return points;
                            });
}

std::vector<Strategy>
strategies::structuredStrategies(const Structure &s,
                                 ArrayRef<int64_t> meshShape) {
  return structuredStrategies(s, meshShape, axisOptions(s),
                              s.operandMaps.size());
}

Strategy strategies::replicatedStrategy(Operation *op, int64_t numOperands,
                                        ArrayRef<int64_t> meshShape) {
  Strategy replicated;
  propagation::Placements r(meshShape.size(), Placement::replicate());
  replicated.operands.assign(numOperands, r);
  replicated.results.assign(
      llvm::count_if(op->getResultTypes(),
                     [](Type t) { return isa<RankedTensorType>(t); }),
      r);
  replicated.loops.assign(meshShape.size(), Strategy::kNoLoop);
  for (Type t : op->getResultTypes())
    if (auto tensor = dyn_cast<RankedTensorType>(t);
        tensor && tensor.hasStaticShape())
      replicated.flops += tensor.getNumElements();
  return replicated;
}
