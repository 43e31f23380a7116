//===- ShardToNCCL.cpp - shard collectives -> nccl ops on buffers ---------===//
//
// Collectives stay on tensors around the call: the input goes to a buffer
// with bufferization.to_buffer, NCCL writes a fresh allocation, and
// bufferization.to_tensor brings the result back, so one-shot bufferization
// runs afterwards as usual. NCCL works on the leading dimension in rank
// order; other axes are moved to the front with linalg.transpose and back.
//
// The pass is one dialect conversion after which no shard op is left; what
// hp cannot lower is reported, located, before it (hp::checkNCCLLowerable,
// NCCLMapping.cpp), so the patterns take their ops as given. The grids, which
// the patterns read, become nccl.grids last.
//
//===----------------------------------------------------------------------===//

#include "hp/Conversion/Passes.h"

#include "Emitter.h"
#include "NCCLMapping.h"
#include "ShardQueries.h"

#include "hp/Dialect/DTensor/IR/DTensor.h"
#include "hp/Dialect/DTensor/Layout/Layout.h"
#include "hp/Support/IRArith.h"
#include "hp/Support/Slices.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Shard/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/MapVector.h"

namespace hp {
#define GEN_PASS_DEF_CONVERTSHARDTONCCL
#include "hp/Conversion/Passes.h.inc"
} // namespace hp

using namespace mlir;
using namespace hp::nccl;
using hp::accumulatorType;
using hp::toRedOp;
using hp::shardtonccl::Emitter;

namespace {

SmallVector<int64_t> toI64(ArrayRef<int16_t> axes) {
  return SmallVector<int64_t>(axes.begin(), axes.end());
}

/// Members of the group along `axes` (the layout model's group), or
/// kDynamic when one of the axes has a dynamic size.
int64_t groupSize(Operation *op, FlatSymbolRefAttr gridName,
                  ArrayRef<int16_t> axes) {
  auto grid = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(op, gridName);
  return shard::collectiveProcessGroupSize(axes, grid);
}

/// The group size as an IR value: a constant, or asked of the communicator
/// on a grid whose axes are sized at launch.
OpFoldResult groupSize(Emitter &e, Operation *op, FlatSymbolRefAttr grid,
                       ArrayRef<int16_t> axes) {
  int64_t n = groupSize(op, grid, axes);
  if (!ShapedType::isDynamic(n))
    return e.b.getIndexAttr(n);
  return CommSizeOp::create(e.b, e.loc, e.b.getIndexType(), e.comm(grid, axes))
      .getResult();
}

/// The concatenation along `axis` of every group member's `input`.
Value emitAllGather(Emitter &e, Operation *op, FlatSymbolRefAttr grid,
                    ArrayRef<int16_t> axes, Value input, int64_t axis) {
  auto type = cast<RankedTensorType>(input.getType());
  OpFoldResult n = groupSize(e, op, grid, axes);
  auto perm = Emitter::frontPerm(type.getRank(), axis);
  Value front = e.transpose(input, perm);
  SmallVector<OpFoldResult> recvSizes = e.sizes(front);
  recvSizes[0] = e.mul(recvSizes[0], n);
  Value recv = e.alloc(recvSizes, type.getElementType());
  AllGatherOp::create(e.b, e.loc, e.toBuffer(front), recv, e.comm(grid, axes));
  return e.transpose(e.toTensor(recv), invertPermutationVector(perm));
}

/// The elementwise reduction of `input` over the group.
Value emitAllReduce(Emitter &e, FlatSymbolRefAttr grid, ArrayRef<int16_t> axes,
                    Value input, RedOp red) {
  Value recv = e.allocLike(input);
  AllReduceOp::create(e.b, e.loc, e.toBuffer(input), recv, e.comm(grid, axes),
                      red);
  return e.toTensor(recv);
}

/// `t` with every element converted to `to` (a copy only when they differ).
Value convertElements(Emitter &e, Value t, Type to) {
  auto type = cast<RankedTensorType>(t.getType());
  if (type.getElementType() == to)
    return t;
  Value init = tensor::EmptyOp::create(e.b, e.loc, e.sizes(t), to);
  return linalg::MapOp::create(
             e.b, e.loc, ValueRange{t}, init,
             [&](OpBuilder &b, Location loc, ValueRange args) {
               linalg::YieldOp::create(
                   b, loc,
                   convertScalarToDtype(b, loc, args[0], to,
                                        /*isUnsignedCast=*/false));
             })
      .getResult()[0];
}

/// all_reduce and reduce: reduce in the accumulator type, then convert to
/// the result's element type.
Value emitReduction(Emitter &e, FlatSymbolRefAttr grid, ArrayRef<int16_t> axes,
                    Value input, Type resultType, RedOp red) {
  Type acc = accumulatorType(input.getType(), resultType);
  Value reduced =
      emitAllReduce(e, grid, axes, convertElements(e, input, acc), red);
  return convertElements(e, reduced, getElementTypeOrSelf(resultType));
}

/// This rank's block along `axis` when `input` is split evenly over the
/// group (in-group rank order).
Value emitOwnBlock(Emitter &e, Operation *op, FlatSymbolRefAttr grid,
                   ArrayRef<int16_t> axes, Value input, int64_t axis) {
  OpFoldResult n = groupSize(e, op, grid, axes);
  Value index =
      CommRankOp::create(e.b, e.loc, e.b.getIndexType(), e.comm(grid, axes));
  SmallVector<OpFoldResult> sizes = e.sizes(input);
  OpFoldResult size = e.div(sizes[axis], n);
  SmallVector<OpFoldResult> offsets(sizes.size(), e.b.getIndexAttr(0)),
      strides(sizes.size(), e.b.getIndexAttr(1));
  offsets[axis] =
      arith::MulIOp::create(e.b, e.loc, index,
                            getValueOrCreateConstantIndexOp(e.b, e.loc, size))
          .getResult();
  sizes[axis] = size;
  return hp::extractSlice(e.b, e.loc, input, offsets, sizes, strides);
}

/// Row-major linear index of an in-group multi-index over `axes`.
std::optional<int64_t> linearInGroup(Operation *op, FlatSymbolRefAttr gridName,
                                     ArrayRef<int16_t> axes,
                                     ArrayRef<int64_t> index) {
  auto grid = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(op, gridName);
  if (index.size() != axes.size() || llvm::any_of(index, ShapedType::isDynamic))
    return std::nullopt;
  // The member index the layout model gives a coordinate with `index` on
  // the group's axes (row-major in the listed order).
  SmallVector<int64_t> coord(grid.getRank(), 0);
  for (auto [a, i] : llvm::zip(axes, index))
    coord[a] = i;
  return hp::dtensor::groupIndex(coord, grid.getShape(), toI64(axes));
}

/// A shard op whose one result `lower` computes; the value is cast to the
/// op's declared type where the shapes agree but the types differ.
template <typename OpTy> struct ValueLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using Adaptor = typename OpTy::Adaptor;
  /// The op's value from its attributes (`op`) and its converted operands
  /// (`a`).
  virtual Value lower(OpTy op, Adaptor a, Emitter &e) const = 0;
  /// Whether `lower` handles `op`; the pass checks the same beforehand with
  /// a diagnostic, but the patterns are public (populateShardToNCCLPatterns)
  /// and must not assume it.
  virtual bool handles(OpTy op) const { return true; }
  LogicalResult matchAndRewrite(OpTy op, Adaptor a,
                                ConversionPatternRewriter &b) const final {
    if (!handles(op))
      return b.notifyMatchFailure(op, "a reduction NCCL does not have");
    Emitter e(b, op.getLoc());
    b.replaceOp(op, e.castTo(lower(op, a, e), op.getType()));
    return success();
  }
};

