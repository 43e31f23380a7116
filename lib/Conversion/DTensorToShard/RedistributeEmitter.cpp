//===- RedistributeEmitter.cpp - a checked plan as shard IR ---------------===//
//
// Collectives need equal pieces. An uneven (torch.chunk) split is packed into
// one slot of the largest piece per group member before a collective and
// unpacked afterwards. Packing and unpacking are single tensor.generate ops
// whose index arithmetic is the layout model's nested split, so the IR is the
// same size for 4 devices or 4096, and empty pieces need no special case.
//
//===----------------------------------------------------------------------===//

#include "hp/Conversion/DTensorToShard/RedistributeEmitter.h"

#include "hp/Dialect/DTensor/IR/DTensor.h"
#include "hp/Dialect/DTensor/Transforms/Passes.h"
#include "hp/Dialect/DTensor/Utils/Layout.h"
#include "hp/Support/IRArith.h"
#include "hp/Support/Slices.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace hp::dtensor;
using hp::IRArith;

namespace {

using Piece = std::pair<OpFoldResult, OpFoldResult>;

class Emitter {
public:
  Emitter(OpBuilder &b, Location loc, FlatSymbolRefAttr grid,
          const plan::Problem &p)
      : b(b), loc(loc), grid(grid), p(p), a{b, loc} {}

  Value emit(const plan::Step &step, const plan::State &before,
             const plan::State &after, Value x);

private:
  /// This rank's coordinate on mesh axis `m`.
  OpFoldResult coord(int64_t m) {
    if (p.meshShape[m] == 1)
      return a.cst(0);
    if (coords.empty()) {
      OpBuilder::InsertionGuard guard(b);
      SmallVector<Type> types(p.meshShape.size(), b.getIndexType());
      auto op = shard::ProcessMultiIndexOp::create(b, loc, types, grid,
                                                   b.getDenseI16ArrayAttr({}));
      coords.assign(op.getResults().begin(), op.getResults().end());
    }
    return coords[m];
  }

  SmallVector<int64_t> partsOf(ArrayRef<int64_t> axes) {
    return llvm::map_to_vector(axes, [&](int64_t m) { return p.meshShape[m]; });
  }

  /// This rank's size of dim `d` split by `splits` (outermost first).
  OpFoldResult localSize(int64_t d, ArrayRef<int64_t> splits) {
    SmallVector<OpFoldResult> digits =
        llvm::map_to_vector(splits, [&](int64_t m) { return coord(m); });
    return nestedPiece(a, a.cst(p.globalShape[d]), partsOf(splits), digits)
        .second;
  }
  /// The largest size of dim `d` split by `splits` on any rank.
  int64_t paddedSize(int64_t d, ArrayRef<int64_t> splits) {
    return paddedPiece(p.globalShape[d], p.meshShape, splits);
  }

  /// Whether a dim of `size` split over `axes` fills every slot of `slot`
  /// exactly, so that packing and unpacking are no-ops.
  bool fillsSlots(OpFoldResult size, ArrayRef<int64_t> axes, int64_t slot) {
    return a.constant(size) == groupSize(p.meshShape, axes) * slot;
  }

