//===- LocalShape.h - torch.chunk local sizes and offsets -------*- C++ -*-===//
//
// The one place that says which slice of a global tensor each mesh coordinate
// holds. Every pass and verifier goes through these functions so that shapes,
// offsets and the planner's padding agree.
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
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <limits>

namespace hp::dtensor {

/// Same value as mlir::ShapedType::kDynamic, kept free of MLIR headers.
inline constexpr int64_t kDynamicSize = std::numeric_limits<int64_t>::min();
inline constexpr int64_t kNotSharded = -1;

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

/// Row-major mesh coordinate of a linear index, and back.
llvm::SmallVector<int64_t> delinearize(int64_t linear,
                                       llvm::ArrayRef<int64_t> meshShape);
int64_t linearize(llvm::ArrayRef<int64_t> coord,
                  llvm::ArrayRef<int64_t> meshShape);

} // namespace hp::dtensor

#endif // HP_DIALECT_DTENSOR_UTILS_LOCALSHAPE_H
