//===- Layout.h - which block of a global tensor each device holds -*- C++ -*-===//
//
// The layout model: the one place that says which slice of a global tensor
// each mesh coordinate holds, how a group of devices along some mesh axes is
// ordered, and which piece of a split each member owns. The verifier's local
// types, the planner's padding and the code the redistribute conversion emits
// all come from here. Free of MLIR IR types. Every query costs O(mesh rank),
// never O(devices).
//
// A layout is described per mesh dim by the tensor dim it shards, or
// kNotSharded (replicate / partial). Splits follow torch.chunk: `size`
// elements in `parts` parts have chunk `ceil(size/parts)`, coordinate `i`
// holds `clamp(size - i*chunk, 0, chunk)`. Several mesh dims sharding one
// tensor dim nest in mesh-dim order: mesh dim 0 is the outermost split.
//
//===----------------------------------------------------------------------===//

#ifndef HP_DIALECT_DTENSOR_UTILS_LOCALSHAPE_H
#define HP_DIALECT_DTENSOR_UTILS_LOCALSHAPE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <utility>

namespace hp::dtensor {

/// Same value as mlir::ShapedType::kDynamic, kept free of MLIR headers.
inline constexpr int64_t kDynamicSize = std::numeric_limits<int64_t>::min();
inline constexpr int64_t kNotSharded = -1;

/// Limits the verifier enforces, so that layout arithmetic cannot overflow:
/// a mesh has at most 2^31 - 1 devices (NCCL ranks are 32-bit ints), and a
/// global dim at most 2^48 elements.
inline constexpr int64_t kMaxDevices = std::numeric_limits<int32_t>::max();
inline constexpr int64_t kMaxDimSize = int64_t(1) << 48;

/// torch.chunk chunk length of `size` in `parts` parts.
int64_t chunkLength(int64_t size, int64_t parts);
/// Elements coordinate `coord` holds when `size` is split in `parts` parts.
int64_t chunkSize(int64_t size, int64_t parts, int64_t coord);
/// Offset of coordinate `coord`'s chunk (clamped to `size` when empty).
int64_t chunkOffset(int64_t size, int64_t parts, int64_t coord);

/// The block of the global tensor held at one mesh coordinate.
struct LocalBlock {
  llvm::SmallVector<int64_t> sizes;
  llvm::SmallVector<int64_t> offsets;
};

/// Sizes and offsets at mesh coordinate `coord`. `shardDims[m]` is the tensor
/// dim mesh dim `m` shards, or kNotSharded. The global shape must be static.
LocalBlock computeLocalBlock(llvm::ArrayRef<int64_t> globalShape,
                             llvm::ArrayRef<int64_t> meshShape,
                             llvm::ArrayRef<int64_t> shardDims,
                             llvm::ArrayRef<int64_t> coord);

/// The local shape common to all coordinates: a dim is kDynamicSize when its
/// size differs across coordinates or the global dim is dynamic and split.
llvm::SmallVector<int64_t> computeLocalShape(llvm::ArrayRef<int64_t> globalShape,
                                             llvm::ArrayRef<int64_t> meshShape,
                                             llvm::ArrayRef<int64_t> shardDims);

/// Largest local size of each dim over all coordinates: the padded extent a
/// collective uses for uneven splits. Dynamic global dims stay dynamic.
llvm::SmallVector<int64_t>
computeMaxLocalShape(llvm::ArrayRef<int64_t> globalShape,
                     llvm::ArrayRef<int64_t> meshShape,
                     llvm::ArrayRef<int64_t> shardDims);

/// The sizes of the largest block after splitting each dim by its split axes
/// in the given order (`splits[d]`, outermost first), as collectives pad.
llvm::SmallVector<int64_t>
computePaddedShape(llvm::ArrayRef<int64_t> globalShape,
                   llvm::ArrayRef<int64_t> meshShape,
                   llvm::ArrayRef<llvm::SmallVector<int64_t, 4>> splits);

/// The block at `coord` when dim d is split by `splits[d]` (outermost first).
LocalBlock computeSplitBlock(llvm::ArrayRef<int64_t> globalShape,
                             llvm::ArrayRef<int64_t> meshShape,
                             llvm::ArrayRef<llvm::SmallVector<int64_t, 4>> splits,
                             llvm::ArrayRef<int64_t> coord);

/// Per tensor dim, the mesh dims that split it, outermost first, when mesh
/// dim `m` shards tensor dim `shardDims[m]` (or kNotSharded) and is strided
/// where `strided[m]`: read right to left, a shard splits outside the later
/// mesh dims sharding its tensor dim, a strided_shard inside them.
llvm::SmallVector<llvm::SmallVector<int64_t, 4>, 4>
nestingOrder(llvm::ArrayRef<int64_t> shardDims, llvm::ArrayRef<bool> strided,
             int64_t tensorRank);

/// Largest piece of `size` split over `axes` in nested order.
int64_t paddedPiece(int64_t size, llvm::ArrayRef<int64_t> meshShape,
                    llvm::ArrayRef<int64_t> axes);

/// Devices in a group along `axes`: the member index of `coord` is row-major
/// over the axes in the listed order (the first listed axis is outermost).
int64_t groupSize(llvm::ArrayRef<int64_t> meshShape,
                  llvm::ArrayRef<int64_t> axes);
int64_t groupIndex(llvm::ArrayRef<int64_t> coord,
                   llvm::ArrayRef<int64_t> meshShape,
                   llvm::ArrayRef<int64_t> axes);
/// The coordinate of member `index` of `coord`'s group along `axes`.
llvm::SmallVector<int64_t> groupMember(llvm::ArrayRef<int64_t> coord,
                                       llvm::ArrayRef<int64_t> meshShape,
                                       llvm::ArrayRef<int64_t> axes,
                                       int64_t index);

/// torch.chunk over any integer arithmetic `A`: int64_t (IntArith below) or
/// values an IR builder creates at compile time for run-time sizes. `A`
/// provides `Value`, cst, constant (the value if known), add, sub, mul, min,
/// max and ceilDiv(Value, int64_t).
template <typename A>
std::pair<typename A::Value, typename A::Value>
chunk(A &a, typename A::Value size, int64_t parts, typename A::Value index) {
  // Even splits have one length whatever the index.
  if (std::optional<int64_t> s = a.constant(size); s && *s % parts == 0)
    return {a.mul(index, a.cst(*s / parts)), a.cst(*s / parts)};
  typename A::Value c = a.ceilDiv(size, parts);
  typename A::Value start = a.min(a.mul(index, c), size);
  return {start, a.max(a.cst(0), a.min(c, a.sub(size, start)))};
}

/// Offset and length of the piece with per-axis indices `digits` when `size`
/// is split over axes of sizes `parts` in nested order (outermost first).
template <typename A>
std::pair<typename A::Value, typename A::Value>
nestedPiece(A &a, typename A::Value size, llvm::ArrayRef<int64_t> parts,
            llvm::ArrayRef<typename A::Value> digits) {
  typename A::Value offset = a.cst(0), length = size;
  for (auto [n, digit] : llvm::zip_equal(parts, digits)) {
    auto [o, l] = chunk(a, length, n, digit);
    offset = a.add(offset, o);
    length = l;
  }
  return {offset, length};
}

/// Plain int64_t arithmetic for the templates above.
struct IntArith {
  using Value = int64_t;
  Value cst(int64_t v) { return v; }
  std::optional<int64_t> constant(Value v) { return v; }
  Value add(Value x, Value y) { return x + y; }
  Value sub(Value x, Value y) { return x - y; }
  Value mul(Value x, Value y) { return x * y; }
  Value min(Value x, Value y) { return x < y ? x : y; }
  Value max(Value x, Value y) { return x < y ? y : x; }
  Value ceilDiv(Value x, int64_t n) { return x / n + (x % n != 0); }
};

/// Row-major mesh coordinate of a linear index, and back.
llvm::SmallVector<int64_t> delinearize(int64_t linear,
                                       llvm::ArrayRef<int64_t> meshShape);
int64_t linearize(llvm::ArrayRef<int64_t> coord,
                  llvm::ArrayRef<int64_t> meshShape);

} // namespace hp::dtensor

#endif // HP_DIALECT_DTENSOR_UTILS_LOCALSHAPE_H
