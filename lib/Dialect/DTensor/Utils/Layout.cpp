//===- Layout.cpp - which block of a global tensor each device holds ------===//

#include "hp/Dialect/DTensor/Utils/Layout.h"

#include "llvm/ADT/SmallSet.h"

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

LocalBlock hp::dtensor::computeLocalBlock(llvm::ArrayRef<int64_t> globalShape,
                                          llvm::ArrayRef<int64_t> meshShape,
                                          llvm::ArrayRef<int64_t> shardDims,
                                          llvm::ArrayRef<int64_t> coord) {
  assert(meshShape.size() == shardDims.size() &&
         meshShape.size() == coord.size() && "one entry per mesh dim");
  LocalBlock block;
  block.sizes.assign(globalShape.begin(), globalShape.end());
  block.offsets.assign(globalShape.size(), 0);
  for (auto [meshDim, tensorDim] : llvm::enumerate(shardDims)) {
    if (tensorDim == kNotSharded)
      continue;
    int64_t &size = block.sizes[tensorDim];
    block.offsets[tensorDim] +=
        chunkOffset(size, meshShape[meshDim], coord[meshDim]);
    size = chunkSize(size, meshShape[meshDim], coord[meshDim]);
  }
  return block;
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

static llvm::SmallVector<int64_t>
computeShape(llvm::ArrayRef<int64_t> globalShape,
             llvm::ArrayRef<int64_t> meshShape,
             llvm::ArrayRef<int64_t> shardDims, bool takeMax) {
  assert(meshShape.size() == shardDims.size() && "one entry per mesh dim");
  llvm::SmallVector<int64_t> shape(globalShape.begin(), globalShape.end());
  for (auto [tensorDim, global] : llvm::enumerate(globalShape)) {
    llvm::SmallVector<int64_t> sizes = {global};
    bool split = false;
    for (auto [meshDim, sharded] : llvm::enumerate(shardDims)) {
      if (sharded != static_cast<int64_t>(tensorDim))
        continue;
      split = true;
      if (global == kDynamicSize)
        break;
      sizes = splitSizes(sizes, meshShape[meshDim]);
    }
    if (!split || global == kDynamicSize)
      continue;
    if (takeMax)
      shape[tensorDim] = *std::max_element(sizes.begin(), sizes.end());
    else
      shape[tensorDim] = sizes.size() == 1 ? sizes.front() : kDynamicSize;
  }
  return shape;
}

llvm::SmallVector<int64_t>
hp::dtensor::computeLocalShape(llvm::ArrayRef<int64_t> globalShape,
                               llvm::ArrayRef<int64_t> meshShape,
                               llvm::ArrayRef<int64_t> shardDims) {
  return computeShape(globalShape, meshShape, shardDims, /*takeMax=*/false);
}

llvm::SmallVector<int64_t>
hp::dtensor::computeMaxLocalShape(llvm::ArrayRef<int64_t> globalShape,
                                  llvm::ArrayRef<int64_t> meshShape,
                                  llvm::ArrayRef<int64_t> shardDims) {
  return computeShape(globalShape, meshShape, shardDims, /*takeMax=*/true);
}

llvm::SmallVector<int64_t>
hp::dtensor::delinearize(int64_t linear, llvm::ArrayRef<int64_t> meshShape) {
  llvm::SmallVector<int64_t> coord(meshShape.size());
  for (int64_t i = static_cast<int64_t>(meshShape.size()) - 1; i >= 0; --i) {
    coord[i] = linear % meshShape[i];
    linear /= meshShape[i];
  }
  return coord;
}

int64_t hp::dtensor::linearize(llvm::ArrayRef<int64_t> coord,
                               llvm::ArrayRef<int64_t> meshShape) {
  int64_t linear = 0;
  for (auto [c, n] : llvm::zip_equal(coord, meshShape))
    linear = linear * n + c;
  return linear;
}

llvm::SmallVector<int64_t> hp::dtensor::computePaddedShape(
    llvm::ArrayRef<int64_t> globalShape, llvm::ArrayRef<int64_t> meshShape,
    llvm::ArrayRef<llvm::SmallVector<int64_t, 4>> splits) {
  llvm::SmallVector<int64_t> shape;
  for (auto [d, g] : llvm::enumerate(globalShape))
    shape.push_back(paddedPiece(g, meshShape, splits[d]));
  return shape;
}

LocalBlock hp::dtensor::computeSplitBlock(
    llvm::ArrayRef<int64_t> globalShape, llvm::ArrayRef<int64_t> meshShape,
    llvm::ArrayRef<llvm::SmallVector<int64_t, 4>> splits,
    llvm::ArrayRef<int64_t> coord) {
  LocalBlock block;
  IntArith a;
  for (auto [d, g] : llvm::enumerate(globalShape)) {
    llvm::SmallVector<int64_t> parts, digits;
    for (int64_t m : splits[d]) {
      parts.push_back(meshShape[m]);
      digits.push_back(coord[m]);
    }
    auto [offset, size] = nestedPiece(a, g, parts, digits);
    block.offsets.push_back(offset);
    block.sizes.push_back(size);
  }
  return block;
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

int64_t hp::dtensor::groupIndex(llvm::ArrayRef<int64_t> coord,
                                llvm::ArrayRef<int64_t> meshShape,
                                llvm::ArrayRef<int64_t> axes) {
  int64_t index = 0;
  for (int64_t m : axes)
    index = index * meshShape[m] + coord[m];
  return index;
}

llvm::SmallVector<int64_t> hp::dtensor::groupMember(
    llvm::ArrayRef<int64_t> coord, llvm::ArrayRef<int64_t> meshShape,
    llvm::ArrayRef<int64_t> axes, int64_t index) {
  llvm::SmallVector<int64_t> member(coord.begin(), coord.end());
  for (int64_t i = static_cast<int64_t>(axes.size()) - 1; i >= 0; --i) {
    member[axes[i]] = index % meshShape[axes[i]];
    index /= meshShape[axes[i]];
  }
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