/// all_gather, and gather: the root's result is the all_gather's; elsewhere
/// it is undefined, so every rank may as well hold it.
template <typename OpTy> struct GatherLowering : ValueLowering<OpTy> {
  using ValueLowering<OpTy>::ValueLowering;
  Value lower(OpTy op, typename OpTy::Adaptor a, Emitter &e) const override {
    return emitAllGather(e, op, op.getGridAttr(), op.getGridAxes(),
                         a.getInput(), op.getGatherAxis().getSExtValue());
  }
};

/// reduce: likewise an all_reduce, defined on the root and elsewhere.
struct ReduceLowering : ValueLowering<shard::ReduceOp> {
  using ValueLowering::ValueLowering;
  bool handles(shard::ReduceOp op) const override {
    return toRedOp(op.getReduction()).has_value();
  }
  Value lower(shard::ReduceOp op, shard::ReduceOp::Adaptor a,
              Emitter &e) const override {
    return emitReduction(e, op.getGridAttr(), op.getGridAxes(), a.getInput(),
                         op.getType(), *toRedOp(op.getReduction()));
  }
};

/// The in-group rank of a static or dynamic multi-index, as an index value.
Value inGroupRank(Emitter &e, Operation *op, FlatSymbolRefAttr gridName,
                  ArrayRef<int16_t> axes, ArrayRef<int64_t> staticIndex,
                  ValueRange dynamicIndex) {
  SmallVector<Value> index;
  for (OpFoldResult i :
       getMixedValues(staticIndex, dynamicIndex, e.b.getContext()))
    index.push_back(e.value(i));
  SmallVector<OpFoldResult> sizes;
  for (int16_t a : axes)
    sizes.push_back(groupSize(e, op, gridName, {a}));
  return affine::AffineLinearizeIndexOp::create(e.b, e.loc, index, sizes);
}

/// The root's input on every rank of the group (broadcast and scatter). A
/// root known at compile time on static axes is a constant; otherwise its
/// in-group rank is computed at run time (ncclBroadcast takes it as an
/// argument).
template <typename OpTy>
Value emitBroadcast(Emitter &e, OpTy op, typename OpTy::Adaptor a) {
  auto grid =
      SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(op, op.getGridAttr());
  // On one axis the in-group index is the coordinate, whatever the size.
  bool staticAxes = op.getGridAxes().size() <= 1 ||
                    llvm::none_of(op.getGridAxes(), [&](int16_t a) {
                      return ShapedType::isDynamic(grid.getShape()[a]);
                    });
  std::optional<int64_t> root =
      staticAxes
          ? linearInGroup(op, op.getGridAttr(), op.getGridAxes(), op.getRoot())
          : std::nullopt;
  Value recv = e.allocLike(a.getInput());
  Value send = e.toBuffer(a.getInput());
  Value comm = e.comm(op.getGridAttr(), op.getGridAxes());
  if (root) {
    BroadcastOp::create(e.b, e.loc, send, recv, comm,
                        e.b.getI64IntegerAttr(*root), Value());
  } else {
    Value dynamic = inGroupRank(e, op, op.getGridAttr(), op.getGridAxes(),
                                op.getRoot(), a.getRootDynamic());
    BroadcastOp::create(e.b, e.loc, send, recv, comm, IntegerAttr(), dynamic);
  }
  return e.toTensor(recv);
}

