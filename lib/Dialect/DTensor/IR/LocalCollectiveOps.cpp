//===- LocalCollectiveOps.cpp - dtensor collectives on local tensors ----===//
//
// The mesh-axis collectives a local computation may call (all_gather,
// all_reduce, reduce_scatter, all_to_all, shift, axis_index): their symbol
// checks against the mesh they name.
//
//===----------------------------------------------------------------------===//

#include "hp/Dialect/DTensor/IR/DTensor.h"
#include "hp/Dialect/DTensor/Layout/Layout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace hp::dtensor;

/// Resolves `axes` on the mesh; returns their indices or fails with an error.
static FailureOr<SmallVector<int64_t>>
resolveAxes(Operation *op, FlatSymbolRefAttr meshName, ArrayAttr axes,
            SymbolTableCollection &symbolTable, MeshInfo &mesh) {
  mesh = lookupMesh(op, meshName, symbolTable);
  if (!mesh)
    return failure();
  if (axes.empty())
    return op->emitOpError("needs at least one mesh axis");
  SmallVector<int64_t> indices;
  for (Attribute a : axes) {
    StringRef name = cast<StringAttr>(a).getValue();
    int64_t index = mesh.getAxisIndex(name);
    if (index < 0)
      return op->emitOpError()
             << "'" << name << "' is not an axis of mesh " << meshName
             << " (axes: " << llvm::join(mesh.names, ", ") << ")";
    if (llvm::is_contained(indices, index))
      return op->emitOpError()
             << "axis '" << name << "' is listed more than once";
    indices.push_back(index);
  }
  return indices;
}

/// Checks `result` against the shape the collective produces: each entry
/// of `scale` multiplies (>0) or divides (<0) the input dim by the group.
static LogicalResult
verifyCollectiveShape(Operation *op, Type inputType, Type resultType, int64_t n,
                      ArrayRef<std::pair<int64_t, int64_t>> scale) {
  auto in = cast<RankedTensorType>(inputType);
  auto out = cast<RankedTensorType>(resultType);
  if (in.getElementType() != out.getElementType())
    return op->emitOpError("input and result must have the same element type");
  if (in.getRank() != out.getRank())
    return op->emitOpError("input and result must have the same rank");
  SmallVector<int64_t> expected(in.getShape());
  for (auto [axis, factor] : scale) {
    if (axis < 0 || axis >= in.getRank())
      return op->emitOpError()
             << "axis " << axis << " is out of range for rank " << in.getRank();
    int64_t &d = expected[axis];
    if (ShapedType::isDynamic(d) || factor == 0)
      continue;
    if (factor > 0) {
      d *= n;
    } else {
      if (d % n != 0)
        return op->emitOpError() << "dim " << axis << " of size " << d
                                 << " does not divide by the group size " << n;
      d /= n;
    }
  }
  for (auto [i, e, r] : llvm::enumerate(expected, out.getShape()))
    if (!ShapedType::isDynamic(e) && !ShapedType::isDynamic(r) && e != r)
      return op->emitOpError() << "result dim " << i << " is " << r
                               << ", expected " << e << " for a group of " << n;
  return success();
}

template <typename OpTy>
static LogicalResult
verifyAxisCollective(OpTy op, SymbolTableCollection &symbolTable,
                     ArrayRef<std::pair<int64_t, int64_t>> scale) {
  MeshInfo mesh;
  auto axes =
      resolveAxes(op, op.getMeshAttr(), op.getAxes(), symbolTable, mesh);
  if (failed(axes))
    return failure();
  return verifyCollectiveShape(op, op.getInput().getType(), op.getType(),
                               groupSize(mesh.getShape(), *axes), scale);
}

LogicalResult
AllGatherOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyAxisCollective(
      *this, symbolTable,
      {{static_cast<int64_t>(getGatherAxis().getSExtValue()), 1}});
}

LogicalResult
AllReduceOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyAxisCollective(*this, symbolTable, {});
}

LogicalResult
ReduceScatterOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyAxisCollective(
      *this, symbolTable,
      {{static_cast<int64_t>(getScatterAxis().getSExtValue()), -1}});
}

LogicalResult AllToAllOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  int64_t split = getSplitAxis().getSExtValue();
  int64_t concat = getConcatAxis().getSExtValue();
  if (split == concat)
    return verifyAxisCollective(*this, symbolTable, {{split, 0}});
  return verifyAxisCollective(*this, symbolTable, {{split, -1}, {concat, 1}});
}

LogicalResult ShiftOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  if (getAxes().size() != 1)
    return emitOpError() << "shifts along exactly one mesh axis, got "
                         << getAxes().size();
  return verifyAxisCollective(*this, symbolTable, {});
}

LogicalResult
AxisIndexOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  MeshInfo mesh = lookupMesh(*this, getMeshAttr(), symbolTable);
  if (!mesh)
    return failure();
  if (mesh.getAxisIndex(getAxis()) < 0)
    return emitOpError() << "'" << getAxis() << "' is not an axis of mesh "
                         << getMeshAttr()
                         << " (axes: " << llvm::join(mesh.names, ", ") << ")";
  return success();
}