  RankedTensorType withDim(Value x, int64_t d, int64_t size) {
    auto t = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> shape(t.getShape());
    shape[d] = size;
    return RankedTensorType::get(shape, t.getElementType());
  }
  Value castDim(Value x, int64_t d, int64_t size) {
    if (cast<RankedTensorType>(x.getType()).getDimSize(d) == size)
      return x;
    return tensor::CastOp::create(b, loc, withDim(x, d, size), x);
  }
  TypedAttr zeroOf(Value x) {
    return cast<TypedAttr>(
        b.getZeroAttr(cast<RankedTensorType>(x.getType()).getElementType()));
  }
  /// The value a reduction `op` leaves unchanged: 0, 1, the lowest or the
  /// highest value of the type.
  TypedAttr identityOf(Type t, ReduceOp op) {
    if (auto f = dyn_cast<FloatType>(t)) {
      const llvm::fltSemantics &sem = f.getFloatSemantics();
      switch (op) {
      case ReduceOp::Max:
        return b.getFloatAttr(f, llvm::APFloat::getInf(sem, /*Negative=*/true));
      case ReduceOp::Min:
        return b.getFloatAttr(f, llvm::APFloat::getInf(sem));
      case ReduceOp::Prod:
        return b.getFloatAttr(f, 1.0);
      default:
        return b.getFloatAttr(f, 0.0);
      }
    }
    auto i = cast<IntegerType>(t);
    unsigned w = i.getWidth();
    switch (op) {
    case ReduceOp::Max:
      return b.getIntegerAttr(i, i.isUnsigned() ? llvm::APInt::getMinValue(w)
                                                : llvm::APInt::getSignedMinValue(w));
    case ReduceOp::Min:
      return b.getIntegerAttr(i, i.isUnsigned() ? llvm::APInt::getMaxValue(w)
                                                : llvm::APInt::getSignedMaxValue(w));
    case ReduceOp::Prod:
      return b.getIntegerAttr(i, 1);
    default:
      return b.getIntegerAttr(i, 0);
    }
  }
  TypedAttr oneOf(Value x) {
    Type t = cast<RankedTensorType>(x.getType()).getElementType();
    if (auto f = dyn_cast<FloatType>(t))
      return b.getFloatAttr(f, 1.0);
    return b.getIntegerAttr(t, 1);
  }
  Value filled(ArrayRef<OpFoldResult> sizes, Type elementType, TypedAttr fill) {
    Value empty = tensor::EmptyOp::create(b, loc, sizes, elementType);
    Value scalar = arith::ConstantOp::create(b, loc, fill);
    return linalg::FillOp::create(b, loc, ValueRange{scalar}, ValueRange{empty})
        .getResult(0);
  }

  Value slice(Value x, int64_t d, OpFoldResult offset, OpFoldResult length) {
    int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
    SmallVector<OpFoldResult> offsets(rank, a.cst(0)), strides(rank, a.cst(1));
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
    offsets[d] = offset;
    sizes[d] = length;
    return hp::extractSlice(b, loc, x, offsets, sizes, strides);
  }
  /// The first `length` elements of dim `d` (all of it when it is `padded`).
  Value trim(Value x, int64_t d, OpFoldResult length, int64_t padded) {
    if (a.constant(length) == padded)
      return x;
    return slice(x, d, a.cst(0), length);
  }
  /// Dim `d` grown to `size` with trailing zeros.
  Value pad(Value x, int64_t d, int64_t size) {
    auto t = cast<RankedTensorType>(x.getType());
    if (t.getDimSize(d) == size)
      return x;
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
    SmallVector<OpFoldResult> padded = sizes;
    padded[d] = a.cst(size);
    Value out = filled(padded, t.getElementType(), zeroOf(x));
    int64_t rank = t.getRank();
    SmallVector<OpFoldResult> offsets(rank, a.cst(0)), strides(rank, a.cst(1));
    return hp::insertSlice(b, loc, x, out, offsets, sizes, strides);
  }

  /// A tensor shaped like `like` with dim `d` of `size`, element i given by
  /// `body(builder, arith, indices)`.
  Value generate(Value like, int64_t d, OpFoldResult size,
                 function_ref<Value(OpBuilder &, IRArith &, ValueRange)> body) {
    auto t = cast<RankedTensorType>(like.getType());
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, like);
    sizes[d] = size;
    SmallVector<int64_t> shape;
    SmallVector<Value> dynamic;
    dispatchIndexOpFoldResults(sizes, dynamic, shape);
    auto type = RankedTensorType::get(shape, t.getElementType());
    return tensor::GenerateOp::create(
        b, loc, type, dynamic,
        [&](OpBuilder &nb, Location nl, ValueRange ivs) {
          IRArith na{nb, nl};
          Value v = body(nb, na, ivs);
          tensor::YieldOp::create(nb, nl, v);
        });
  }

  /// Whether torch.chunk already lays the pieces out at the slot starts: one
  /// axis, a static size and chunks of exactly `slot` (the common case).
  bool slotsArePrefix(OpFoldResult size, ArrayRef<int64_t> axes,
                      int64_t slot) {
    std::optional<int64_t> s = a.constant(size);
    return axes.size() == 1 && s &&
           IntArith().ceilDiv(*s, p.meshShape[axes[0]]) == slot;
  }