struct BroadcastLowering : ValueLowering<shard::BroadcastOp> {
  using ValueLowering::ValueLowering;
  Value lower(shard::BroadcastOp op, shard::BroadcastOp::Adaptor a,
              Emitter &e) const override {
    return emitBroadcast(e, op, a);
  }
};

/// scatter: broadcast the root's input, keep this rank's block.
struct ScatterLowering : ValueLowering<shard::ScatterOp> {
  using ValueLowering::ValueLowering;
  Value lower(shard::ScatterOp op, shard::ScatterOp::Adaptor a,
              Emitter &e) const override {
    return emitOwnBlock(e, op, op.getGridAttr(), op.getGridAxes(),
                        emitBroadcast(e, op, a),
                        op.getScatterAxis().getSExtValue());
  }
};

struct SendLowering : ValueLowering<shard::SendOp> {
  using ValueLowering::ValueLowering;
  Value lower(shard::SendOp op, shard::SendOp::Adaptor a,
              Emitter &e) const override {
    Value peer = inGroupRank(e, op, op.getGridAttr(), op.getGridAxes(),
                             op.getDestination(), a.getDestinationDynamic());
    SendOp::create(e.b, e.loc, e.toBuffer(a.getInput()), peer,
                   e.comm(op.getGridAttr(), op.getGridAxes()));
    return a.getInput();
  }
};

struct RecvLowering : ValueLowering<shard::RecvOp> {
  using ValueLowering::ValueLowering;
  Value lower(shard::RecvOp op, shard::RecvOp::Adaptor a,
              Emitter &e) const override {
    Value peer = inGroupRank(e, op, op.getGridAttr(), op.getGridAxes(),
                             *op.getSource(), a.getSourceDynamic());
    Value buffer = e.allocLike(a.getInput());
    RecvOp::create(e.b, e.loc, buffer, peer,
                   e.comm(op.getGridAttr(), op.getGridAxes()));
    return e.toTensor(buffer);
  }
};

/// A send of a buffer to a peer, or a receive into it from the peer.
struct Transfer {
  bool isSend;
  Value buffer, peer;
};

/// One nccl.group of transfers, in order: issued together, a ring or a swap
/// cannot deadlock.
void emitGroup(Emitter &e, Value comm, ArrayRef<Transfer> transfers) {
  auto group = GroupOp::create(e.b, e.loc);
  OpBuilder::InsertionGuard guard(e.b);
  e.b.setInsertionPointToStart(&group.getBody().emplaceBlock());
  for (const Transfer &t : transfers) {
    if (t.isSend)
      SendOp::create(e.b, e.loc, t.buffer, t.peer, comm);
    else
      RecvOp::create(e.b, e.loc, t.buffer, t.peer, comm);
  }
}

/// Sends of (tensor, peer) and receives of a tensor shaped like (tensor,
/// peer), in one group; the received tensors.
SmallVector<Value> emitSendRecvs(Emitter &e, Value comm,
                                 ArrayRef<std::pair<Value, Value>> sends,
                                 ArrayRef<std::pair<Value, Value>> recvs) {
  SmallVector<Transfer> transfers;
  for (auto [input, to] : sends)
    transfers.push_back({true, e.toBuffer(input), to});
  SmallVector<Value> received;
  for (auto [like, from] : recvs) {
    received.push_back(e.allocLike(like));
    transfers.push_back({false, received.back(), from});
  }
  emitGroup(e, comm, transfers);
  return llvm::map_to_vector(received,
                             [&](Value buffer) { return e.toTensor(buffer); });
}

/// shift: a grouped send to coordinate + offset and recv from coordinate -
/// offset along the shift axis. Without `rotate` the edge results are
/// undefined, so wrapping around (one pattern for every rank) is valid and
/// keeps the group free of rank-dependent control flow.
struct ShiftLowering : ValueLowering<shard::ShiftOp> {
  using ValueLowering::ValueLowering;
  Value lower(shard::ShiftOp op, shard::ShiftOp::Adaptor a,
              Emitter &e) const override {
    PatternRewriter &b = e.b;
    int16_t axis = static_cast<int16_t>(op.getShiftAxis().getSExtValue());
    OpFoldResult n = groupSize(e, op, op.getGridAttr(), {axis});
    Value comm = e.comm(op.getGridAttr(), {axis});
    Value me = CommRankOp::create(b, e.loc, b.getIndexType(), comm);
    // The offset modulo n, in [0, n), and n minus it.
    OpFoldResult k, back;
    if (auto cn = getConstantIntValue(n)) {
      int64_t offset = ((op.getOffset() % *cn) + *cn) % *cn;
      k = b.getIndexAttr(offset);
      back = b.getIndexAttr(*cn - offset);
    } else {
      Value off = arith::ConstantIndexOp::create(b, e.loc, op.getOffset());
      Value r = arith::RemSIOp::create(b, e.loc, off, e.value(n));
      Value kv = arith::RemUIOp::create(
          b, e.loc, arith::AddIOp::create(b, e.loc, r, e.value(n)), e.value(n));
      k = kv;
      back = arith::SubIOp::create(b, e.loc, e.value(n), kv).getResult();
    }
    Value to = e.addMod(me, k, n), from = e.addMod(me, back, n);
    Value got =
        emitSendRecvs(e, comm, {{a.getInput(), to}}, {{a.getInput(), from}})
            .front();
    return got;
  }
};

