//===- Layout.h - which block of a global tensor each device holds -*- C++
//-*-===//
//
// The layout model: the one place that says which slice of a global tensor
// each mesh coordinate holds, how a group of devices along some mesh axes is
// ordered, and which piece of a split each member owns. The verifier's local
// types, the planner's padding and the code the redistribute conversion emits
// all come from here. Free of MLIR IR types. Every query costs O(mesh rank),
// never O(devices).
//
// A layout (struct Layout) is the global shape, the mesh shape and, per
// tensor dim, the mesh axes that split it, outermost first; placements give
// it through the tensor dim each mesh dim shards (kNotSharded for replicate
// and partial), nesting in mesh-dim order unless strided (nestingOrder).
// Splits follow torch.chunk: `size` elements in `parts` parts have chunk
// `ceil(size/parts)`, coordinate `i` holds `clamp(size - i*chunk, 0, chunk)`.
// The arithmetic is generic (chunk, nestedPiece, splitPiece, linearize,
// delinearize): int64_t here, folded index ops in emitted IR (IRArith).
//
//===----------------------------------------------------------------------===//

#ifndef HP_DIALECT_DTENSOR_LAYOUT_LAYOUT_H
#define HP_DIALECT_DTENSOR_LAYOUT_LAYOUT_H

#include "hp/Support/MeshShape.h"

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
inline constexpr int64_t kMaxDevices = hp::kMaxMeshDevices;
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

/// The inverse of nestedPiece: the row-major index of the piece that holds
/// element `q` of a dim of `size` split over `parts` in nested order
/// (outermost first), and `q`'s position in that piece. At each level the
/// piece index is q / chunk, as torch.chunk lays pieces out.
template <typename A>
std::pair<typename A::Value, typename A::Value>
pieceHolding(A &a, typename A::Value size, llvm::ArrayRef<int64_t> parts,
             typename A::Value q) {
  typename A::Value length = size, j = a.cst(0);
  for (int64_t n : parts) {
    typename A::Value c = a.ceilDiv(length, n);
    typename A::Value digit = a.div(q, c);
    q = a.sub(q, a.mul(digit, c));
    length = a.min(c, a.sub(length, a.mul(digit, c)));
    j = a.add(a.mul(j, a.cst(n)), digit);
  }
  return {j, q};
}

/// Offset and length of the piece of a dim of `size` held at mesh
/// coordinate `coord` (one value per mesh axis) when the mesh axes `splits`
/// split it, outermost first.
template <typename A>
std::pair<typename A::Value, typename A::Value>
splitPiece(A &a, typename A::Value size, llvm::ArrayRef<int64_t> meshShape,
           llvm::ArrayRef<int64_t> splits,
           llvm::ArrayRef<typename A::Value> coord) {
  llvm::SmallVector<int64_t, 4> parts;
  llvm::SmallVector<typename A::Value, 4> digits;
  for (int64_t m : splits) {
    parts.push_back(meshShape[m]);
    digits.push_back(coord[m]);
  }
  return nestedPiece(a, size, parts, digits);
}

/// Mixed radix, the first digit most significant (row-major): the number
/// whose digits in `radices` are `digits`, and back. Mesh coordinates, group
/// member indices and nested piece indices are all such numbers.
template <typename A>
typename A::Value linearize(A &a, llvm::ArrayRef<typename A::Value> digits,
                            llvm::ArrayRef<int64_t> radices) {
  typename A::Value v = a.cst(0);
  for (auto [digit, n] : llvm::zip_equal(digits, radices))
    v = a.add(a.mul(v, a.cst(n)), digit);
  return v;
}
template <typename A>
llvm::SmallVector<typename A::Value, 4>
delinearize(A &a, typename A::Value v, llvm::ArrayRef<int64_t> radices) {
  llvm::SmallVector<typename A::Value, 4> digits(radices.size(), a.cst(0));
  for (int64_t i = static_cast<int64_t>(radices.size()) - 1; i >= 0; --i) {
    digits[i] = a.rem(v, a.cst(radices[i]));
    v = a.div(v, a.cst(radices[i]));
  }
  return digits;
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
  Value div(Value x, Value y) { return x / y; }
  Value rem(Value x, Value y) { return x % y; }
  Value ceilDiv(Value x, int64_t n) { return x / n + (x % n != 0); }
};

/// A tensor's layout on a mesh: its global shape, the mesh shape and, per
/// tensor dim, the mesh axes that split it, outermost first. The one block
/// model: the verifier's local types, the planner's padding and the pieces
/// the emitted code computes all come from here.
struct Layout {
  llvm::SmallVector<int64_t, 4> globalShape;
  llvm::SmallVector<int64_t, 4> meshShape;
  llvm::SmallVector<llvm::SmallVector<int64_t, 4>, 4> splits;

  /// Mesh dim `m` shards tensor dim `shardDims[m]` (or kNotSharded), as a
  /// strided shard where `strided[m]` (nestingOrder; none when empty).
  static Layout ofShardDims(llvm::ArrayRef<int64_t> globalShape,
                            llvm::ArrayRef<int64_t> meshShape,
                            llvm::ArrayRef<int64_t> shardDims,
                            llvm::ArrayRef<bool> strided = {});

  /// Offset and length of dim `d` at mesh coordinate `coord`, in any
  /// arithmetic (see chunk). The global dim must be static.
  template <typename A>
  std::pair<typename A::Value, typename A::Value>
  piece(A &a, int64_t d, llvm::ArrayRef<typename A::Value> coord) const {
    return splitPiece(a, a.cst(globalShape[d]), meshShape, splits[d], coord);
  }
  /// The block at `coord`. The global shape must be static.
  LocalBlock block(llvm::ArrayRef<int64_t> coord) const;
  /// The largest piece of every dim: the extent collectives pad uneven
  /// splits to (the first piece of a nested split is the largest). Dynamic
  /// global dims stay dynamic.
  llvm::SmallVector<int64_t> paddedShape() const;
  /// The local shape common to all coordinates: a dim is kDynamicSize when
  /// its size differs across coordinates or it is dynamic and split.
  llvm::SmallVector<int64_t> localShape() const;
};

} // namespace hp::dtensor

#endif // HP_DIALECT_DTENSOR_LAYOUT_LAYOUT_H
