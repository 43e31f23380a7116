//===- Layout.cpp - which block of a global tensor each device holds ------===//

#include "hp/Dialect/DTensor/Layout/Layout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/SmallVectorExtras.h"

#include <algorithm>
#include <cassert>

using namespace hp::dtensor;

int64_t hp::dtensor::chunkLength(int64_t size, int64_t parts) {
  assert(size >= 0 && parts >= 1 && "chunk of a negative size or no parts");
  // size + parts - 1 would overflow near INT64_MAX.
  return size / parts + (size % parts != 0);
}

int64_t hp::dtensor::chunkSize(int64_t size, int64_t parts, int64_t coord) {
  int64_t chunk = chunkLength(size, parts);
  return std::clamp<int64_t>(size - coord * chunk, 0, chunk);
}

int64_t hp::dtensor::chunkOffset(int64_t size, int64_t parts, int64_t coord) {
  return std::min(coord * chunkLength(size, parts), size);
}

/// The distinct sizes that chunks of any size in `sizes` take in `parts` parts.
static llvm::SmallVector<int64_t> splitSizes(llvm::ArrayRef<int64_t> sizes,
                                             int64_t parts) {
  llvm::SmallSet<int64_t, 4> seen;
  llvm::SmallVector<int64_t> result;
  auto add = [&](int64_t v) {
    if (seen.insert(v).second)
      result.push_back(v);
  };
  for (int64_t size : sizes) {
    int64_t chunk = chunkLength(size, parts);
    if (chunk == 0) {
      add(0);
      continue;
    }
    // Coordinates [0, full) hold `chunk`; then at most one short chunk; the
    // rest are empty. This avoids enumerating every coordinate.
    int64_t full = std::min(size / chunk, parts);
    int64_t rest = size - full * chunk;
    if (full > 0)
      add(chunk);
    if (full < parts)
      add(rest);
    if (full + (rest > 0 ? 1 : 0) < parts)
      add(0);
  }
  return result;
}

Layout Layout::ofShardDims(llvm::ArrayRef<int64_t> globalShape,
                           llvm::ArrayRef<int64_t> meshShape,
                           llvm::ArrayRef<int64_t> shardDims,
                           llvm::ArrayRef<bool> strided) {
  assert(meshShape.size() == shardDims.size() && "one entry per mesh dim");
  llvm::SmallVector<bool, 4> none(shardDims.size(), false);
  return {llvm::to_vector<4>(globalShape), llvm::to_vector<4>(meshShape),
          nestingOrder(shardDims, strided.empty() ? none : strided,
                       globalShape.size())};
}

LocalBlock Layout::block(llvm::ArrayRef<int64_t> coord) const {
  assert(meshShape.size() == coord.size() && "one entry per mesh dim");
  LocalBlock block;
  IntArith a;
  for (int64_t d = 0, e = globalShape.size(); d < e; ++d) {
    auto [offset, size] = piece(a, d, coord);
    block.offsets.push_back(offset);
    block.sizes.push_back(size);
  }
  return block;
}

llvm::SmallVector<int64_t> Layout::paddedShape() const {
  llvm::SmallVector<int64_t> shape;
  for (auto [g, dims] : llvm::zip_equal(globalShape, splits))
    shape.push_back(g == kDynamicSize ? g : paddedPiece(g, meshShape, dims));
  return shape;
}

llvm::SmallVector<int64_t> Layout::localShape() const {
  llvm::SmallVector<int64_t> shape(globalShape.begin(), globalShape.end());
  for (auto [d, global] : llvm::enumerate(globalShape)) {
    if (splits[d].empty())
      continue;
    if (global == kDynamicSize)
      continue;
    llvm::SmallVector<int64_t> sizes = {global};
    for (int64_t m : splits[d])
      sizes = splitSizes(sizes, meshShape[m]);
    shape[d] = sizes.size() == 1 ? sizes.front() : kDynamicSize;
  }
  return shape;
}

int64_t hp::dtensor::paddedPiece(int64_t size,
                                 llvm::ArrayRef<int64_t> meshShape,
                                 llvm::ArrayRef<int64_t> axes) {
  // The first piece of every nested split is the largest.
  for (int64_t m : axes)
    size = chunkLength(size, meshShape[m]);
  return size;
}

int64_t hp::dtensor::groupSize(llvm::ArrayRef<int64_t> meshShape,
                               llvm::ArrayRef<int64_t> axes) {
  int64_t n = 1;
  for (int64_t m : axes)
    n *= meshShape[m];
  return n;
}

/// The mesh sizes of `axes`, the radices of a group member index.
static llvm::SmallVector<int64_t, 4>
radicesOf(llvm::ArrayRef<int64_t> meshShape, llvm::ArrayRef<int64_t> axes) {
  return llvm::map_to_vector<4>(axes, [&](int64_t m) { return meshShape[m]; });
}

int64_t hp::dtensor::groupIndex(llvm::ArrayRef<int64_t> coord,
                                llvm::ArrayRef<int64_t> meshShape,
                                llvm::ArrayRef<int64_t> axes) {
  IntArith a;
  auto digits =
      llvm::map_to_vector<4>(axes, [&](int64_t m) { return coord[m]; });
  return linearize(a, digits, radicesOf(meshShape, axes));
}

llvm::SmallVector<int64_t>
hp::dtensor::groupMember(llvm::ArrayRef<int64_t> coord,
                         llvm::ArrayRef<int64_t> meshShape,
                         llvm::ArrayRef<int64_t> axes, int64_t index) {
  IntArith a;
  llvm::SmallVector<int64_t> member(coord.begin(), coord.end());
  for (auto [m, digit] :
       llvm::zip_equal(axes, delinearize(a, index, radicesOf(meshShape, axes))))
    member[m] = digit;
  return member;
}

llvm::SmallVector<llvm::SmallVector<int64_t, 4>, 4>
hp::dtensor::nestingOrder(llvm::ArrayRef<int64_t> shardDims,
                          llvm::ArrayRef<bool> strided, int64_t tensorRank) {
  llvm::SmallVector<llvm::SmallVector<int64_t, 4>, 4> order(tensorRank);
  for (int64_t m = static_cast<int64_t>(shardDims.size()) - 1; m >= 0; --m) {
    int64_t d = shardDims[m];
    if (d == kNotSharded || d >= tensorRank)
      continue;
    if (strided[m])
      order[d].push_back(m);
    else
      order[d].insert(order[d].begin(), m);
  }
  return order;
}