bool isZero(OpFoldResult f) {
  std::optional<int64_t> c = getConstantIntValue(f);
  return c && *c == 0;
}

/// The tensor of an update_halo while its halos are exchanged, one split dim
/// at a time: `offsets` and `sizes` are the core, without the halos of the
/// split dims not yet done.
struct HaloExchange {
  Emitter &e;
  FlatSymbolRefAttr grid;
  Value t;
  SmallVector<OpFoldResult> full, offsets, sizes, strides;

  HaloExchange(Emitter &e, FlatSymbolRefAttr grid, Value t)
      : e(e), grid(grid), t(t), full(e.sizes(t)), offsets(full.size()),
        sizes(full), strides(full.size(), e.b.getIndexAttr(1)) {
    std::fill(offsets.begin(), offsets.end(), e.b.getIndexAttr(0));
  }

  /// A slab of the core `size` rows long along `d`, starting at `at`.
  SmallVector<OpFoldResult> slabOffsets(int64_t d, OpFoldResult at) {
    SmallVector<OpFoldResult> o = offsets;
    o[d] = at;
    return o;
  }
  SmallVector<OpFoldResult> slabSizes(int64_t d, OpFoldResult size) {
    SmallVector<OpFoldResult> s = sizes;
    s[d] = size;
    return s;
  }
  Value slab(int64_t d, OpFoldResult at, OpFoldResult size) {
    return tensor::ExtractSliceOp::create(e.b, e.loc, t, slabOffsets(d, at),
                                          slabSizes(d, size), strides);
  }
  /// `recv` written into the slab at `at` where `keep` holds.
  void place(int64_t d, Value recv, OpFoldResult at, OpFoldResult size,
             Value keep) {
    Value inserted = tensor::InsertSliceOp::create(e.b, e.loc, e.toTensor(recv),
                                                   t, slabOffsets(d, at),
                                                   slabSizes(d, size), strides);
    t = arith::SelectOp::create(e.b, e.loc, keep, inserted, t);
  }

  /// Swaps the `lo` and `hi` halos along `d` with the neighbours one step
  /// down and up in the group of `axes` (one nccl.group), keeping the halo
  /// at the ends of the group.
  void exchange(int64_t d, ArrayRef<int16_t> axes, OpFoldResult lo,
                OpFoldResult hi, OpFoldResult n) {
    PatternRewriter &b = e.b;
    Location loc = e.loc;
    Type element = getElementTypeOrSelf(t.getType());
    Value comm = e.comm(grid, axes);
    Value me = CommRankOp::create(b, loc, b.getIndexType(), comm);
    Value last = arith::SubIOp::create(
        b, loc, e.value(n), arith::ConstantIndexOp::create(b, loc, 1));
    Value down = e.addMod(me, last, n), up = e.addMod(me, b.getIndexAttr(1), n);
    Value sendDown, sendUp, recvUpper, recvLower;
    if (!isZero(hi)) {
      sendDown = e.toBuffer(slab(d, lo, hi));
      recvUpper = e.alloc(slabSizes(d, hi), element);
    }
    if (!isZero(lo)) {
      sendUp = e.toBuffer(slab(d, e.sub(e.sub(full[d], hi), lo), lo));
      recvLower = e.alloc(slabSizes(d, lo), element);
    }
    SmallVector<Transfer> transfers;
    if (sendDown)
      transfers.append({{true, sendDown, down}, {false, recvUpper, up}});
    if (sendUp)
      transfers.append({{true, sendUp, up}, {false, recvLower, down}});
    emitGroup(e, comm, transfers);
    if (recvUpper)
      place(d, recvUpper, e.sub(full[d], hi), hi,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, me, last));
    if (recvLower)
      place(d, recvLower, b.getIndexAttr(0), lo,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt, me,
                                  arith::ConstantIndexOp::create(b, loc, 0)));
  }
};

