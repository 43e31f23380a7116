//===- LowerSorts.cpp - dtensor.sort on local tensors as a radix sort -----===//

#include "hp/Dialect/DTensor/Transforms/Passes.h"

#include "RowLoops.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace hp::dtensor {
#define GEN_PASS_DEF_DTENSORLOWERSORTS
#include "hp/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace hp::dtensor

using namespace mlir;
using namespace hp::dtensor;

/// Bits of the key that one pass sorts by: 256 buckets.
static constexpr int64_t kDigitBits = 8;

/// `x`'s key: an i64 whose unsigned order is torch's order of the values,
/// equal for values torch finds equal. Integers are signed (the sign bit
/// flipped); booleans (i1) are 0 and 1. A float's bits in sign-magnitude
/// become unsigned order (a negative's bits inverted, a positive's sign bit
/// set), both zeros are +0.0's key and every NaN the largest key, so NaNs
/// come after every number. Descending inverts the key: NaNs first.
static Value sortKey(OpBuilder &b, Location loc, Value x, bool descending) {
  Type type = x.getType();
  unsigned width = type.getIntOrFloatBitWidth();
  auto keyType = b.getIntegerType(width);
  auto constant = [&](const APInt &v) {
    return arith::ConstantOp::create(b, loc, IntegerAttr::get(keyType, v))
        .getResult();
  };
  Value allOnes = constant(APInt::getAllOnes(width));
  Value key;
  if (auto floatType = dyn_cast<FloatType>(type)) {
    using P = arith::CmpFPredicate;
    Value bits = arith::BitcastOp::create(b, loc, keyType, x);
    Value signBit = constant(APInt::getSignMask(width));
    Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                           bits, constant(APInt(width, 0)));
    Value ordered = arith::SelectOp::create(
        b, loc, negative, arith::XOrIOp::create(b, loc, bits, allOnes),
        arith::XOrIOp::create(b, loc, bits, signBit));
    Value zero =
        arith::ConstantOp::create(b, loc, FloatAttr::get(floatType, 0));
    Value isZero = arith::CmpFOp::create(b, loc, P::OEQ, x, zero);
    Value isNaN = arith::CmpFOp::create(b, loc, P::UNO, x, x);
    key = arith::SelectOp::create(
        b, loc, isNaN, allOnes,
        arith::SelectOp::create(b, loc, isZero, signBit, ordered));
  } else if (width == 1) {
    key = x;
  } else {
    key = arith::XOrIOp::create(b, loc, x, constant(APInt::getSignMask(width)));
  }
  if (descending)
    key = arith::XOrIOp::create(b, loc, key, allOnes);
  if (width < 64)
    key = arith::ExtUIOp::create(b, loc, b.getI64Type(), key);
  return key;
}

