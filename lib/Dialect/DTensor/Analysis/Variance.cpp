//===- Variance.cpp - which mesh axes a local value varies over -----------===//
//
// A forward fixpoint over the body. It is written out rather than built on
// MLIR's sparse dataflow framework because that framework joins region
// results from the yielded values only: a yield selected by a rank-varying
// condition (scf.if on axis_index) would look invariant. Here the results of
// an op with regions also join its operands (conditions, bounds), and loop
// bodies are revisited until nothing changes (the lattice is a bit set, so a
// few rounds suffice).
//
//===----------------------------------------------------------------------===//

#include "hp/Dialect/DTensor/Analysis/Variance.h"
#include "hp/Dialect/DTensor/Layout/Layout.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace hp::dtensor;

bool Variance::join(const Variance &other) {
  uint64_t before = axes, beforeC = fromContraction;
  if (origins.size() < other.origins.size())
    origins.resize(other.origins.size());
  for (size_t a = 0; a < other.origins.size(); ++a)
    if (other.varies(a) && !varies(a))
      origins[a] = other.origins[a];
  axes |= other.axes;
  fromContraction |= other.fromContraction;
  return axes != before || fromContraction != beforeC;
}

uint64_t hp::dtensor::layoutVarianceBits(DTensorType type,
                                         ArrayRef<int64_t> meshShape) {
  uint64_t bits = 0;
  for (auto [a, p] : llvm::enumerate(type.getPlacementList()))
    if (!p.isReplicate() && a < meshShape.size() && meshShape[a] > 1 && a < 64)
      bits |= uint64_t(1) << a;
  return bits;
}

SmallVector<uint64_t, 4> hp::dtensor::layoutDimAxes(DTensorType type) {
  SmallVector<uint64_t, 4> dims(type.getRank(), 0);
  for (auto [a, p] : llvm::enumerate(type.getPlacementList()))
    if (std::optional<int64_t> d = p.getShardedDim())
      if (*d < type.getRank() && a < 64)
        dims[*d] |= uint64_t(1) << a;
  return dims;
}

VarianceAnalysis::VarianceAnalysis(
    Block &body, const MeshInfo &mesh, FlatSymbolRefAttr meshName,
    ArrayRef<uint64_t> argumentAxes,
    ArrayRef<SmallVector<uint64_t, 4>> argumentDims)
    : mesh(mesh), meshName(meshName) {
  invariant.origins.resize(mesh.getRank());
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
    Variance v = invariant;
    v.axes = i < argumentAxes.size() ? argumentAxes[i] : 0;
    for (int64_t a = 0; a < mesh.getRank(); ++a)
      if (v.varies(a))
        v.origins[a].argument = i;
    values[arg] = v;
    if (i < argumentDims.size())
      dimAxes[arg] = argumentDims[i];
  }
  // The lattice only grows and has at most 2 x 64 bits per value.
  for (int round = 0; round < 130 && visitBlock(body); ++round) {
  }
}

const Variance &VarianceAnalysis::get(Value value) {
  auto it = values.find(value);
  return it == values.end() ? invariant : it->second;
}

bool VarianceAnalysis::set(Value value, const Variance &variance) {
  auto [it, inserted] = values.try_emplace(value, invariant);
  return it->second.join(variance) || inserted;
}

uint64_t VarianceAnalysis::axisBits(ArrayAttr names) {
  uint64_t bits = 0;
  for (Attribute name : names) {
    int64_t a = mesh.getAxisIndex(cast<StringAttr>(name).getValue());
    if (a < 0 || a >= 64)
      return ~uint64_t(0) >> (64 - std::min<int64_t>(64, mesh.getRank()));
    bits |= uint64_t(1) << a;
  }
  return bits;
}

bool VarianceAnalysis::visitBlock(Block &block) {
  bool changed = false;
  for (Operation &op : block)
    changed |= visitOp(&op);
  return changed;
}

