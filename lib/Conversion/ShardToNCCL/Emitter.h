//===- Emitter.h - buffer-level code of one collective ----------*- C++ -*-===//
//
// What every shard -> nccl pattern builds with: communicators, tensor <->
// buffer moves, allocations, transposes and the folding index arithmetic.
//
//===----------------------------------------------------------------------===//

#ifndef HP_LIB_CONVERSION_SHARDTONCCL_EMITTER_H
#define HP_LIB_CONVERSION_SHARDTONCCL_EMITTER_H

#include "hp/Dialect/NCCL/IR/NCCL.h"
#include "hp/Support/IRArith.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"

namespace hp::shardtonccl {

using namespace mlir;

/// Builds the buffer-level code of one collective.
class Emitter {
public:
  Emitter(PatternRewriter &b, Location loc) : b(b), loc(loc) {}

  Value comm(FlatSymbolRefAttr grid, ArrayRef<int16_t> axes) {
    return nccl::CommOp::create(b, loc, nccl::CommType::get(b.getContext()),
                                grid, b.getDenseI16ArrayAttr(axes));
  }

  /// The tensor's buffer with a fully dynamic layout, which bufferization
  /// reaches from any buffer by a valid cast; nccl-contiguous-buffers later
  /// stages it if its real layout is not contiguous.
  Value toBuffer(Value tensor) {
    auto t = cast<RankedTensorType>(tensor.getType());
    SmallVector<int64_t> strides(t.getRank(), ShapedType::kDynamic);
    auto layout =
        StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, strides);
    return bufferization::ToBufferOp::create(
        b, loc, MemRefType::get(t.getShape(), t.getElementType(), layout),
        tensor, /*read_only=*/true);
  }

  Value alloc(ArrayRef<OpFoldResult> sizes, Type elementType) {
    SmallVector<int64_t> shape;
    SmallVector<Value> dynamic;
    dispatchIndexOpFoldResults(sizes, dynamic, shape);
    return memref::AllocOp::create(b, loc, MemRefType::get(shape, elementType),
                                   dynamic);
  }

  /// A fresh buffer of `tensor`'s shape and element type.
  Value allocLike(Value tensor) {
    return alloc(sizes(tensor),
                 cast<RankedTensorType>(tensor.getType()).getElementType());
  }

  Value toTensor(Value buffer) {
    auto m = cast<MemRefType>(buffer.getType());
    return bufferization::ToTensorOp::create(
        b, loc, RankedTensorType::get(m.getShape(), m.getElementType()), buffer,
        b.getUnitAttr(), b.getUnitAttr());
  }

  SmallVector<OpFoldResult> sizes(Value tensor) {
    return tensor::getMixedSizes(b, loc, tensor);
  }

  Value transpose(Value t, ArrayRef<int64_t> perm) {
    if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
      return t;
    SmallVector<OpFoldResult> in = sizes(t), out;
    for (int64_t p : perm)
      out.push_back(in[p]);
    Value init = tensor::EmptyOp::create(
        b, loc, out, cast<RankedTensorType>(t.getType()).getElementType());
    return linalg::TransposeOp::create(b, loc, t, init, perm).getResult()[0];
  }

  /// Permutation that moves `axis` to the front, and its inverse.
  static SmallVector<int64_t> frontPerm(int64_t rank, int64_t axis) {
    SmallVector<int64_t> perm = {axis};
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis)
        perm.push_back(d);
    return perm;
  }

  Value value(OpFoldResult a) {
    return getValueOrCreateConstantIndexOp(b, loc, a);
  }
  /// a * n, a / n and a - n: a constant when both are (the layout's
  /// folding index arithmetic).
  OpFoldResult mul(OpFoldResult a, OpFoldResult n) {
    return indexArith().mul(a, n);
  }
  OpFoldResult div(OpFoldResult a, OpFoldResult n) {
    return indexArith().div(a, n);
  }
  OpFoldResult sub(OpFoldResult a, OpFoldResult n) {
    return indexArith().sub(a, n);
  }
  hp::IRArith indexArith() { return hp::IRArith{b, loc}; }
  /// (a + k) mod n for an in-group rank a.
  Value addMod(Value a, OpFoldResult k, OpFoldResult n) {
    Value sum = arith::AddIOp::create(b, loc, a, value(k));
    return arith::RemUIOp::create(b, loc, sum, value(n));
  }

  /// Result tensor cast to the op's declared type where shapes agree.
  Value castTo(Value v, Type type) {
    if (v.getType() == type)
      return v;
    return tensor::CastOp::create(b, loc, type, v);
  }

  PatternRewriter &b;
  Location loc;
};

} // namespace hp::shardtonccl

#endif // HP_LIB_CONVERSION_SHARDTONCCL_EMITTER_H
