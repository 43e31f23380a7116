//===- RankPiece.cpp - this rank's piece of a split dim, in IR ------------===//

#include "hp/Dialect/DTensor/Transforms/RankPiece.h"

#include "hp/Dialect/DTensor/Layout/Layout.h"
#include "hp/Support/IRArith.h"

using namespace mlir;

std::pair<OpFoldResult, OpFoldResult>
hp::dtensor::rankPiece(OpBuilder &b, Location loc, int64_t size,
                       ArrayRef<int64_t> axes, const MeshInfo &mesh,
                       FlatSymbolRefAttr meshName) {
  hp::IRArith a{b, loc};
  SmallVector<int64_t> parts;
  SmallVector<OpFoldResult> digits;
  for (int64_t m : axes) {
    parts.push_back(mesh.shape[m]);
    digits.push_back(AxisIndexOp::create(b, loc, b.getIndexType(), meshName,
                                         b.getStringAttr(mesh.names[m]))
                         .getResult());
  }
  return nestedPiece(a, a.cst(size), parts, digits);
}