bool VarianceAnalysis::visitOp(Operation *op) {
  Variance in = invariant;
  for (Value operand : op->getOperands())
    in.join(get(operand));

  auto originAt = [&](Variance v, uint64_t bits) {
    for (int64_t a = 0; a < mesh.getRank(); ++a)
      if ((bits >> a & 1) && !v.varies(a))
        v.origins[a].op = op;
    v.axes |= bits;
    return v;
  };
  auto onOurMesh = [&](FlatSymbolRefAttr m) { return m == meshName; };

  Variance out = in;
  if (auto index = dyn_cast<AxisIndexOp>(op)) {
    int64_t a = mesh.getAxisIndex(index.getAxis());
    out = originAt(in, onOurMesh(index.getMeshAttr()) && a >= 0
                           ? uint64_t(1) << a
                           : ~uint64_t(0) >> (64 - mesh.getRank()));
  } else if (auto gather = dyn_cast<AllGatherOp>(op)) {
    if (onOurMesh(gather.getMeshAttr())) {
      uint64_t bits = axisBits(gather.getAxes());
      out.axes &= ~bits;
      out.fromContraction &= ~bits;
    }
  } else if (auto reduce = dyn_cast<AllReduceOp>(op)) {
    if (onOurMesh(reduce.getMeshAttr())) {
      uint64_t bits = axisBits(reduce.getAxes());
      out.axes &= ~bits;
      out.fromContraction &= ~bits;
    }
  } else if (auto a2a = dyn_cast<AllToAllOp>(op)) {
    out = originAt(in, axisBits(a2a.getAxes()));
  } else if (auto shift = dyn_cast<ShiftOp>(op)) {
    out = originAt(in, axisBits(shift.getAxes()));
  } else if (auto rs = dyn_cast<ReduceScatterOp>(op)) {
    out = originAt(in, axisBits(rs.getAxes()));
  } else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    // A reduction over a dim that is split along axis a sums per-rank
    // partial results over a.
    SmallVector<utils::IteratorType> iterators =
        linalgOp.getIteratorTypesArray();
    for (OpOperand *input : linalgOp.getDpsInputOperands()) {
      auto it = dimAxes.find(input->get());
      if (it == dimAxes.end())
        continue;
      AffineMap map = linalgOp.getMatchingIndexingMap(input);
      for (auto [d, expr] : llvm::enumerate(map.getResults())) {
        auto loop = dyn_cast<AffineDimExpr>(expr);
        if (loop && d < it->second.size() &&
            iterators[loop.getPosition()] == utils::IteratorType::reduction)
          out.fromContraction |= it->second[d];
      }
    }
    out.fromContraction &= out.axes;
  }

  bool changed = false;
  if (op->getNumRegions() > 0 && !isa<AxisIndexOp>(op)) {
    // Conservative entry: every block argument of a nested region sees what
    // flows into the op and what the region's blocks yield (loop carries).
    Variance flowing = in;
    for (Region &region : op->getRegions())
      for (Block &block : region) {
        Operation *terminator = block.empty() ? nullptr : &block.back();
        if (terminator && terminator->hasTrait<OpTrait::IsTerminator>())
          for (Value v : terminator->getOperands())
            flowing.join(get(v));
      }
    for (Region &region : op->getRegions())
      for (Block &block : region) {
        for (BlockArgument arg : block.getArguments())
          changed |= set(arg, flowing);
        changed |= visitBlock(block);
      }
    // Results: what flows in, and every value the regions hand back.
    for (Region &region : op->getRegions())
      for (Block &block : region)
        if (!block.empty() && block.back().hasTrait<OpTrait::IsTerminator>())
          for (Value v : block.back().getOperands())
            out.join(get(v));
  }

  for (Value result : op->getResults()) {
    changed |= set(result, out);
    // Same-shape views keep their dims' splits.
    if (isa<tensor::CastOp>(op))
      if (auto it = dimAxes.find(op->getOperand(0)); it != dimAxes.end())
        dimAxes[result] = it->second;
  }
  return changed;
}