/// `sort` as a least-significant-digit radix sort of every row: one read
/// of the row counts every digit of its keys (a histogram per 8 bits of the
/// key: the counts do not change from pass to pass), then one stable
/// counting-sort pass per digit, lowest first, places each element at its
/// digit's next position (the counts' exclusive prefix). Stable passes make
/// a stable sort. The first pass reads the input (each element's position
/// is its own), the last writes the results (positions in i64); the passes
/// before the last write two scratch pairs (values, positions) in turn,
/// each rewritten in place, so no pass copies or widens a row on its own.
/// Returns the values and indices.
static std::pair<Value, Value> lowerSort(OpBuilder &b, SortOp sort) {
  Location loc = sort.getLoc();
  Value x = sort.getInput();
  auto type = cast<RankedTensorType>(x.getType());
  Type element = type.getElementType();
  int64_t dim = sort.getDimAttr().getInt();
  bool descending = sort.getDescending();
  Type i64 = b.getI64Type();
  Type indexType = b.getIndexType();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  Value n = getValueOrCreateConstantIndexOp(b, loc, sizes[dim]);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value buckets = arith::ConstantIndexOp::create(b, loc, 1 << kDigitBits);
  int64_t passes =
      llvm::divideCeil(element.getIntOrFloatBitWidth(), kDigitBits);
  // Positions between passes are carried in 32 bits where a row's length
  // fits them (a smaller working set, which the passes' scattered writes
  // feel).
  int64_t staticN = type.getDimSize(dim);
  Type positionType = !ShapedType::isDynamic(staticN) &&
                              staticN <= std::numeric_limits<int32_t>::max()
                          ? b.getI32Type()
                          : i64;
  // The results, then a scratch pair for each pass but the last, at most
  // two (pass k + 2 rewrites what pass k wrote).
  SmallVector<Value> destinations = {
      tensor::EmptyOp::create(b, loc, sizes, element),
      tensor::EmptyOp::create(b, loc, sizes, i64)};
  for (int64_t k = 0; k < std::min<int64_t>(passes - 1, 2); ++k) {
    destinations.push_back(tensor::EmptyOp::create(b, loc, sizes, element));
    destinations.push_back(
        tensor::EmptyOp::create(b, loc, sizes, positionType));
  }
  RowLoops rowLoops(b, loc, sizes, dim);
  scf::LoopNest rows = scf::buildLoopNest(
      b, loc, rowLoops.lbs, rowLoops.ubs, rowLoops.steps, destinations,
      [&](OpBuilder &rb, Location rl, ValueRange ivs,
          ValueRange rowArgs) -> scf::ValueVector {
        auto at = [&](Value p) { return RowLoops::at(ivs, dim, p); };
        // The digit of `key` that pass `pass` sorts by, as an index.
        auto digitOf = [&](OpBuilder &db, Location dl, Value key,
                           int64_t pass) {
          Value shifted = arith::ShRUIOp::create(
              db, dl, key,
              arith::ConstantIntOp::create(db, dl, i64, pass * kDigitBits));
          Value digit = arith::AndIOp::create(
              db, dl, shifted,
              arith::ConstantIntOp::create(db, dl, i64, (1 << kDigitBits) - 1));
          return arith::IndexCastOp::create(db, dl, indexType, digit)
              .getResult();
        };
        // counts[pass][digit]: how many keys of the row have that digit.
        Value empty = tensor::EmptyOp::create(
            rb, rl, ArrayRef<int64_t>{passes, 1 << kDigitBits}, indexType);
        Value zeros = linalg::FillOp::create(rb, rl, zero, empty).getResult(0);
        auto counted = scf::ForOp::create(
            rb, rl, zero, n, one, ValueRange{zeros},
            [&](OpBuilder &fb, Location fl, Value p, ValueRange c) {
              Value key =
                  sortKey(fb, fl, tensor::ExtractOp::create(fb, fl, x, at(p)),
                          descending);
              Value counts = c[0];
              for (int64_t pass = 0; pass < passes; ++pass) {
                SmallVector<Value> place = {
                    arith::ConstantIndexOp::create(fb, fl, pass),
                    digitOf(fb, fl, key, pass)};
                Value count = tensor::ExtractOp::create(fb, fl, counts, place);
                counts = tensor::InsertOp::create(
                    fb, fl, arith::AddIOp::create(fb, fl, count, one), counts,
                    place);
              }
              scf::YieldOp::create(fb, fl, counts);
            });
        Value counts = counted.getResult(0);
        SmallVector<Value> written(rowArgs);
        Value fromValues = x, fromIndices;
        for (int64_t pass = 0; pass < passes; ++pass) {
          bool last = pass == passes - 1;
          size_t slot = last ? 0 : 2 + 2 * (pass % 2);
          Type toIndexType = last ? i64 : positionType;
          Value row = arith::ConstantIndexOp::create(rb, rl, pass);
          // Each digit's first position: the counts of the digits below
          // (the pass's counts become its next positions).
          auto starts = scf::ForOp::create(
              rb, rl, zero, buckets, one, ValueRange{counts, zero},
              [&](OpBuilder &fb, Location fl, Value d, ValueRange c) {
                Value count =
                    tensor::ExtractOp::create(fb, fl, c[0], ValueRange{row, d});
                Value start = tensor::InsertOp::create(fb, fl, c[1], c[0],
                                                       ValueRange{row, d});
                scf::YieldOp::create(
                    fb, fl,
                    ValueRange{start,
                               arith::AddIOp::create(fb, fl, c[1], count)});
              });
          auto placed = scf::ForOp::create(
              rb, rl, zero, n, one,
              ValueRange{starts.getResult(0), written[slot], written[slot + 1]},
              [&](OpBuilder &fb, Location fl, Value p, ValueRange c) {
                Value v = tensor::ExtractOp::create(fb, fl, fromValues, at(p));
                SmallVector<Value> place = {
                    row, digitOf(fb, fl, sortKey(fb, fl, v, descending), pass)};
                Value to = tensor::ExtractOp::create(fb, fl, c[0], place);
                Value index =
                    fromIndices
                        ? tensor::ExtractOp::create(fb, fl, fromIndices, at(p))
                              .getResult()
                        : arith::IndexCastOp::create(fb, fl, toIndexType, p)
                              .getResult();
                if (index.getType() != toIndexType)
                  index = arith::ExtSIOp::create(fb, fl, toIndexType, index);
                Value t = tensor::InsertOp::create(fb, fl, v, c[1], at(to));
                Value ti =
                    tensor::InsertOp::create(fb, fl, index, c[2], at(to));
                Value next = tensor::InsertOp::create(
                    fb, fl, arith::AddIOp::create(fb, fl, to, one), c[0],
                    place);
                scf::YieldOp::create(fb, fl, ValueRange{next, t, ti});
              });
          counts = placed.getResult(0);
          written[slot] = placed.getResult(1);
          written[slot + 1] = placed.getResult(2);
          fromValues = written[slot];
          fromIndices = written[slot + 1];
        }
        return written;
      });
  return {rows.results[0], rows.results[1]};
}