  /// Slot layout -> nested layout: a dim of `size` whose pieces over `axes`
  /// sit at the start of slots of `slot` elements in `y`.
  Value unpack(Value y, int64_t d, OpFoldResult size, ArrayRef<int64_t> axes,
               int64_t slot) {
    if (slotsArePrefix(size, axes, slot))
      return slice(y, d, a.cst(0), size);
    SmallVector<int64_t> parts = partsOf(axes);
    return generate(y, d, size, [&](OpBuilder &nb, IRArith &na, ValueRange ivs) {
      // Find the piece holding element q: at each level of the nested split
      // the piece index is q / chunk, as torch.chunk lays pieces out.
      OpFoldResult q = ivs[d], length = size, j = na.cst(0);
      for (int64_t n : parts) {
        OpFoldResult c = na.ceilDiv(length, n);
        OpFoldResult digit = na.div(q, c);
        q = na.sub(q, na.mul(digit, c));
        length = na.min(c, na.sub(length, na.mul(digit, c)));
        j = na.add(na.mul(j, na.cst(n)), digit);
      }
      SmallVector<Value> at(ivs.begin(), ivs.end());
      at[d] = na.val(na.add(na.mul(j, na.cst(slot)), q));
      return tensor::ExtractOp::create(nb, loc, y, at).getResult();
    });
  }

  /// Nested layout -> slot layout: piece j of dim `d` (split over `axes`)
  /// goes to the start of slot j of `slot` elements; the rest is zero.
  Value pack(Value x, int64_t d, OpFoldResult size, ArrayRef<int64_t> axes,
             int64_t slot) {
    int64_t n = groupSize(p.meshShape, axes);
    if (slotsArePrefix(size, axes, slot))
      return pad(x, d, n * slot);
    SmallVector<int64_t> parts = partsOf(axes);
    TypedAttr zero = zeroOf(x);
    return generate(x, d, a.cst(n * slot), [&](OpBuilder &nb, IRArith &na,
                                               ValueRange ivs) {
      OpFoldResult q = ivs[d];
      OpFoldResult j = na.div(q, na.cst(slot));
      OpFoldResult r = na.rem(q, na.cst(slot));
      // Row-major digits of j over the axes, the first outermost.
      SmallVector<OpFoldResult> digits(parts.size());
      int64_t stride = n;
      for (auto [i, parts_i] : llvm::enumerate(parts)) {
        stride /= parts_i;
        digits[i] = na.rem(na.div(j, na.cst(stride)), na.cst(parts_i));
      }
      auto [offset, length] = nestedPiece(na, size, parts, digits);
      Value inside = arith::CmpIOp::create(nb, loc, arith::CmpIPredicate::ult,
                                           na.val(r), na.val(length));
      // An empty piece may sit at the end of an empty dim: read only inside.
      auto ifOp = scf::IfOp::create(
          nb, loc, inside,
          [&](OpBuilder &tb, Location tl) {
            IRArith ta{tb, tl};
            SmallVector<Value> at(ivs.begin(), ivs.end());
            at[d] = ta.val(ta.add(offset, r));
            Value v = tensor::ExtractOp::create(tb, tl, x, at);
            scf::YieldOp::create(tb, tl, v);
          },
          [&](OpBuilder &eb, Location el) {
            Value v = arith::ConstantOp::create(eb, el, zero);
            scf::YieldOp::create(eb, el, v);
          });
      return ifOp.getResult(0);
    });
  }

  /// The coordinate of the device whose block under `have` is this rank's
  /// block under `want`: the same coordinate on every axis whose role is the
  /// same in both; per tensor dim, the chunk this rank needs (its split
  /// coordinates read as a mixed-radix number, outermost first) written in
  /// the radices of `have`'s splits (position by position where the sizes
  /// match; a reordered nesting where the dim splits evenly); the replicated
  /// axes by their row-major index.
  SmallVector<OpFoldResult> peer(const plan::State &have,
                                 const plan::State &want) {
    int64_t numAxes = p.meshShape.size();
    auto role = [](const plan::State &st, int64_t m) {
      for (auto [d, dims] : llvm::enumerate(st.order))
        for (auto [i, a] : llvm::enumerate(dims))
          if (a == m)
            return std::make_pair(static_cast<int64_t>(d),
                                  static_cast<int64_t>(i));
      return std::make_pair(int64_t(-1),
                            static_cast<int64_t>(st.placements[m].kind));
    };
    SmallVector<OpFoldResult> c;
    for (int64_t m = 0; m < numAxes; ++m)
      c.push_back(coord(m));
    SmallVector<OpFoldResult> s = c;
    SmallVector<int64_t> haveFree, wantFree;
    for (int64_t m = 0; m < numAxes; ++m) {
      if (role(have, m) == role(want, m))
        continue;
      if (have.placements[m].kind == plan::Placement::Replicate)
        haveFree.push_back(m);
      if (want.placements[m].kind == plan::Placement::Replicate)
        wantFree.push_back(m);
    }
    for (auto [d, dims] : llvm::enumerate(have.order)) {
      const auto &wanted = want.order[d];
      bool samePositions =
          dims.size() == wanted.size() &&
          llvm::all_of(llvm::zip(dims, wanted), [&](auto pair) {
            return p.meshShape[std::get<0>(pair)] ==
                   p.meshShape[std::get<1>(pair)];
          });
      if (samePositions) {
        for (auto [i, m] : llvm::enumerate(dims))
          s[m] = c[wanted[i]];
        continue;
      }
      delinearize(linear(wanted), dims, s);
    }
    delinearize(linear(wantFree), haveFree, s);
    return s;
  }

