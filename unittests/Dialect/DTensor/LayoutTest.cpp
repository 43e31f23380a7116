//===- LayoutTest.cpp - the layout model: torch.chunk, nesting, groups ----===//
//
// Expected values are torch.chunk's, worked out by hand from
// chunk = ceil(G/n), size_i = clamp(G - i*chunk, 0, chunk).
//
//===----------------------------------------------------------------------===//

#include "hp/Dialect/DTensor/Layout/Layout.h"

#include "gtest/gtest.h"

#include <limits>
#include <vector>

using namespace hp::dtensor;

namespace {

std::vector<int64_t> sizesOver(int64_t global, int64_t parts) {
  std::vector<int64_t> sizes;
  for (int64_t i = 0; i < parts; ++i)
    sizes.push_back(chunkSize(global, parts, i));
  return sizes;
}

std::vector<int64_t> offsetsOver(int64_t global, int64_t parts) {
  std::vector<int64_t> offsets;
  for (int64_t i = 0; i < parts; ++i)
    offsets.push_back(chunkOffset(global, parts, i));
  return offsets;
}

std::vector<int64_t> vec(llvm::ArrayRef<int64_t> a) {
  return {a.begin(), a.end()};
}

/// A layout from placements' shard dims (mesh-dim nesting).
Layout layoutOf(llvm::ArrayRef<int64_t> global, llvm::ArrayRef<int64_t> mesh,
                llvm::ArrayRef<int64_t> shardDims) {
  return Layout::ofShardDims(global, mesh, shardDims);
}
LocalBlock blockOf(llvm::ArrayRef<int64_t> global, llvm::ArrayRef<int64_t> mesh,
                   llvm::ArrayRef<int64_t> shardDims,
                   llvm::ArrayRef<int64_t> coord) {
  return layoutOf(global, mesh, shardDims).block(coord);
}

TEST(LayoutTest, TenOverFour) {
  EXPECT_EQ(sizesOver(10, 4), (std::vector<int64_t>{3, 3, 3, 1}));
  EXPECT_EQ(offsetsOver(10, 4), (std::vector<int64_t>{0, 3, 6, 9}));
}

TEST(LayoutTest, NineOverFourLeavesAnEmptyChunk) {
  EXPECT_EQ(sizesOver(9, 4), (std::vector<int64_t>{3, 3, 3, 0}));
  // The empty chunk's offset is clamped to the end of the tensor.
  EXPECT_EQ(offsetsOver(9, 4), (std::vector<int64_t>{0, 3, 6, 9}));
}

TEST(LayoutTest, OneOverThree) {
  EXPECT_EQ(sizesOver(1, 3), (std::vector<int64_t>{1, 0, 0}));
  EXPECT_EQ(offsetsOver(1, 3), (std::vector<int64_t>{0, 1, 1}));
}

TEST(LayoutTest, EvenSplit) {
  EXPECT_EQ(sizesOver(8, 4), (std::vector<int64_t>{2, 2, 2, 2}));
  EXPECT_EQ(sizesOver(0, 2), (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(chunkLength(7, 1), 7);
}

TEST(LayoutTest, LocalShapeStaticOnlyWhenChunksAgree) {
  // 1-D mesh of 4 sharding dim 0.
  EXPECT_EQ(vec(layoutOf({8, 16}, {4}, {0}).localShape()),
            (std::vector<int64_t>{2, 16}));
  EXPECT_EQ(vec(layoutOf({10, 16}, {4}, {0}).localShape()),
            (std::vector<int64_t>{kDynamicSize, 16}));
  EXPECT_EQ(vec(layoutOf({10, 16}, {4}, {0}).paddedShape()),
            (std::vector<int64_t>{3, 16}));
  // Replicate / partial leave the shape alone.
  EXPECT_EQ(vec(layoutOf({10, 16}, {4}, {kNotSharded}).localShape()),
            (std::vector<int64_t>{10, 16}));
  // A dynamic global dim stays dynamic when split and when not.
  EXPECT_EQ(vec(layoutOf({kDynamicSize, 4}, {2}, {0}).localShape()),
            (std::vector<int64_t>{kDynamicSize, 4}));
}

TEST(LayoutTest, NestedSplitOnTwoByTwoMesh) {
  // [S(0), S(0)] on 2x2: mesh dim 0 is the outer split, mesh dim 1 the inner.
  // G=8: outer 4,4; inner 2,2 -> coordinate (i, j) starts at 4i + 2j.
  std::vector<int64_t> mesh = {2, 2}, shard = {0, 0};
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 2; ++j) {
      LocalBlock b = blockOf({8, 3}, mesh, shard, {i, j});
      EXPECT_EQ(vec(b.sizes), (std::vector<int64_t>{2, 3}));
      EXPECT_EQ(vec(b.offsets), (std::vector<int64_t>{4 * i + 2 * j, 0}));
    }
  EXPECT_EQ(vec(layoutOf({8, 3}, mesh, shard).localShape()),
            (std::vector<int64_t>{2, 3}));

  // G=10: outer 5,5; inner ceil(5/2)=3 -> 3,2 within each half.
  const int64_t sizes[2][2] = {{3, 2}, {3, 2}};
  const int64_t offsets[2][2] = {{0, 3}, {5, 8}};
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 2; ++j) {
      LocalBlock b = blockOf({10}, mesh, shard, {i, j});
      EXPECT_EQ(b.sizes[0], sizes[i][j]) << "coord " << i << "," << j;
      EXPECT_EQ(b.offsets[0], offsets[i][j]) << "coord " << i << "," << j;
    }
  EXPECT_EQ(vec(layoutOf({10}, mesh, shard).localShape()),
            (std::vector<int64_t>{kDynamicSize}));
  EXPECT_EQ(vec(layoutOf({10}, mesh, shard).paddedShape()),
            (std::vector<int64_t>{3}));
}

TEST(LayoutTest, NestedSplitOrderIsMeshDimOrder) {
  // G=6 on a 2x3 mesh, both dims sharding dim 0: outer split by 2 -> 3,3;
  // inner by 3 -> 1,1,1. Offsets are 3i + j (mesh dim 0 outermost).
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j) {
      LocalBlock b = blockOf({6}, {2, 3}, {0, 0}, {i, j});
      EXPECT_EQ(b.sizes[0], 1);
      EXPECT_EQ(b.offsets[0], 3 * i + j);
    }
}

