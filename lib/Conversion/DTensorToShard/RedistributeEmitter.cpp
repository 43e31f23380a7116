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
#include "hp/Dialect/DTensor/Layout/Layout.h"
#include "hp/Dialect/DTensor/Transforms/Passes.h"
#include "hp/Support/IRArith.h"
#include "hp/Support/Slices.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace hp::dtensor;
using hp::IRArith;

namespace {

using Piece = std::pair<OpFoldResult, OpFoldResult>;

class PlanEmitter {
public:
  PlanEmitter(OpBuilder &b, Location loc, FlatSymbolRefAttr grid,
              const plan::Problem &p)
      : b(b), loc(loc), grid(grid), p(p), a{b, loc} {}

  Value emit(const plan::Step &step, const plan::State &before,
             const plan::State &after, Value x);

private:
  // One emitter per step kind; each is called on groups of two or more.
  Value emitAllGather(const plan::Step &step, const plan::State &before,
                      const plan::State &after, Value x);
  Value emitReduceScatter(const plan::Step &step, const plan::State &before,
                          const plan::State &after, Value x);
  Value emitAllToAll(const plan::Step &step, const plan::State &before,
                     const plan::State &after, Value x);
  Value emitChunk(const plan::Step &step, const plan::State &before, Value x);
  Value emitFill(const plan::Step &step, const plan::State &after, Value x);
  Value emitPermute(const plan::Step &step, const plan::State &before,
                    const plan::State &after, Value x);
  Value emitMakePartial(const plan::Step &step, Value x);

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
  /// The value a reduction `op` leaves unchanged (ReduceOp.h) in type `t`:
  /// infinities for floats, the type's extremes for integers.
  TypedAttr identityAttr(Type t, ReduceOp op) {
    ReduceIdentity id = hp::dtensor::identityOf(op);
    bool lowest = id == ReduceIdentity::Lowest;
    if (auto f = dyn_cast<FloatType>(t)) {
      if (id == ReduceIdentity::Lowest || id == ReduceIdentity::Highest)
        return b.getFloatAttr(
            f, llvm::APFloat::getInf(f.getFloatSemantics(), lowest));
      return b.getFloatAttr(f, id == ReduceIdentity::One ? 1.0 : 0.0);
    }
    auto i = cast<IntegerType>(t);
    unsigned w = i.getWidth();
    switch (id) {
    case ReduceIdentity::Lowest:
      return b.getIntegerAttr(i, i.isUnsigned()
                                     ? llvm::APInt::getMinValue(w)
                                     : llvm::APInt::getSignedMinValue(w));
    case ReduceIdentity::Highest:
      return b.getIntegerAttr(i, i.isUnsigned()
                                     ? llvm::APInt::getMaxValue(w)
                                     : llvm::APInt::getSignedMaxValue(w));
    case ReduceIdentity::One:
      return b.getIntegerAttr(i, 1);
    case ReduceIdentity::Zero:
      return b.getIntegerAttr(i, 0);
    }
    llvm_unreachable("unknown identity");
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
        b, loc, type, dynamic, [&](OpBuilder &nb, Location nl, ValueRange ivs) {
          IRArith na{nb, nl};
          Value v = body(nb, na, ivs);
          tensor::YieldOp::create(nb, nl, v);
        });
  }