/// update_halo: each split dim, innermost first, swaps halos with the
/// neighbours one step down and up in the group of its split axes. A rank
/// sends the first `hi` core rows down (they are the down neighbour's upper
/// halo) and the last `lo` core rows up, and receives its upper halo from up
/// and its lower halo from down. Slabs of a later (outer) dim span the
/// halos of the dims already done, so corners arrive too. Like shift, the
/// exchange wraps around, one pattern for every rank of the group, and the
/// ranks at either end keep the halo they have (upstream: no neighbour).
struct UpdateHaloLowering : ValueLowering<shard::UpdateHaloOp> {
  using ValueLowering::ValueLowering;
  Value lower(shard::UpdateHaloOp op, shard::UpdateHaloOp::Adaptor a,
              Emitter &e) const override {
    PatternRewriter &b = e.b;
    Value dest = a.getDestination();
    auto memrefType = dyn_cast<MemRefType>(dest.getType());
    Value t = dest;
    if (memrefType)
      t = bufferization::ToTensorOp::create(
          b, e.loc,
          RankedTensorType::get(memrefType.getShape(),
                                memrefType.getElementType()),
          dest, /*restrict=*/b.getUnitAttr(), /*writable=*/b.getUnitAttr());
    int64_t rank = cast<RankedTensorType>(t.getType()).getRank();
    auto splitAxes = op.getSplitAxes().getAxes();
    SmallVector<int64_t> splitDims;
    for (int64_t d = 0; d < rank && d < static_cast<int64_t>(splitAxes.size());
         ++d)
      if (!splitAxes[d].empty())
        splitDims.push_back(d);
    SmallVector<OpFoldResult> halos;
    for (OpFoldResult h : getMixedValues(op.getStaticHaloSizes(),
                                         a.getHaloSizes(), b.getContext())) {
      if (auto v = dyn_cast<Value>(h))
        h = arith::IndexCastOp::create(b, e.loc, b.getIndexType(), v)
                .getResult();
      halos.push_back(h);
    }

    HaloExchange x(e, op.getGridAttr(), t);
    for (auto [k, d] : llvm::enumerate(splitDims)) {
      x.offsets[d] = halos[2 * k];
      x.sizes[d] = e.sub(e.sub(x.full[d], halos[2 * k]), halos[2 * k + 1]);
    }
    for (int64_t k = static_cast<int64_t>(splitDims.size()) - 1; k >= 0; --k) {
      int64_t d = splitDims[k];
      OpFoldResult lo = halos[2 * k], hi = halos[2 * k + 1];
      ArrayRef<int16_t> axes = splitAxes[d].asArrayRef();
      OpFoldResult n = groupSize(e, op, op.getGridAttr(), axes);
      std::optional<int64_t> staticN = getConstantIntValue(n);
      if (!(staticN && *staticN == 1) && !(isZero(lo) && isZero(hi)))
        x.exchange(d, axes, lo, hi, n);
      x.offsets[d] = b.getIndexAttr(0);
      x.sizes[d] = x.full[d];
    }
    if (!memrefType)
      return x.t;
    bufferization::MaterializeInDestinationOp::create(b, e.loc, x.t, dest)
        .setWritable(true);
    return dest;
  }
};

struct ReduceScatterLowering : ValueLowering<shard::ReduceScatterOp> {
  using ValueLowering::ValueLowering;
  bool handles(shard::ReduceScatterOp op) const override {
    return toRedOp(op.getReduction()).has_value();
  }
  Value lower(shard::ReduceScatterOp op, shard::ReduceScatterOp::Adaptor a,
              Emitter &e) const override {
    PatternRewriter &b = e.b;
    RedOp red = *toRedOp(op.getReduction());
    int64_t axis = op.getScatterAxis().getSExtValue();
    int64_t rank = cast<RankedTensorType>(a.getInput().getType()).getRank();
    OpFoldResult n = groupSize(e, op, op.getGridAttr(), op.getGridAxes());
    auto perm = Emitter::frontPerm(rank, axis);
    Type acc = accumulatorType(a.getInput().getType(), op.getType());
    Value front = e.transpose(convertElements(e, a.getInput(), acc), perm);
    SmallVector<OpFoldResult> recvSizes = e.sizes(front);
    recvSizes[0] = e.div(recvSizes[0], n);
    Value recv = e.alloc(recvSizes, acc);
    ReduceScatterOp::create(b, e.loc, e.toBuffer(front), recv,
                            e.comm(op.getGridAttr(), op.getGridAxes()), red);
    Value result =
        e.transpose(convertElements(e, e.toTensor(recv),
                                    getElementTypeOrSelf(op.getType())),
                    invertPermutationVector(perm));
    return result;
  }
};

struct AllReduceLowering : ValueLowering<shard::AllReduceOp> {
  using ValueLowering::ValueLowering;
  bool handles(shard::AllReduceOp op) const override {
    return toRedOp(op.getReduction()).has_value();
  }
  Value lower(shard::AllReduceOp op, shard::AllReduceOp::Adaptor a,
              Emitter &e) const override {
    PatternRewriter &b = e.b;
    RedOp red = *toRedOp(op.getReduction());
    if (auto memrefType = dyn_cast<MemRefType>(a.getInput().getType())) {
      Value comm = e.comm(op.getGridAttr(), op.getGridAxes());
      Type acc = accumulatorType(memrefType, op.getType());
      // Buffers in, buffers out: reduce into a fresh allocation, converting
      // into and out of the accumulator type where it differs.
      SmallVector<Value> dynamic;
      for (int64_t d = 0; d < memrefType.getRank(); ++d)
        if (memrefType.isDynamicDim(d))
          dynamic.push_back(memref::DimOp::create(b, e.loc, a.getInput(), d));
      auto allocOf = [&](Type element) -> Value {
        return memref::AllocOp::create(
            b, e.loc, MemRefType::get(memrefType.getShape(), element), dynamic);
      };
      auto convertInto = [&](Value from, Value to, Type element) {
        linalg::MapOp::create(
            b, e.loc, ValueRange{from}, to,
            [&](OpBuilder &nb, Location loc, ValueRange args) {
              linalg::YieldOp::create(
                  nb, loc,
                  convertScalarToDtype(nb, loc, args[0], element, false));
            });
      };
      Value send = a.getInput();
      if (memrefType.getElementType() != acc) {
        send = allocOf(acc);
        convertInto(a.getInput(), send, acc);
      }
      Value reduced = allocOf(acc);
      AllReduceOp::create(b, e.loc, send, reduced, comm, red);
      Type out = getElementTypeOrSelf(op.getType());
      Value result = reduced;
      if (out != acc) {
        result = allocOf(out);
        convertInto(reduced, result, out);
      }
      return result;
    }
    Value result = emitReduction(e, op.getGridAttr(), op.getGridAxes(),
                                 a.getInput(), op.getType(), red);
    return result;
  }
};