  /// Linear index of this rank's digits on `axes` (first outermost).
  OpFoldResult linear(ArrayRef<int64_t> axes) {
    OpFoldResult v = a.cst(0);
    for (int64_t m : axes)
      v = a.add(a.mul(v, a.cst(p.meshShape[m])), coord(m));
    return v;
  }
  /// `v` written in the radices of `axes` (first outermost) into `c`.
  void delinearize(OpFoldResult v, ArrayRef<int64_t> axes,
                   SmallVectorImpl<OpFoldResult> &c) {
    for (int64_t i = static_cast<int64_t>(axes.size()) - 1; i >= 0; --i) {
      int64_t m = axes[i];
      c[m] = a.rem(v, a.cst(p.meshShape[m]));
      v = a.div(v, a.cst(p.meshShape[m]));
    }
  }
  /// A permute whose new splits refine or coarsen the old ones
  /// (plan::subBlockPermute), in T = prod merge[d] rounds: in each, every
  /// rank sends one part of its block and receives one piece of its new
  /// block; all sends and receives form one group.
  ///
  /// Pairing. A receiver's new piece index k_d per dim lies in old piece
  /// k_d / refine[d] (sub-piece k_d % refine[d]) or spans old pieces
  /// k_d * merge[d] + u_d. Its sub-piece indices (mixed radix over the dims)
  /// times cTo plus its replica index give L in [0, cFrom * T): in round t
  /// it takes the piece u = (t + L % T) % T from the holder with replica
  /// index L / T. A holder with replica j of an old block at merge position
  /// u_X serves, in round t, the receiver with L = j * T + (u_X - t) mod T.
  /// Even splits wherever refine or merge is above 1: static piece sizes.
  Value subBlockPermute(const plan::State &before, const plan::State &after,
                        ArrayRef<int64_t> refine, ArrayRef<int64_t> merge,
                        Value x) {
    int64_t rank = p.globalShape.size();
    SmallVector<int64_t, 4> fromFree = before.freeAxes(),
                           toFree = after.freeAxes();
    int64_t cTo = groupSize(p.meshShape, toFree);
    int64_t rounds = 1;
    for (int64_t q : merge)
      rounds *= q;
    auto type = cast<RankedTensorType>(x.getType());
    auto pieceOf = [&](ArrayRef<int64_t> axes, int64_t d) {
      return p.globalShape[d] / groupSize(p.meshShape, axes);
    };
    SmallVector<OpFoldResult> mine;
    for (int64_t m = 0, e = p.meshShape.size(); m < e; ++m)
      mine.push_back(coord(m));

    // This rank as a receiver: its new piece indices, sub-piece index and L.
    SmallVector<OpFoldResult> k(rank);
    OpFoldResult sub = a.cst(0);
    for (int64_t d = 0; d < rank; ++d) {
      k[d] = linear(after.order[d]);
      sub = a.add(a.mul(sub, a.cst(refine[d])), a.rem(k[d], a.cst(refine[d])));
    }
    OpFoldResult recvL = a.add(a.mul(sub, a.cst(cTo)), linear(toFree));
    // This rank as a holder: its old piece indices, merge position, replica.
    SmallVector<OpFoldResult> x0(rank);
    OpFoldResult mergePos = a.cst(0);
    for (int64_t d = 0; d < rank; ++d) {
      x0[d] = linear(before.order[d]);
      mergePos = a.add(a.mul(mergePos, a.cst(merge[d])),
                       a.rem(x0[d], a.cst(merge[d])));
    }
    OpFoldResult replica = linear(fromFree);

    SmallVector<int64_t> all;
    for (int64_t m = 0, e = p.meshShape.size(); m < e; ++m)
      all.push_back(m);
    SmallVector<OpFoldResult> xSizes = tensor::getMixedSizes(b, loc, x);

    // Sends first, then receives: convert-shard-to-nccl makes one group.
    for (int64_t t = 0; t < rounds; ++t) {
      OpFoldResult l = a.add(
          a.mul(replica, a.cst(rounds)),
          a.rem(a.add(mergePos, a.cst(rounds - t)), a.cst(rounds)));
      SmallVector<OpFoldResult> target = mine;
      delinearize(a.rem(l, a.cst(cTo)), toFree, target);
      OpFoldResult rest = a.div(l, a.cst(cTo));
      SmallVector<OpFoldResult> subIndex(rank);
      for (int64_t d = rank - 1; d >= 0; --d) {
        subIndex[d] = a.rem(rest, a.cst(refine[d]));
        rest = a.div(rest, a.cst(refine[d]));
      }
      SmallVector<OpFoldResult> offsets(rank, a.cst(0)), sizes = xSizes,
                                strides(rank, a.cst(1));
      for (int64_t d = 0; d < rank; ++d) {
        OpFoldResult kd = a.div(
            a.add(a.mul(x0[d], a.cst(refine[d])), subIndex[d]),
            a.cst(merge[d]));
        delinearize(kd, after.order[d], target);
        if (refine[d] > 1) {
          int64_t piece = pieceOf(after.order[d], d);
          offsets[d] = a.mul(subIndex[d], a.cst(piece));
          sizes[d] = a.cst(piece);
        }
      }
      Value part = hp::extractSlice(b, loc, x, offsets, sizes, strides);
      auto [toStatic, toDynamic] = mixedIndex(target);
      shard::SendOp::create(b, loc, part.getType(), grid, axesAttr(all), part,
                            toStatic, toDynamic);
    }

    SmallVector<OpFoldResult> outSizes;
    for (int64_t d = 0; d < rank; ++d)
      outSizes.push_back(refine[d] > 1 || merge[d] > 1
                             ? OpFoldResult(a.cst(pieceOf(after.order[d], d)))
                             : localSize(d, after.order[d]));
    // All receives before the pieces are placed, so that the group can sit
    // at the last one.
    SmallVector<std::pair<Value, SmallVector<OpFoldResult>>> got;
    SmallVector<SmallVector<OpFoldResult>> gotSizes;
    for (int64_t t = 0; t < rounds; ++t) {
      OpFoldResult u =
          a.rem(a.add(a.rem(recvL, a.cst(rounds)), a.cst(t)), a.cst(rounds));
      SmallVector<OpFoldResult> uDigit(rank);
      for (int64_t d = rank - 1; d >= 0; --d) {
        uDigit[d] = a.rem(u, a.cst(merge[d]));
        u = a.div(u, a.cst(merge[d]));
      }
      SmallVector<OpFoldResult> source = mine;
      SmallVector<OpFoldResult> pieceSizes = outSizes,
                                offsets(rank, a.cst(0)),
                                strides(rank, a.cst(1));
      for (int64_t d = 0; d < rank; ++d) {
        OpFoldResult ad = a.add(
            a.mul(a.div(k[d], a.cst(refine[d])), a.cst(merge[d])), uDigit[d]);
        delinearize(ad, before.order[d], source);
        if (merge[d] > 1) {
          int64_t piece = pieceOf(before.order[d], d);
          pieceSizes[d] = a.cst(piece);
          offsets[d] = a.mul(uDigit[d], a.cst(piece));
        }
      }
      delinearize(a.div(recvL, a.cst(rounds)), fromFree, source);
      Value into =
          tensor::EmptyOp::create(b, loc, pieceSizes, type.getElementType());
      auto [fromStatic, fromDynamic] = mixedIndex(source);
      Value piece = shard::RecvOp::create(b, loc, into.getType(), grid,
                                          axesAttr(all), into, fromStatic,
                                          fromDynamic);
      got.push_back({piece, offsets});
      gotSizes.push_back(pieceSizes);
    }
    if (rounds == 1)
      return got.front().first;
    Value out = tensor::EmptyOp::create(b, loc, outSizes, type.getElementType());
    SmallVector<OpFoldResult> strides(rank, a.cst(1));
    for (auto [pieceAndOffsets, sizes] : llvm::zip_equal(got, gotSizes))
      out = hp::insertSlice(b, loc, pieceAndOffsets.first, out,
                            pieceAndOffsets.second, sizes, strides);
    return out;
  }

