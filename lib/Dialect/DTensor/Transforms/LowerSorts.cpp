//===- LowerSorts.cpp - dtensor.sort on local tensors as a merge sort -----===//

#include "hp/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace hp::dtensor {
#define GEN_PASS_DEF_DTENSORLOWERSORTS
#include "hp/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace hp::dtensor

using namespace mlir;
using namespace hp::dtensor;

/// Whether `x` comes strictly before `y` in torch's order: NaN after every
/// number ascending, before every number descending; false before true.
static Value comesBefore(OpBuilder &b, Location loc, Value x, Value y,
                         bool descending) {
  if (!isa<FloatType>(x.getType())) {
    // Integers are signed, as torch's; booleans (i1) sort false first.
    bool boolean = x.getType().isInteger(1);
    using P = arith::CmpIPredicate;
    P predicate =
        descending ? (boolean ? P::ugt : P::sgt) : (boolean ? P::ult : P::slt);
    return arith::CmpIOp::create(b, loc, predicate, x, y);
  }
  using P = arith::CmpFPredicate;
  // Ascending: x < y, or y is NaN and x is not; descending: x > y, or x is
  // NaN and y is not.
  Value ordered =
      arith::CmpFOp::create(b, loc, descending ? P::OGT : P::OLT, x, y);
  Value nan = descending ? x : y, number = descending ? y : x;
  Value nanFirst = arith::AndIOp::create(
      b, loc, arith::CmpFOp::create(b, loc, P::UNO, nan, nan),
      arith::CmpFOp::create(b, loc, P::ORD, number, number));
  return arith::OrIOp::create(b, loc, ordered, nanFirst);
}

/// An scf.while carrying `init` that runs `body` while the carried value
/// `counter` is below `bound` (unsigned).
static scf::WhileOp
whileBelow(OpBuilder &b, Location loc, ValueRange init, unsigned counter,
           Value bound,
           llvm::function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  return scf::WhileOp::create(
      b, loc, init.getTypes(), init,
      [&](OpBuilder &cb, Location cl, ValueRange args) {
        Value more = arith::CmpIOp::create(cb, cl, arith::CmpIPredicate::ult,
                                           args[counter], bound);
        scf::ConditionOp::create(cb, cl, more, args);
      },
      body);
}

/// Merges the runs [lo, mid) and [mid, hi) of one row of (from,
/// fromIndices) into [lo, hi) of (into, intoIndices), the left run first
/// among equals; `at` is a row position's index in the tensors. Returns the
/// pair written.
static std::pair<Value, Value>
mergeRuns(OpBuilder &b, Location loc, Value from, Value fromIndices, Value into,
          Value intoIndices, Value lo, Value mid, Value hi,
          llvm::function_ref<SmallVector<Value>(Value)> at, bool descending) {
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value lastLeft = arith::SubIOp::create(b, loc, mid, one);
  Value lastRight = arith::SubIOp::create(b, loc, hi, one);
  SmallVector<Value> start = {lo, mid, lo, into, intoIndices};
  auto merge = whileBelow(
      b, loc, start, /*counter=*/2, hi,
      [&](OpBuilder &mb, Location ml, ValueRange m) {
        Value i = m[0], j = m[1], k = m[2];
        // Clamped reads: a run that is used up is not read,
        // but its index stays in bounds.
        Value ii = arith::MinUIOp::create(mb, ml, i, lastLeft);
        Value jj = arith::MinUIOp::create(mb, ml, j, lastRight);
        Value vi = tensor::ExtractOp::create(mb, ml, from, at(ii));
        Value vj = tensor::ExtractOp::create(mb, ml, from, at(jj));
        Value leftHas =
            arith::CmpIOp::create(mb, ml, arith::CmpIPredicate::ult, i, mid);
        Value rightHas =
            arith::CmpIOp::create(mb, ml, arith::CmpIPredicate::ult, j, hi);
        Value rightFirst = comesBefore(mb, ml, vj, vi, descending);
        Value trueValue =
            arith::ConstantIntOp::create(mb, ml, mb.getI1Type(), 1);
        // The left run's element unless the right's comes
        // strictly first: equal elements keep their order.
        Value leftWins = arith::AndIOp::create(
            mb, ml, leftHas,
            arith::XOrIOp::create(mb, ml, rightFirst, trueValue));
        Value takeLeft = arith::OrIOp::create(
            mb, ml, arith::XOrIOp::create(mb, ml, rightHas, trueValue),
            leftWins);
        Value v = arith::SelectOp::create(mb, ml, takeLeft, vi, vj);
        Value xi = tensor::ExtractOp::create(mb, ml, fromIndices, at(ii));
        Value xj = tensor::ExtractOp::create(mb, ml, fromIndices, at(jj));
        Value vx = arith::SelectOp::create(mb, ml, takeLeft, xi, xj);
        Value t = tensor::InsertOp::create(mb, ml, v, m[3], at(k));
        Value ti = tensor::InsertOp::create(mb, ml, vx, m[4], at(k));
        Value nextI = arith::AddIOp::create(mb, ml, i, one);
        Value nextJ = arith::AddIOp::create(mb, ml, j, one);
        scf::YieldOp::create(
            mb, ml,
            ValueRange{arith::SelectOp::create(mb, ml, takeLeft, nextI, i),
                       arith::SelectOp::create(mb, ml, takeLeft, j, nextJ),
                       arith::AddIOp::create(mb, ml, k, one), t, ti});
      });
  return {merge.getResult(3), merge.getResult(4)};
}