struct AllToAllLowering : ValueLowering<shard::AllToAllOp> {
  using ValueLowering::ValueLowering;
  Value lower(shard::AllToAllOp op, shard::AllToAllOp::Adaptor a,
              Emitter &e) const override {
    PatternRewriter &b = e.b;
    int64_t split = op.getSplitAxis().getSExtValue();
    int64_t concat = op.getConcatAxis().getSExtValue();
    auto inType = cast<RankedTensorType>(a.getInput().getType());
    int64_t rank = inType.getRank();
    OpFoldResult n = groupSize(e, op, op.getGridAttr(), op.getGridAxes());

    // Send: split axis leading, so block j (rows j*P ...) goes to rank j.
    auto perm = Emitter::frontPerm(rank, split);
    Value front = e.transpose(a.getInput(), perm);
    Value recv = e.allocLike(front);
    AllToAllOp::create(b, e.loc, e.toBuffer(front), recv,
                       e.comm(op.getGridAttr(), op.getGridAxes()));
    Value got = e.toTensor(recv);
    // A run-time number of blocks: one reshape into two dynamic extents is
    // more than upstream's buffer lowering takes (expand-strided-metadata
    // crashes on it), so the blocks are placed by index arithmetic: result
    // element (.., p on split, j*C + c on concat, ..) is received row
    // j*P + p, column c.
    if (!getConstantIntValue(n)) {
      SmallVector<OpFoldResult> sizes = e.sizes(a.getInput());
      OpFoldResult blockRows = e.div(sizes[split], n);
      OpFoldResult blockCols = sizes[concat];
      sizes[split] = blockRows;
      sizes[concat] = e.mul(sizes[concat], n);
      SmallVector<int64_t> shape;
      SmallVector<Value> dynamic;
      dispatchIndexOpFoldResults(sizes, dynamic, shape);
      Value result = tensor::GenerateOp::create(
          b, e.loc, RankedTensorType::get(shape, inType.getElementType()),
          dynamic, [&](OpBuilder &nb, Location nl, ValueRange idx) {
            Value cols = getValueOrCreateConstantIndexOp(nb, nl, blockCols);
            Value rows = getValueOrCreateConstantIndexOp(nb, nl, blockRows);
            Value j = arith::DivUIOp::create(nb, nl, idx[concat], cols);
            Value c = arith::RemUIOp::create(nb, nl, idx[concat], cols);
            SmallVector<Value> at;
            at.push_back(arith::AddIOp::create(
                nb, nl, arith::MulIOp::create(nb, nl, j, rows), idx[split]));
            for (int64_t d = 0; d < rank; ++d)
              if (d != split)
                at.push_back(d == concat ? c : idx[d]);
            tensor::YieldOp::create(
                nb, nl, tensor::ExtractOp::create(nb, nl, got, at).getResult());
          });
      return result;
    }

    // Received blocks, in rank order: [N, P, others...].
    SmallVector<OpFoldResult> gotSizes = e.sizes(got);
    SmallVector<OpFoldResult> expanded = {n, e.div(gotSizes[0], n)};
    expanded.append(gotSizes.begin() + 1, gotSizes.end());
    SmallVector<ReassociationIndices> reassoc = {{0, 1}};
    for (int64_t d = 2; d <= rank; ++d)
      reassoc.push_back({d});
    SmallVector<int64_t> expandedShape;
    SmallVector<Value> unused;
    dispatchIndexOpFoldResults(expanded, unused, expandedShape);
    Value blocks = tensor::ExpandShapeOp::create(
        b, e.loc, RankedTensorType::get(expandedShape, inType.getElementType()),
        got, reassoc, expanded);

    // Labels of `blocks`' dims: -1 for N, then original dims in `perm` order.
    SmallVector<int64_t> labels = {-1};
    labels.append(perm.begin(), perm.end());
    auto position = [&](int64_t label) {
      return std::distance(labels.begin(), llvm::find(labels, label));
    };
    // Original order with N placed just outside the concat dim.
    SmallVector<int64_t> toOriginal;
    for (int64_t d = 0; d < rank; ++d) {
      if (d == concat)
        toOriginal.push_back(position(-1));
      toOriginal.push_back(position(d));
    }
    Value ordered = e.transpose(blocks, toOriginal);
    SmallVector<ReassociationIndices> merge;
    for (int64_t d = 0, i = 0; d < rank; ++d) {
      if (d == concat) {
        merge.push_back({i, i + 1});
        i += 2;
      } else {
        merge.push_back({i++});
      }
    }
    Value result = tensor::CollapseShapeOp::create(b, e.loc, ordered, merge);
    return result;
  }
};