/// The most elements a top-k keeps by selection: each element that enters
/// moves up to k kept ones, so a row already in order costs n k steps.
static constexpr int64_t kMaxSelected = 64;

/// torch's topk as hp.torch writes it: `sort`'s values and indices read
/// only by slices of their first k along its dim, every other dim whole
/// (and by their sizes: a `tensor.dim`).
/// Returns k when every slice takes the same k, at most kMaxSelected and
/// fewer than the row's length; else none (a full sort).
static std::optional<int64_t> selectedCount(SortOp sort) {
  auto type = cast<RankedTensorType>(sort.getInput().getType());
  int64_t dim = sort.getDimAttr().getInt();
  // A dynamic dim is whole where its size is the sort's own (a tensor.dim
  // of its input or results).
  auto isWholeDim = [&](OpFoldResult size, int64_t d) {
    auto value = dyn_cast_if_present<Value>(size);
    auto dimOp = value ? value.getDefiningOp<tensor::DimOp>() : nullptr;
    return dimOp && dimOp.getConstantIndex() == d &&
           (dimOp.getSource() == sort.getInput() ||
            dimOp.getSource().getDefiningOp() == sort.getOperation());
  };
  std::optional<int64_t> k;
  for (Operation *user : sort->getUsers()) {
    // A size of the sort's results is the input's (--check-bounds asks for
    // them).
    if (auto dimOp = dyn_cast<tensor::DimOp>(user)) {
      if (!dimOp.getConstantIndex())
        return std::nullopt;
      continue;
    }
    auto slice = dyn_cast<tensor::ExtractSliceOp>(user);
    if (!slice || !slice.hasUnitStride() || !slice.hasZeroOffset() ||
        slice.getSourceType().getRank() != slice.getResultType().getRank())
      return std::nullopt;
    for (auto [d, size] : llvm::enumerate(slice.getMixedSizes())) {
      std::optional<int64_t> constant = getConstantIntValue(size);
      if (static_cast<int64_t>(d) == dim) {
        if (!constant || (k && *k != *constant))
          return std::nullopt;
        k = *constant;
      } else if (type.isDynamicDim(d) ? !isWholeDim(size, d)
                                      : constant != type.getDimSize(d)) {
        return std::nullopt;
      }
    }
  }
  int64_t n = type.getDimSize(dim);
  if (!k || *k < 1 || *k > kMaxSelected ||
      (!ShapedType::isDynamic(n) && *k >= n))
    return std::nullopt;
  return k;
}