/// `sort` as a bottom-up merge sort of every row: runs of width 1, 2, 4, ...
/// merged from one pair of tensors (values, indices) into the other and
/// back, the left run first among equals (stable). Returns the values and
/// indices.
static std::pair<Value, Value> lowerSort(OpBuilder &b, SortOp sort) {
  Location loc = sort.getLoc();
  Value x = sort.getInput();
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  int64_t dim = sort.getDimAttr().getInt();
  bool descending = sort.getDescending();
  Type i64 = b.getI64Type();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  Value n = getValueOrCreateConstantIndexOp(b, loc, sizes[dim]);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value two = arith::ConstantIndexOp::create(b, loc, 2);
  Value emptyValues =
      tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
  Value emptyIndices = tensor::EmptyOp::create(b, loc, sizes, i64);
  // Each element's own position along dim.
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  Value positions =
      linalg::GenericOp::create(
          b, loc, emptyIndices.getType(), ValueRange{},
          ValueRange{emptyIndices}, ArrayRef<AffineMap>{id},
          SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location l, ValueRange) {
            Value i = linalg::IndexOp::create(nb, l, dim);
            linalg::YieldOp::create(
                nb, l, arith::IndexCastOp::create(nb, l, i64, i).getResult());
          })
          .getResult(0);
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == dim)
      continue;
    lbs.push_back(zero);
    ubs.push_back(getValueOrCreateConstantIndexOp(b, loc, sizes[d]));
    steps.push_back(one);
  }
  // One pass: every row's runs of `width` in (from, fromIndices) merged in
  // pairs into (into, intoIndices), which it returns.
  auto mergePass = [&](OpBuilder &nb, Location l, Value width, Value from,
                       Value fromIndices, Value into,
                       Value intoIndices) -> std::pair<Value, Value> {
    Value pair = arith::MulIOp::create(nb, l, width, two);
    scf::LoopNest rows = scf::buildLoopNest(
        nb, l, lbs, ubs, steps, ValueRange{into, intoIndices},
        [&](OpBuilder &rb, Location rl, ValueRange ivs,
            ValueRange written) -> scf::ValueVector {
          auto at = [&](Value p) {
            SmallVector<Value> index(ivs);
            index.insert(index.begin() + dim, p);
            return index;
          };
          auto runs = scf::ForOp::create(
              rb, rl, zero, n, pair, written,
              [&](OpBuilder &fb, Location fl, Value lo, ValueRange out) {
                Value mid = arith::MinUIOp::create(
                    fb, fl, arith::AddIOp::create(fb, fl, lo, width), n);
                Value hi = arith::MinUIOp::create(
                    fb, fl, arith::AddIOp::create(fb, fl, lo, pair), n);
                auto [t, ti] = mergeRuns(fb, fl, from, fromIndices, out[0],
                                         out[1], lo, mid, hi, at, descending);
                scf::YieldOp::create(fb, fl, ValueRange{t, ti});
              });
          return {runs.getResult(0), runs.getResult(1)};
        });
    return {rows.results[0], rows.results[1]};
  };
  // Two passes per iteration, widths w and 2w: into the scratch tensors and
  // back, so that each pair of tensors is rewritten in place (yielded where
  // it came from: bufferization then copies nothing). The second pass only
  // copies where 2w already covers a row.
  SmallVector<Value> init = {one, x, positions, emptyValues, emptyIndices};
  auto passes = whileBelow(
      b, loc, init, /*counter=*/0, n,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value width = args[0];
        auto [scratch, scratchIndices] =
            mergePass(nb, l, width, args[1], args[2], args[3], args[4]);
        Value doubled = arith::MulIOp::create(nb, l, width, two);
        auto [sorted, sortedIndices] = mergePass(
            nb, l, doubled, scratch, scratchIndices, args[1], args[2]);
        scf::YieldOp::create(
            nb, l,
            ValueRange{arith::MulIOp::create(nb, l, doubled, two), sorted,
                       sortedIndices, scratch, scratchIndices});
      });
  return {passes.getResult(1), passes.getResult(2)};
}

namespace {

struct DTensorLowerSortsPass
    : hp::dtensor::impl::DTensorLowerSortsBase<DTensorLowerSortsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<SortOp> sorts;
    getOperation()->walk([&](SortOp s) { sorts.push_back(s); });
    for (SortOp sort : sorts) {
      if (gpu) {
        sort.emitOpError()
            << "has no GPU kernel yet: hp-lower-to-gpu refuses sorts (torch's "
               "sort and topk); hp-lower-to-cpu runs them";
        signalPassFailure();
        continue;
      }
      OpBuilder b(sort);
      auto [values, indices] = lowerSort(b, sort);
      sort.getValues().replaceAllUsesWith(values);
      sort.getIndices().replaceAllUsesWith(indices);
      sort.erase();
    }
  }
};

} // namespace