/// all_slice: no communication, this rank keeps its in-group block.
/// (Upstream's lowering slices with run-time sizes, which the slice
/// verifier refuses on an empty dim once they fold; emitOwnBlock's slice
/// takes that case.)
struct AllSliceLowering : ValueLowering<shard::AllSliceOp> {
  using ValueLowering::ValueLowering;
  Value lower(shard::AllSliceOp op, shard::AllSliceOp::Adaptor a,
              Emitter &e) const override {
    return emitOwnBlock(e, op, op.getGridAttr(), op.getGridAxes(), a.getInput(),
                        op.getSliceAxis().getSExtValue());
  }
};

struct ProcessLinearIndexLowering : ValueLowering<shard::ProcessLinearIndexOp> {
  using ValueLowering::ValueLowering;
  Value lower(shard::ProcessLinearIndexOp op,
              shard::ProcessLinearIndexOp::Adaptor a,
              Emitter &e) const override {
    PatternRewriter &b = e.b;
    auto grid = SymbolTable::lookupNearestSymbolFrom<shard::GridOp>(
        op, op.getGridAttr());
    SmallVector<int16_t> all;
    for (int64_t a = 0; a < grid.getRank(); ++a)
      all.push_back(a);
    return CommRankOp::create(b, e.loc, b.getIndexType(),
                              e.comm(op.getGridAttr(), all));
  }
};

/// The sends and receives of one group issued together as one nccl.group at
/// the last receive: a ring or a swap of blocks cannot deadlock.
void lowerP2PGroup(PatternRewriter &b, ArrayRef<shard::SendOp> sends,
                   ArrayRef<shard::RecvOp> recvs) {
  shard::RecvOp last = recvs.back();
  b.setInsertionPoint(last);
  Emitter e(b, last.getLoc());
  SmallVector<std::pair<Value, Value>> outgoing, incoming;
  for (shard::SendOp send : sends)
    outgoing.push_back(
        {send.getInput(),
         inGroupRank(e, send, send.getGridAttr(), send.getGridAxes(),
                     send.getDestination(), send.getDestinationDynamic())});
  for (shard::RecvOp recv : recvs)
    incoming.push_back(
        {recv.getInput(),
         inGroupRank(e, recv, recv.getGridAttr(), recv.getGridAxes(),
                     *recv.getSource(), recv.getSourceDynamic())});
  shard::RecvOp first = recvs.front();
  Value comm = e.comm(first.getGridAttr(), first.getGridAxes());
  SmallVector<Value> got = emitSendRecvs(e, comm, outgoing, incoming);
  for (auto [i, value] : llvm::enumerate(got)) {
    shard::RecvOp recv = recvs[i];
    b.replaceOp(recv, e.castTo(value, recv.getType()));
  }
  for (shard::SendOp send : sends)
    b.replaceOp(send, e.castTo(send.getInput(), send.getType()));
}

/// Whether the members of a marked group can be issued at its last receive:
/// one block, one grid and axes, receives with a static source, every send
/// before that receive and no earlier receive used before it.
bool isIssuableGroup(ArrayRef<shard::SendOp> sends,
                     ArrayRef<shard::RecvOp> recvs) {
  if (recvs.empty())
    return false;
  shard::RecvOp last = recvs.back();
  auto sameGroup = [&](auto op) {
    return op->getBlock() == last->getBlock() &&
           op.getGridAttr() == last.getGridAttr() &&
           op.getGridAxes() == last.getGridAxes();
  };
  for (shard::SendOp send : sends)
    if (!sameGroup(send) || !send->isBeforeInBlock(last))
      return false;
  for (shard::RecvOp recv : recvs) {
    if (!sameGroup(recv) || !recv.getSource())
      return false;
    for (Operation *user : recv->getUsers()) {
      Operation *at = last->getBlock()->findAncestorOpInBlock(*user);
      if (recv != last && (!at || !last->isBeforeInBlock(at)))
        return false;
    }
  }
  return true;
}

/// The groups hp's planner marks (dtensor.p2p_group on the sends and
/// receives of one permute): each becomes one nccl.group, wherever its
/// members sit in their block.
void groupMarkedSendRecvs(Operation *root, llvm::DenseSet<Operation *> &done) {
  hp::dtensor::DTensorDialect::P2pGroupAttrHelper marked(root->getContext());
  llvm::MapVector<
      std::pair<Block *, int64_t>,
      std::pair<SmallVector<shard::SendOp>, SmallVector<shard::RecvOp>>>
      groups;
  root->walk([&](Operation *op) {
    IntegerAttr id = marked.getAttr(op);
    if (!id)
      return;
    auto &group = groups[{op->getBlock(), id.getInt()}];
    if (auto send = dyn_cast<shard::SendOp>(op))
      group.first.push_back(send);
    else if (auto recv = dyn_cast<shard::RecvOp>(op))
      group.second.push_back(recv);
  });
  PatternRewriter b(root->getContext());
  for (auto &[key, group] : groups) {
    auto &[sends, recvs] = group;
    if (!isIssuableGroup(sends, recvs))
      continue;
    for (shard::SendOp send : sends)
      done.insert(send);
    lowerP2PGroup(b, sends, recvs);
  }
}