/// The first `k` of `sort` by selection: one pass over each row, keeping the
/// k elements that come first so far in order (an element that comes
/// strictly before the last kept one enters at its place, after the kept
/// ones it does not come before, so ties keep their order, as in the stable
/// sort). Linear in the row for a k the row does not come in order of.
/// Returns the values and indices, of the input's shape with k along dim.
static std::pair<Value, Value> lowerTopK(OpBuilder &b, SortOp sort, int64_t k) {
  Location loc = sort.getLoc();
  Value x = sort.getInput();
  auto type = cast<RankedTensorType>(x.getType());
  int64_t dim = sort.getDimAttr().getInt();
  bool descending = sort.getDescending();
  Type i64 = b.getI64Type();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  Value n = getValueOrCreateConstantIndexOp(b, loc, sizes[dim]);
  SmallVector<OpFoldResult> keptSizes(sizes);
  keptSizes[dim] = b.getIndexAttr(k);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value count = arith::ConstantIndexOp::create(b, loc, k);
  Value lastKept = arith::ConstantIndexOp::create(b, loc, k - 1);
  Value emptyValues =
      tensor::EmptyOp::create(b, loc, keptSizes, type.getElementType());
  Value emptyIndices = tensor::EmptyOp::create(b, loc, keptSizes, i64);
  RowLoops rowLoops(b, loc, sizes, dim);
  auto before = [&](OpBuilder &cb, Location cl, Value keyX, Value y) {
    return arith::CmpIOp::create(cb, cl, arith::CmpIPredicate::ult, keyX,
                                 sortKey(cb, cl, y, descending));
  };
  scf::LoopNest rows = scf::buildLoopNest(
      b, loc, rowLoops.lbs, rowLoops.ubs, rowLoops.steps,
      ValueRange{emptyValues, emptyIndices},
      [&](OpBuilder &rb, Location rl, ValueRange ivs,
          ValueRange kept) -> scf::ValueVector {
        auto at = [&](Value p) { return RowLoops::at(ivs, dim, p); };
        auto scan = scf::ForOp::create(
            rb, rl, zero, n, one, ValueRange{kept[0], kept[1], zero},
            [&](OpBuilder &fb, Location fl, Value p, ValueRange c) {
              Value v = tensor::ExtractOp::create(fb, fl, x, at(p));
              Value key = sortKey(fb, fl, v, descending);
              Value filled = c[2];
              Value notFull = arith::CmpIOp::create(
                  fb, fl, arith::CmpIPredicate::ult, filled, count);
              // The last kept element is read only once k are kept.
              auto enters = scf::IfOp::create(
                  fb, fl, notFull,
                  [&](OpBuilder &tb, Location tl) {
                    scf::YieldOp::create(tb, tl, notFull);
                  },
                  [&](OpBuilder &eb, Location el) {
                    Value last =
                        tensor::ExtractOp::create(eb, el, c[0], at(lastKept));
                    scf::YieldOp::create(eb, el,
                                         before(eb, el, key, last).getResult());
                  });
              auto entered = scf::IfOp::create(
                  fb, fl, enters.getResult(0),
                  [&](OpBuilder &tb, Location tl) {
                    // Kept elements that v comes before move up one place,
                    // from the end (the last one drops out when k are kept).
                    Value start =
                        arith::MinUIOp::create(tb, tl, filled, lastKept);
                    auto shift = scf::WhileOp::create(
                        tb, tl,
                        TypeRange{start.getType(), c[0].getType(),
                                  c[1].getType()},
                        ValueRange{start, c[0], c[1]},
                        [&](OpBuilder &wb, Location wl, ValueRange w) {
                          Value j = w[0];
                          Value some = arith::CmpIOp::create(
                              wb, wl, arith::CmpIPredicate::ugt, j, zero);
                          // At j = 0 nothing is compared (nor read: the
                          // first place may not be written yet).
                          auto moves = scf::IfOp::create(
                              wb, wl, some,
                              [&](OpBuilder &ib, Location il) {
                                Value previous =
                                    arith::SubIOp::create(ib, il, j, one);
                                Value y = tensor::ExtractOp::create(
                                    ib, il, w[1], at(previous));
                                scf::YieldOp::create(
                                    ib, il, before(ib, il, key, y).getResult());
                              },
                              [&](OpBuilder &ib, Location il) {
                                scf::YieldOp::create(ib, il, some);
                              });
                          scf::ConditionOp::create(wb, wl, moves.getResult(0),
                                                   w);
                        },
                        [&](OpBuilder &wb, Location wl, ValueRange w) {
                          Value j = w[0];
                          Value previous =
                              arith::SubIOp::create(wb, wl, j, one);
                          Value y = tensor::ExtractOp::create(wb, wl, w[1],
                                                              at(previous));
                          Value yi = tensor::ExtractOp::create(wb, wl, w[2],
                                                               at(previous));
                          Value t =
                              tensor::InsertOp::create(wb, wl, y, w[1], at(j));
                          Value ti =
                              tensor::InsertOp::create(wb, wl, yi, w[2], at(j));
                          scf::YieldOp::create(wb, wl,
                                               ValueRange{previous, t, ti});
                        });
                    Value place = shift.getResult(0);
                    Value t = tensor::InsertOp::create(
                        tb, tl, v, shift.getResult(1), at(place));
                    Value position = arith::IndexCastOp::create(tb, tl, i64, p);
                    Value ti = tensor::InsertOp::create(
                        tb, tl, position, shift.getResult(2), at(place));
                    Value more = arith::MinUIOp::create(
                        tb, tl, arith::AddIOp::create(tb, tl, filled, one),
                        count);
                    scf::YieldOp::create(tb, tl, ValueRange{t, ti, more});
                  },
                  [&](OpBuilder &eb, Location el) {
                    scf::YieldOp::create(eb, el, c);
                  });
              scf::YieldOp::create(fb, fl,
                                   ValueRange{entered.getResult(0),
                                              entered.getResult(1),
                                              entered.getResult(2)});
            });
        return {scan.getResult(0), scan.getResult(1)};
      });
  return {rows.results[0], rows.results[1]};
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
      if (std::optional<int64_t> k = selectedCount(sort)) {
        auto [values, indices] = lowerTopK(b, sort, *k);
        for (Operation *user : llvm::make_early_inc_range(sort->getUsers())) {
          if (auto dimOp = dyn_cast<tensor::DimOp>(user)) {
            dimOp.getResult().replaceAllUsesWith(
                tensor::DimOp::create(b, dimOp.getLoc(), sort.getInput(),
                                      *dimOp.getConstantIndex())
                    .getResult());
            dimOp.erase();
            continue;
          }
          bool ofValues = user->getOperand(0) == sort.getValues();
          user->getResult(0).replaceAllUsesWith(ofValues ? values : indices);
          user->erase();
        }
        sort.erase();
        continue;
      }
      auto [values, indices] = lowerSort(b, sort);
      sort.getValues().replaceAllUsesWith(values);
      sort.getIndices().replaceAllUsesWith(indices);
      sort.erase();
    }
  }
};

} // namespace