TEST(LayoutTest, TwoTensorDimsOnTwoMeshDims) {
  // [S(1), S(0)] on 2x3 for a 7x4 tensor: dim 1 split by mesh dim 0 (2,2),
  // dim 0 split by mesh dim 1 (3,3,1).
  LocalBlock b = blockOf({7, 4}, {2, 3}, {1, 0}, {1, 2});
  EXPECT_EQ(vec(b.sizes), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(vec(b.offsets), (std::vector<int64_t>{6, 2}));
  EXPECT_EQ(vec(layoutOf({7, 4}, {2, 3}, {1, 0}).localShape()),
            (std::vector<int64_t>{kDynamicSize, 2}));
}

TEST(LayoutTest, LocalShapeMatchesEnumeration) {
  // The closed form in Layout::localShape must agree with enumerating every
  // coordinate, for nested splits of many sizes.
  for (int64_t g = 0; g <= 40; ++g)
    for (int64_t a = 1; a <= 4; ++a)
      for (int64_t c = 1; c <= 4; ++c) {
        std::vector<int64_t> mesh = {a, c}, shard = {0, 0};
        int64_t first = -1, maxSize = 0;
        bool uniform = true;
        for (int64_t i = 0; i < a; ++i)
          for (int64_t j = 0; j < c; ++j) {
            int64_t s = blockOf({g}, mesh, shard, {i, j}).sizes[0];
            if (first < 0)
              first = s;
            uniform &= s == first;
            maxSize = std::max(maxSize, s);
          }
        EXPECT_EQ(layoutOf({g}, mesh, shard).localShape()[0],
                  uniform ? first : kDynamicSize)
            << "G=" << g << " mesh=" << a << "x" << c;
        EXPECT_EQ(layoutOf({g}, mesh, shard).paddedShape()[0], maxSize);
      }
}

TEST(LayoutTest, Linearize) {
  std::vector<int64_t> mesh = {2, 3, 4};
  IntArith a;
  for (int64_t i = 0; i < 24; ++i)
    EXPECT_EQ(linearize(a, delinearize(a, i, mesh), mesh), i);
  EXPECT_EQ(vec(delinearize(a, int64_t(23), mesh)),
            (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(vec(delinearize(a, int64_t(4), mesh)),
            (std::vector<int64_t>{0, 1, 0}));
}

TEST(LayoutTest, ChunkLengthDoesNotOverflow) {
  int64_t big = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(chunkLength(big, 2), big / 2 + 1);
  EXPECT_EQ(chunkLength(big, 1), big);
  EXPECT_EQ(chunkSize(big, 2, 1), big / 2);
}

TEST(LayoutTest, NestedPieceOfTenOverTwoByTwo) {
  // 10 -> (5, 5) -> (3, 2) (3, 2) at offsets 0, 3, 5, 8.
  IntArith a;
  std::vector<std::pair<int64_t, int64_t>> want = {
      {0, 3}, {3, 2}, {5, 3}, {8, 2}};
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 2; ++j)
      EXPECT_EQ(nestedPiece(a, int64_t(10), {2, 2}, {i, j}), want[2 * i + j]);
  // 4 over (2, 3): 2 -> (1, 1, 0) twice; a flat split into 6 would differ.
  std::vector<std::pair<int64_t, int64_t>> small = {{0, 1}, {1, 1}, {2, 0},
                                                    {2, 1}, {3, 1}, {4, 0}};
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      EXPECT_EQ(nestedPiece(a, int64_t(4), {2, 3}, {i, j}), small[3 * i + j]);
}

TEST(LayoutTest, PieceHoldingInvertsNestedPiece) {
  // By hand: 10 over (2, 2) has pieces [0,3) [3,5) [5,8) [8,10); element 4
  // is position 1 of piece 1, element 8 position 0 of piece 3.
  IntArith a;
  EXPECT_EQ(pieceHolding(a, int64_t(10), {2, 2}, int64_t(4)),
            std::make_pair(int64_t(1), int64_t(1)));
  EXPECT_EQ(pieceHolding(a, int64_t(10), {2, 2}, int64_t(8)),
            std::make_pair(int64_t(3), int64_t(0)));
  // Every element of every nested split lies in the piece nestedPiece says.
  for (int64_t g = 1; g <= 30; ++g)
    for (std::vector<int64_t> parts :
         {std::vector<int64_t>{3}, {2, 2}, {2, 3}, {4, 3, 2}}) {
      for (int64_t q = 0; q < g; ++q) {
        auto [j, r] = pieceHolding(a, g, parts, q);
        auto [offset, length] =
            nestedPiece(a, g, parts, delinearize(a, j, parts));
        EXPECT_EQ(offset + r, q) << "G=" << g << " q=" << q;
        EXPECT_LT(r, length) << "G=" << g << " q=" << q;
      }
    }
}

TEST(LayoutTest, SplitBlockFollowsTheGivenOrder) {
  // Dim 0 of 8 split by mesh dim 1 first (outer), then mesh dim 0.
  llvm::SmallVector<llvm::SmallVector<int64_t, 4>, 4> inner = {{1, 0}};
  llvm::SmallVector<llvm::SmallVector<int64_t, 4>, 4> outer = {{0, 1}};
  // Coordinate (1, 2): outer split by 4 -> [4, 6), then by 2 -> [5, 6).
  LocalBlock b = Layout{{8}, {2, 4}, inner}.block({1, 2});
  EXPECT_EQ(vec(b.offsets), (std::vector<int64_t>{5}));
  EXPECT_EQ(vec(b.sizes), (std::vector<int64_t>{1}));
  // Default order agrees with the shard dims' nesting: (1, 2) -> [4, 8) ->
  // [6, 7).
  b = Layout{{8}, {2, 4}, outer}.block({1, 2});
  LocalBlock d = blockOf({8}, {2, 4}, {0, 0}, {1, 2});
  EXPECT_EQ(vec(b.offsets), vec(d.offsets));
  EXPECT_EQ(vec(b.offsets), (std::vector<int64_t>{6}));
  EXPECT_EQ(vec(Layout{{10}, {2, 2}, {{0, 1}}}.paddedShape()),
            (std::vector<int64_t>{3}));
}

TEST(LayoutTest, GroupsAreRowMajorInListedOrder) {
  std::vector<int64_t> mesh = {2, 3, 4};
  std::vector<int64_t> coord = {1, 2, 3};
  EXPECT_EQ(groupSize(mesh, {0, 2}), 8);
  // Axes [2, 0]: axis 2 outermost: 3 * 2 + 1.
  EXPECT_EQ(groupIndex(coord, mesh, {2, 0}), 7);
  EXPECT_EQ(groupIndex(coord, mesh, {0, 2}), 7);
  EXPECT_EQ(groupIndex(coord, mesh, {1}), 2);
  for (int64_t j = 0; j < 8; ++j) {
    llvm::SmallVector<int64_t> m = groupMember(coord, mesh, {2, 0}, j);
    EXPECT_EQ(groupIndex(m, mesh, {2, 0}), j);
    EXPECT_EQ(m[1], 2) << "axes outside the group stay";
  }
  EXPECT_EQ(vec(groupMember(coord, mesh, {2, 0}, 1)),
            (std::vector<int64_t>{1, 2, 0}));
}

} // namespace
