//===- Variance.h - which mesh axes a local value varies over ---*- C++ -*-===//
//
// Inside a local region every rank runs the same body on its own block. A
// value *varies* over mesh axis a when ranks that differ only in their
// coordinate on a may hold different values for it. This analysis finds, for
// every value of a body, the axes it may vary over and where the variation
// comes from, so that `replicate` claims in out_placements can be checked.
//
//===----------------------------------------------------------------------===//

#ifndef HP_DIALECT_DTENSOR_ANALYSIS_VARIANCE_H
#define HP_DIALECT_DTENSOR_ANALYSIS_VARIANCE_H

#include "hp/Dialect/DTensor/IR/DTensor.h"

#include "llvm/ADT/DenseMap.h"

namespace hp::dtensor {

/// Where a value's variation over one axis comes from.
struct VarianceOrigin {
  /// A block argument of the body (its index), or the op (axis_index, a
  /// per-rank collective) that made the value vary.
  int64_t argument = -1;
  mlir::Operation *op = nullptr;
};

/// The axes a value may vary over (bit a: mesh axis a), with one origin per
/// axis, and the axes along which a contraction over a sharded dim summed
/// partial results (then `partial<sum>` is what the value is).
struct Variance {
  uint64_t axes = 0;
  uint64_t fromContraction = 0;
  llvm::SmallVector<VarianceOrigin, 4> origins;

  bool varies(int64_t axis) const { return axes >> axis & 1; }
  /// Adds `other`'s axes; keeps the first origin found for each axis.
  bool join(const Variance &other);
};

/// Analyses one local region body: values vary over the axes their block
/// argument's layout splits or leaves partial, over the axis of an
/// `axis_index`, over the axes of a collective that leaves per-rank data
/// (all_to_all, shift, reduce_scatter); all_gather and all_reduce make their
/// result invariant over their axes. Every other op, a call, and region
/// control flow (including the conditions and bounds that select what is
/// yielded) propagate the union of what flows into them.
class VarianceAnalysis {
public:
  /// `argumentAxes[i]` is block argument i's variance bits; `argumentDims[i]`
  /// maps each of its tensor dims to the mesh axes splitting it.
  VarianceAnalysis(mlir::Block &body, const MeshInfo &mesh,
                   mlir::FlatSymbolRefAttr meshName,
                   llvm::ArrayRef<uint64_t> argumentAxes,
                   llvm::ArrayRef<llvm::SmallVector<uint64_t, 4>> argumentDims);

  const Variance &get(mlir::Value value);

private:
  bool visitBlock(mlir::Block &block);
  bool visitOp(mlir::Operation *op);
  bool set(mlir::Value value, const Variance &variance);
  /// Mesh axis bits of axis names, or all ones if any is unknown.
  uint64_t axisBits(mlir::ArrayAttr names);

  const MeshInfo &mesh;
  mlir::FlatSymbolRefAttr meshName;
  llvm::DenseMap<mlir::Value, Variance> values;
  /// Per value of a region argument: mesh axes splitting each tensor dim.
  llvm::DenseMap<mlir::Value, llvm::SmallVector<uint64_t, 4>> dimAxes;
  Variance invariant;
};

/// The variance bits and per-dim split axes a DTensor's local block has.
uint64_t layoutVarianceBits(DTensorType type,
                            llvm::ArrayRef<int64_t> meshShape);
llvm::SmallVector<uint64_t, 4> layoutDimAxes(DTensorType type);

} // namespace hp::dtensor

#endif // HP_DIALECT_DTENSOR_ANALYSIS_VARIANCE_H