  /// A static index list with kDynamic where `values` are not constants,
  /// and the dynamic values.
  std::pair<DenseI64ArrayAttr, SmallVector<Value>>
  mixedIndex(ArrayRef<OpFoldResult> values) {
    SmallVector<int64_t> statics;
    SmallVector<Value> dynamics;
    dispatchIndexOpFoldResults(values, dynamics, statics);
    return {b.getDenseI64ArrayAttr(statics), dynamics};
  }

  DenseI16ArrayAttr axesAttr(ArrayRef<int64_t> axes) {
    SmallVector<int16_t> v = llvm::map_to_vector(
        axes, [](int64_t m) { return static_cast<int16_t>(m); });
    return b.getDenseI16ArrayAttr(v);
  }
  shard::ReductionKindAttr reduction(int64_t op) {
    return shard::ReductionKindAttr::get(
        b.getContext(), toShardReduction(static_cast<ReduceOp>(op)));
  }

  OpBuilder &b;
  Location loc;
  FlatSymbolRefAttr grid;
  const plan::Problem &p;
  IRArith a;
  SmallVector<Value> coords;
};

Value Emitter::emit(const plan::Step &step, const plan::State &before,
                    const plan::State &after, Value x) {
  ArrayRef<int64_t> axes = step.axes;
  int64_t n = groupSize(p.meshShape, axes);
  int64_t d = step.dim;
  switch (step.kind) {
  case plan::Step::AllGather: {
    if (n == 1)
      return x;
    ArrayRef<int64_t> splits = before.order[d];
    OpFoldResult size = localSize(d, after.order[d]);
    int64_t slot = paddedSize(d, splits);
    Value y = shard::AllGatherOp::create(b, loc, withDim(x, d, n * slot), grid,
                                         axesAttr(axes), pad(x, d, slot),
                                         b.getIndexAttr(d));
    return fillsSlots(size, axes, slot) ? y : unpack(y, d, size, axes, slot);
  }
  case plan::Step::AllReduce:
    if (n == 1)
      return x;
    return shard::AllReduceOp::create(b, loc, x.getType(), grid, axesAttr(axes),
                                      x, reduction(step.reduceOp));
  case plan::Step::ReduceScatter: {
    if (n == 1)
      return x;
    OpFoldResult size = localSize(d, before.order[d]);
    int64_t slot = paddedSize(d, after.order[d]);
    Value packed = fillsSlots(size, axes, slot)
                       ? castDim(x, d, n * slot)
                       : pack(x, d, size, axes, slot);
    Value y = shard::ReduceScatterOp::create(
        b, loc, withDim(packed, d, slot), grid, axesAttr(axes), packed,
        reduction(step.reduceOp), b.getIndexAttr(d));
    return trim(y, d, localSize(d, after.order[d]), slot);
  }
  case plan::Step::AllToAll: {
    if (n == 1)
      return x;
    int64_t d2 = step.dstDim;
    OpFoldResult size1 = localSize(d, after.order[d]);
    int64_t slot1 = paddedSize(d, before.order[d]);
    OpFoldResult size2 = localSize(d2, before.order[d2]);
    int64_t slot2 = paddedSize(d2, after.order[d2]);
    Value in = pad(x, d, slot1);
    in = fillsSlots(size2, axes, slot2) ? castDim(in, d2, n * slot2)
                                        : pack(in, d2, size2, axes, slot2);
    // Slot j of d2 goes to member j; the received slots concatenate along d.
    auto type = cast<RankedTensorType>(in.getType());
    SmallVector<int64_t> shape(type.getShape());
    shape[d] = n * slot1;
    shape[d2] = slot2;
    Value y = shard::AllToAllOp::create(
        b, loc, RankedTensorType::get(shape, type.getElementType()), grid,
        axesAttr(axes), in, b.getIndexAttr(d2), b.getIndexAttr(d));
    if (!fillsSlots(size1, axes, slot1))
      y = unpack(y, d, size1, axes, slot1);
    return trim(y, d2, localSize(d2, after.order[d2]), slot2);
  }
  case plan::Step::Chunk: {
    int64_t m = axes.front();
    if (n == 1)
      return x;
    OpFoldResult size = localSize(d, before.order[d]);
    if (auto s = a.constant(size); s && *s % n == 0)
      return shard::AllSliceOp::create(b, loc, withDim(x, d, *s / n), grid,
                                       axesAttr(axes), x, b.getIndexAttr(d));
    auto [offset, length] = chunk(a, size, n, coord(m));
    return slice(x, d, offset, length);
  }
  case plan::Step::Fill: {
    // This rank's block at its offset in the unsplit dim; the reduction's
    // identity elsewhere. No communication.
    int64_t m = axes.front();
    if (n == 1)
      return x;
    OpFoldResult size = localSize(d, after.order[d]);
    OpFoldResult offset = chunk(a, size, n, coord(m)).first;
    auto type = cast<RankedTensorType>(x.getType());
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
    sizes[d] = size;
    Value out = filled(sizes, type.getElementType(),
                       identityOf(type.getElementType(),
                                  static_cast<ReduceOp>(step.reduceOp)));
    int64_t rank = type.getRank();
    SmallVector<OpFoldResult> offsets(rank, a.cst(0)), strides(rank, a.cst(1));
    offsets[d] = offset;
    return hp::insertSlice(b, loc, x, out, offsets,
                           tensor::getMixedSizes(b, loc, x), strides);
  }
  case plan::Step::Permute: {
    // Only size-1 axes change roles: every rank keeps its block.
    if (n == 1)
      return x;
    SmallVector<int64_t> refine, merge;
    auto above1 = [](int64_t v) { return v > 1; };
    if (plan::subBlockPermute(p, before, after, &refine, &merge) &&
        (llvm::any_of(refine, above1) || llvm::any_of(merge, above1)))
      return subBlockPermute(before, after, refine, merge, x);
    // One send of this rank's block to the device that needs it, one
    // receive of the block this rank needs; convert-shard-to-nccl issues the
    // pair in one nccl.group.
    SmallVector<int64_t> all;
    for (int64_t m = 0, e = p.meshShape.size(); m < e; ++m)
      all.push_back(m);
    auto type = cast<RankedTensorType>(x.getType());
    SmallVector<OpFoldResult> sizes;
    for (int64_t k = 0, e = type.getRank(); k < e; ++k)
      sizes.push_back(localSize(k, after.order[k]));
    auto [toStatic, toDynamic] = mixedIndex(peer(after, before));
    shard::SendOp::create(b, loc, type, grid, axesAttr(all), x, toStatic,
                          toDynamic);
    Value into = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
    auto [fromStatic, fromDynamic] = mixedIndex(peer(before, after));
    return shard::RecvOp::create(b, loc, into.getType(), grid, axesAttr(all),
                                 into, fromStatic, fromDynamic);
  }
  case plan::Step::MakePartial: {
    int64_t m = axes.front();
    auto op = static_cast<ReduceOp>(step.reduceOp);
    if (n == 1 || (op != ReduceOp::Sum && op != ReduceOp::Prod))
      return x; // avg, max and min of copies are the value itself.
    // Coordinate 0 keeps the value; the others hold the reduction's identity,
    // which is exact for every dtype (torch divides by n instead).
    TypedAttr identity = op == ReduceOp::Sum ? zeroOf(x) : oneOf(x);
    Value other =
        filled(tensor::getMixedSizes(b, loc, x),
               cast<RankedTensorType>(x.getType()).getElementType(), identity);
    Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          a.val(coord(m)), a.val(a.cst(0)));
    return arith::SelectOp::create(b, loc, isFirst, x, other);
  }
  }
  llvm_unreachable("unknown step");
}

} // namespace

Value hp::dtensor::emitRedistribute(OpBuilder &b, Location loc,
                                    FlatSymbolRefAttr grid,
                                    const plan::Problem &problem,
                                    const plan::Plan &plan, Value local) {
  Emitter emitter(b, loc, grid, problem);
  for (auto [i, step] : llvm::enumerate(plan.steps))
    local = emitter.emit(step, plan.states[i], plan.states[i + 1], local);
  return local;
}