  /// Whether torch.chunk already lays the pieces out at the slot starts: one
  /// axis, a static size and chunks of exactly `slot` (the common case).
  bool slotsArePrefix(OpFoldResult size, ArrayRef<int64_t> axes, int64_t slot) {
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
    return generate(
        y, d, size, [&](OpBuilder &nb, IRArith &na, ValueRange ivs) {
          auto [j, q] = pieceHolding(na, size, parts, OpFoldResult(ivs[d]));
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
    return generate(
        x, d, a.cst(n * slot), [&](OpBuilder &nb, IRArith &na, ValueRange ivs) {
          OpFoldResult q = ivs[d];
          OpFoldResult j = na.div(q, na.cst(slot));
          OpFoldResult r = na.rem(q, na.cst(slot));
          SmallVector<OpFoldResult, 4> digits = delinearize(na, j, parts);
          auto [offset, length] = nestedPiece(na, size, parts, digits);
          Value inside = arith::CmpIOp::create(
              nb, loc, arith::CmpIPredicate::ult, na.val(r), na.val(length));
          // An empty piece may sit at the end of an empty dim: read only
          // inside.
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
      setDigits(linear(wanted), dims, s);
    }
    setDigits(linear(wantFree), haveFree, s);
    return s;
  }

  /// Linear index of this rank's digits on `axes` (first outermost).
  OpFoldResult linear(ArrayRef<int64_t> axes) {
    auto digits =
        llvm::map_to_vector<4>(axes, [&](int64_t m) { return coord(m); });
    return linearize(a, digits, partsOf(axes));
  }
  /// `v` written in the radices of `axes` (first outermost) into `c`.
  void setDigits(OpFoldResult v, ArrayRef<int64_t> axes,
                 SmallVectorImpl<OpFoldResult> &c) {
    for (auto [m, digit] :
         llvm::zip_equal(axes, delinearize(a, v, partsOf(axes))))
      c[m] = digit;
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
  struct SubBlocks {
    const plan::State &before, &after;
    ArrayRef<int64_t> refine, merge;
    int64_t rounds = 1;
    /// This rank as a receiver: its new piece indices and L.
    SmallVector<OpFoldResult> k;
    OpFoldResult recvL;
    /// This rank as a holder: its old piece indices, merge position, replica.
    SmallVector<OpFoldResult> x0;
    OpFoldResult mergePos, replica;
    /// The sizes of this rank's block.
    SmallVector<OpFoldResult> sizes;
    /// The point-to-point group of every send and receive.
    IntegerAttr group;
  };

  Value subBlockPermute(const plan::State &before, const plan::State &after,
                        ArrayRef<int64_t> refine, ArrayRef<int64_t> merge,
                        Value x) {
    int64_t rank = p.globalShape.size();
    SubBlocks s{before, after, refine, merge};
    for (int64_t q : merge)
      s.rounds *= q;
    OpFoldResult sub = a.cst(0);
    for (int64_t d = 0; d < rank; ++d) {
      s.k.push_back(linear(after.order[d]));
      sub =
          a.add(a.mul(sub, a.cst(refine[d])), a.rem(s.k[d], a.cst(refine[d])));
    }
    s.recvL = a.add(a.mul(sub, a.cst(groupSize(p.meshShape, after.freeAxes()))),
                    linear(after.freeAxes()));
    s.mergePos = a.cst(0);
    for (int64_t d = 0; d < rank; ++d) {
      s.x0.push_back(linear(before.order[d]));
      s.mergePos = a.add(a.mul(s.mergePos, a.cst(merge[d])),
                         a.rem(s.x0[d], a.cst(merge[d])));
    }
    s.replica = linear(before.freeAxes());
    s.sizes = tensor::getMixedSizes(b, loc, x);
    s.group = newP2PGroup();
    // Sends first, then receives: convert-shard-to-nccl makes one group.
    for (int64_t t = 0; t < s.rounds; ++t)
      sendRound(s, t, x);
    return receiveRounds(s, cast<RankedTensorType>(x.getType()));
  }

  /// The elements of dim `d` in one piece of a block split by `axes`.
  int64_t pieceOf(ArrayRef<int64_t> axes, int64_t d) {
    return p.globalShape[d] / groupSize(p.meshShape, axes);
  }
  SmallVector<OpFoldResult> myCoord() {
    SmallVector<OpFoldResult> mine;
    for (int64_t m = 0, e = p.meshShape.size(); m < e; ++m)
      mine.push_back(coord(m));
    return mine;
  }

  /// Round `t`'s send: the part of this rank's block its receiver takes.
  void sendRound(const SubBlocks &s, int64_t t, Value x) {
    int64_t rank = p.globalShape.size();
    SmallVector<int64_t, 4> toFree = s.after.freeAxes();
    int64_t cTo = groupSize(p.meshShape, toFree);
    OpFoldResult l =
        a.add(a.mul(s.replica, a.cst(s.rounds)),
              a.rem(a.add(s.mergePos, a.cst(s.rounds - t)), a.cst(s.rounds)));
    SmallVector<OpFoldResult> target = myCoord();
    setDigits(a.rem(l, a.cst(cTo)), toFree, target);
    SmallVector<OpFoldResult, 4> subIndex =
        delinearize(a, a.div(l, a.cst(cTo)), s.refine);
    SmallVector<OpFoldResult> offsets(rank, a.cst(0)), sizes = s.sizes,
                                                       strides(rank, a.cst(1));
    for (int64_t d = 0; d < rank; ++d) {
      OpFoldResult kd =
          a.div(a.add(a.mul(s.x0[d], a.cst(s.refine[d])), subIndex[d]),
                a.cst(s.merge[d]));
      setDigits(kd, s.after.order[d], target);
      if (s.refine[d] > 1) {
        int64_t piece = pieceOf(s.after.order[d], d);
        offsets[d] = a.mul(subIndex[d], a.cst(piece));
        sizes[d] = a.cst(piece);
      }
    }
    Value part = hp::extractSlice(b, loc, x, offsets, sizes, strides);
    auto [toStatic, toDynamic] = mixedIndex(target);
    auto send =
        shard::SendOp::create(b, loc, part.getType(), grid, axesAttr(allAxes()),
                              part, toStatic, toDynamic);
    joinGroup(send, s.group);
  }

  /// Every round's receive, then the pieces placed in the new block. All
  /// receives come before the pieces are placed, so that the group can sit
  /// at the last one.
  Value receiveRounds(const SubBlocks &s, RankedTensorType type) {
    int64_t rank = p.globalShape.size();
    SmallVector<OpFoldResult> outSizes;
    for (int64_t d = 0; d < rank; ++d)
      outSizes.push_back(s.refine[d] > 1 || s.merge[d] > 1
                             ? OpFoldResult(a.cst(pieceOf(s.after.order[d], d)))
                             : localSize(d, s.after.order[d]));
    SmallVector<int64_t, 4> fromFree = s.before.freeAxes();
    SmallVector<std::pair<Value, SmallVector<OpFoldResult>>> got;
    SmallVector<SmallVector<OpFoldResult>> gotSizes;
    for (int64_t t = 0; t < s.rounds; ++t) {
      OpFoldResult u = a.rem(a.add(a.rem(s.recvL, a.cst(s.rounds)), a.cst(t)),
                             a.cst(s.rounds));
      SmallVector<OpFoldResult, 4> uDigit = delinearize(a, u, s.merge);
      SmallVector<OpFoldResult> source = myCoord();
      SmallVector<OpFoldResult> pieceSizes = outSizes, offsets(rank, a.cst(0));
      for (int64_t d = 0; d < rank; ++d) {
        OpFoldResult ad =
            a.add(a.mul(a.div(s.k[d], a.cst(s.refine[d])), a.cst(s.merge[d])),
                  uDigit[d]);
        setDigits(ad, s.before.order[d], source);
        if (s.merge[d] > 1) {
          int64_t piece = pieceOf(s.before.order[d], d);
          pieceSizes[d] = a.cst(piece);
          offsets[d] = a.mul(uDigit[d], a.cst(piece));
        }
      }
      setDigits(a.div(s.recvL, a.cst(s.rounds)), fromFree, source);
      Value into =
          tensor::EmptyOp::create(b, loc, pieceSizes, type.getElementType());
      auto [fromStatic, fromDynamic] = mixedIndex(source);
      auto piece = shard::RecvOp::create(b, loc, into.getType(), grid,
                                         axesAttr(allAxes()), into, fromStatic,
                                         fromDynamic);
      joinGroup(piece, s.group);
      got.push_back({piece->getResult(0), offsets});
      gotSizes.push_back(pieceSizes);
    }
    if (s.rounds == 1)
      return got.front().first;
    Value out =
        tensor::EmptyOp::create(b, loc, outSizes, type.getElementType());
    SmallVector<OpFoldResult> strides(rank, a.cst(1));
    for (auto [pieceAndOffsets, sizes] : llvm::zip_equal(got, gotSizes))
      out = hp::insertSlice(b, loc, pieceAndOffsets.first, out,
                            pieceAndOffsets.second, sizes, strides);
    return out;
  }

  /// A fresh point-to-point group id: one above every id in the enclosing
  /// function, so that the groups of several redistributes stay apart.
  IntegerAttr newP2PGroup() {
    Operation *scope = b.getInsertionBlock()->getParentOp();
    if (auto fn = scope->getParentOfType<FunctionOpInterface>())
      scope = fn;
    MLIRContext *ctx = b.getContext();
    DTensorDialect::P2pGroupAttrHelper helper(ctx);
    int64_t next = 0;
    scope->walk([&](Operation *op) {
      if (IntegerAttr id = helper.getAttr(op))
        next = std::max(next, id.getInt() + 1);
    });
    return b.getI64IntegerAttr(next);
  }
  /// Marks `op` as a member of point-to-point group `group`: the sends and
  /// receives of one permute are issued together (one nccl.group).
  void joinGroup(Operation *op, IntegerAttr group) {
    DTensorDialect::P2pGroupAttrHelper(b.getContext()).setAttr(op, group);
  }

  SmallVector<int64_t> allAxes() {
    return llvm::to_vector(llvm::seq<int64_t>(0, p.meshShape.size()));
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
  shard::ReductionKindAttr reduction(ReduceOp op) {
    return shard::ReductionKindAttr::get(b.getContext(), toShardReduction(op));
  }

  OpBuilder &b;
  Location loc;
  FlatSymbolRefAttr grid;
  const plan::Problem &p;
  IRArith a;
  SmallVector<Value> coords;
};

Value PlanEmitter::emit(const plan::Step &step, const plan::State &before,
                        const plan::State &after, Value x) {
  // Groups of one device need no communication; neither does a permute in
  // which only size-1 axes change roles (every rank keeps its block).
  if (groupSize(p.meshShape, step.axes) == 1)
    return x;
  switch (step.kind) {
  case plan::Step::AllGather:
    return emitAllGather(step, before, after, x);
  case plan::Step::AllReduce:
    return shard::AllReduceOp::create(b, loc, x.getType(), grid,
                                      axesAttr(step.axes), x,
                                      reduction(step.reduceOp));
  case plan::Step::ReduceScatter:
    return emitReduceScatter(step, before, after, x);
  case plan::Step::AllToAll:
    return emitAllToAll(step, before, after, x);
  case plan::Step::Chunk:
    return emitChunk(step, before, x);
  case plan::Step::Fill:
    return emitFill(step, after, x);
  case plan::Step::Permute:
    return emitPermute(step, before, after, x);
  case plan::Step::MakePartial:
    return emitMakePartial(step, x);
  }
  llvm_unreachable("unknown step");
}

Value PlanEmitter::emitAllGather(const plan::Step &step,
                                 const plan::State &before,
                                 const plan::State &after, Value x) {
  int64_t d = step.dim, n = groupSize(p.meshShape, step.axes);
  OpFoldResult size = localSize(d, after.order[d]);
  int64_t slot = paddedSize(d, before.order[d]);
  Value y = shard::AllGatherOp::create(b, loc, withDim(x, d, n * slot), grid,
                                       axesAttr(step.axes), pad(x, d, slot),
                                       b.getIndexAttr(d));
  return fillsSlots(size, step.axes, slot)
             ? y
             : unpack(y, d, size, step.axes, slot);
}

Value PlanEmitter::emitReduceScatter(const plan::Step &step,
                                     const plan::State &before,
                                     const plan::State &after, Value x) {
  int64_t d = step.dim, n = groupSize(p.meshShape, step.axes);
  OpFoldResult size = localSize(d, before.order[d]);
  int64_t slot = paddedSize(d, after.order[d]);
  Value packed = fillsSlots(size, step.axes, slot)
                     ? castDim(x, d, n * slot)
                     : pack(x, d, size, step.axes, slot);
  Value y = shard::ReduceScatterOp::create(
      b, loc, withDim(packed, d, slot), grid, axesAttr(step.axes), packed,
      reduction(step.reduceOp), b.getIndexAttr(d));
  return trim(y, d, localSize(d, after.order[d]), slot);
}

Value PlanEmitter::emitAllToAll(const plan::Step &step,
                                const plan::State &before,
                                const plan::State &after, Value x) {
  ArrayRef<int64_t> axes = step.axes;
  int64_t d = step.dim, d2 = step.dstDim, n = groupSize(p.meshShape, axes);
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

Value PlanEmitter::emitChunk(const plan::Step &step, const plan::State &before,
                             Value x) {
  int64_t d = step.dim, n = groupSize(p.meshShape, step.axes);
  OpFoldResult size = localSize(d, before.order[d]);
  if (auto s = a.constant(size); s && *s % n == 0)
    return shard::AllSliceOp::create(b, loc, withDim(x, d, *s / n), grid,
                                     axesAttr(step.axes), x, b.getIndexAttr(d));
  auto [offset, length] = chunk(a, size, n, coord(step.axes.front()));
  return slice(x, d, offset, length);
}

/// This rank's block at its offset in the unsplit dim; the reduction's
/// identity elsewhere. No communication.
Value PlanEmitter::emitFill(const plan::Step &step, const plan::State &after,
                            Value x) {
  int64_t d = step.dim, n = groupSize(p.meshShape, step.axes);
  OpFoldResult size = localSize(d, after.order[d]);
  OpFoldResult offset = chunk(a, size, n, coord(step.axes.front())).first;
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  sizes[d] = size;
  Value out = filled(sizes, type.getElementType(),
                     identityAttr(type.getElementType(), step.reduceOp));
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, a.cst(0)), strides(rank, a.cst(1));
  offsets[d] = offset;
  return hp::insertSlice(b, loc, x, out, offsets,
                         tensor::getMixedSizes(b, loc, x), strides);
}

Value PlanEmitter::emitPermute(const plan::Step &step,
                               const plan::State &before,
                               const plan::State &after, Value x) {
  auto above1 = [](int64_t v) { return v > 1; };
  if (llvm::any_of(step.refine, above1) || llvm::any_of(step.merge, above1))
    return subBlockPermute(before, after, step.refine, step.merge, x);
  // One send of this rank's block to the device that needs it, one receive
  // of the block this rank needs, in one point-to-point group
  // (convert-shard-to-nccl issues it as one nccl.group).
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<OpFoldResult> sizes;
  for (int64_t k = 0, e = type.getRank(); k < e; ++k)
    sizes.push_back(localSize(k, after.order[k]));
  IntegerAttr group = newP2PGroup();
  auto [toStatic, toDynamic] = mixedIndex(peer(after, before));
  auto send = shard::SendOp::create(b, loc, type, grid, axesAttr(allAxes()), x,
                                    toStatic, toDynamic);
  joinGroup(send, group);
  Value into = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
  auto [fromStatic, fromDynamic] = mixedIndex(peer(before, after));
  auto recv =
      shard::RecvOp::create(b, loc, into.getType(), grid, axesAttr(allAxes()),
                            into, fromStatic, fromDynamic);
  joinGroup(recv, group);
  return recv->getResult(0);
}

Value PlanEmitter::emitMakePartial(const plan::Step &step, Value x) {
  ReduceOp op = step.reduceOp;
  if (op != ReduceOp::Sum && op != ReduceOp::Prod)
    return x; // avg, max and min of copies are the value itself.
  // Coordinate 0 keeps the value; the others hold the reduction's identity,
  // which is exact for every dtype (torch divides by n instead).
  TypedAttr identity = op == ReduceOp::Sum ? zeroOf(x) : oneOf(x);
  Value other =
      filled(tensor::getMixedSizes(b, loc, x),
             cast<RankedTensorType>(x.getType()).getElementType(), identity);
  Value isFirst =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                            a.val(coord(step.axes.front())), a.val(a.cst(0)));
  return arith::SelectOp::create(b, loc, isFirst, x, other);
}

} // namespace

Value hp::dtensor::emitRedistribute(OpBuilder &b, Location loc,
                                    FlatSymbolRefAttr grid,
                                    const plan::Problem &problem,
                                    const plan::Plan &plan, Value local) {
  PlanEmitter emitter(b, loc, grid, problem);
  for (auto [i, step] : llvm::enumerate(plan.steps))
    local = emitter.emit(step, plan.states[i], plan.states[i + 1], local);
  return local;
}