/// Groups of point-to-point ops issued together. First the groups the
/// planner marks (groupMarkedSendRecvs). Then, for shard IR from elsewhere:
/// a run of unmarked shard.send ops followed by as many shard.recv ops on the
/// same grid axes, with only side-effect-free ops between them, becomes one
/// nccl.group at the last recv; an unpaired send or recv stays alone.
void groupSendRecvPairs(Operation *root) {
  llvm::DenseSet<Operation *> done;
  groupMarkedSendRecvs(root, done);
  SmallVector<shard::SendOp> sends;
  root->walk([&](shard::SendOp op) {
    if (!done.contains(op))
      sends.push_back(op);
  });
  PatternRewriter b(root->getContext());
  // Effect-free ops between the sends and the receives of a group.
  auto skippable = [](Operation *op) {
    return isMemoryEffectFree(op) && op->getNumRegions() == 0;
  };
  for (shard::SendOp first : sends) {
    if (done.contains(first))
      continue;
    // A run of sends, then as many receives on the same grid axes, with
    // only effect-free ops in between.
    SmallVector<shard::SendOp> run = {first};
    SmallVector<shard::RecvOp> recvs;
    Operation *op = first->getNextNode();
    for (; op; op = op->getNextNode()) {
      auto send = dyn_cast<shard::SendOp>(op);
      if (send && send.getGridAttr() == first.getGridAttr() &&
          send.getGridAxes() == first.getGridAxes()) {
        run.push_back(send);
        continue;
      }
      if (isa<shard::RecvOp>(op) || !skippable(op))
        break;
    }
    for (; op && recvs.size() < run.size(); op = op->getNextNode()) {
      if (auto r = dyn_cast<shard::RecvOp>(op)) {
        if (r.getGridAttr() != first.getGridAttr() ||
            r.getGridAxes() != first.getGridAxes() || !r.getSource())
          break;
        recvs.push_back(r);
        continue;
      }
      if (!skippable(op))
        break;
    }
    if (recvs.empty())
      continue;
    // Sends without a receive of their own stay single sends.
    run.resize(std::min(run.size(), recvs.size()));
    for (shard::SendOp send : run)
      done.insert(send);
    lowerP2PGroup(b, run, recvs);
  }
}

/// Each shard.grid whose communicators the collectives now use becomes the
/// nccl.grid of the same name, with its shape and device list; one nothing
/// refers to any more is erased.
void replaceGrids(ModuleOp module) {
  OpBuilder b(module.getContext());
  auto devices =
      hp::dtensor::DTensorDialect::DevicesAttrHelper(module.getContext());
  for (auto grid : llvm::make_early_inc_range(module.getOps<shard::GridOp>())) {
    if (!SymbolTable::symbolKnownUseEmpty(grid, module)) {
      b.setInsertionPoint(grid);
      GridOp::create(b, grid.getLoc(), grid.getSymName(), grid.getShape(),
                     devices.getAttr(grid));
    }
    grid.erase();
  }
}

/// process_multi_index by upstream's lowering, to process_linear_index,
/// grid_shape and arithmetic, which the conversion takes. Only those ops
/// are rewritten; nothing is folded.
LogicalResult lowerByUpstream(ModuleOp module) {
  SmallVector<Operation *> ops;
  module.walk([&](shard::ProcessMultiIndexOp op) { ops.push_back(op); });
  SymbolTableCollection symbolTables;
  RewritePatternSet patterns(module.getContext());
  shard::populateProcessMultiIndexOpLoweringPatterns(patterns, symbolTables);
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingOps)
      .enableFolding(false)
      .enableConstantCSE(false);
  if (failed(applyOpPatternsGreedily(ops, std::move(patterns), config)))
    return failure();
  // The pattern replaces the op's uses and leaves the op, now dead, to a
  // dead-code elimination this strict driver does not run.
  module.walk([](shard::ProcessMultiIndexOp op) {
    if (op->use_empty())
      op->erase();
  });
  return success();
}

struct ConvertShardToNCCLPass
    : hp::impl::ConvertShardToNCCLBase<ConvertShardToNCCLPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    WalkResult unsupported = module.walk([](Operation *op) {
      return failed(hp::checkNCCLLowerable(op)) ? WalkResult::interrupt()
                                                : WalkResult::advance();
    });
    if (unsupported.wasInterrupted())
      return signalPassFailure();
    groupSendRecvPairs(module);
    if (failed(lowerByUpstream(module)))
      return signalPassFailure();

    // No shard op is left but the grids, which the patterns read;
    // !shard.sharding values are dropped wherever they occur.
    TypeConverter converter;
    converter.addConversion([](Type type) { return type; });
    ConversionTarget target(getContext());
    target.addIllegalDialect<shard::ShardDialect>();
    target.addLegalOp<shard::GridOp>();
    target.markUnknownOpDynamicallyLegal([&](Operation *op) {
      if (auto fn = dyn_cast<FunctionOpInterface>(op))
        return converter.isLegal(fn.getArgumentTypes()) &&
               converter.isLegal(fn.getResultTypes());
      return converter.isLegal(op);
    });
    RewritePatternSet patterns(&getContext());
    hp::populateShardToNCCLPatterns(patterns);
    hp::populateShardQueryPatterns(converter, patterns);
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    replaceGrids(module);
  }
};

} // namespace

void hp::populateShardToNCCLPatterns(RewritePatternSet &patterns) {
  patterns.add<GatherLowering<shard::AllGatherOp>, ReduceScatterLowering,
               AllReduceLowering, AllToAllLowering, BroadcastLowering,
               GatherLowering<shard::GatherOp>, ScatterLowering, ReduceLowering,
               SendLowering, RecvLowering, ShiftLowering, UpdateHaloLowering,
               AllSliceLowering, ProcessLinearIndexLowering>(
      patterns.getContext());
}
