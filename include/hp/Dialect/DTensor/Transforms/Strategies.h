//===- Strategies.h - how an op of a global program may run -----*- C++ -*-===//
//
// The strategies of docs/Propagation.md, derived from an op's structure:
// loops and indexing maps for structured ops, linearity for partial sums,
// reassociations and cut dims for shape ops, replicate for anything else.
//
//===----------------------------------------------------------------------===//

#ifndef HP_DIALECT_DTENSOR_TRANSFORMS_STRATEGIES_H
#define HP_DIALECT_DTENSOR_TRANSFORMS_STRATEGIES_H

#include "hp/Dialect/DTensor/Utils/StrategyChooser.h"

#include "mlir/IR/Operation.h"

namespace hp::dtensor {

/// The tensor values an op of a global program reads: its ranked tensor
/// operands, then tensors its regions use from above, in order. A
/// strategy's `operands` follow this list.
llvm::SmallVector<mlir::Value> strategyOperands(mlir::Operation *op);

/// The strategies of `op` on a mesh of `meshShape`. `fallback` is set (and
/// the only strategy is the replicated one) when no rule shards the op; the
/// reason is in `why`.
std::vector<propagation::Strategy>
deriveStrategies(mlir::Operation *op, llvm::ArrayRef<int64_t> meshShape,
                 bool &fallback, std::string &why);

/// How a linalg op's body reads a tensor it uses from above (an embedding
/// table, a padding mask): one `tensor.extract`. Such a table may be split,
/// not only replicated: along a dim read at `linalg.index d` of a loop split
/// alike (the local index reads the local piece), or, where the value read
/// is yielded as is, along a dim read at a computed index (each rank reads
/// the rows it holds and yields 0 elsewhere: a partial sum).
struct TableRead {
  mlir::Value table;
  mlir::Operation *extract;
  /// Whether the value read is yielded as is, into a result whose old value
  /// the body does not read.
  bool yielded;
  /// Per table dim: the parallel loop whose linalg.index reads it (the loop
  /// covering the whole dim; through index casts and the wrap of negative
  /// indices), or -1 for a computed index.
  llvm::SmallVector<int64_t> loopOf;
};

/// The read of `table` by `op`'s body, when it is one as TableRead says.
std::optional<TableRead> tableReadOf(mlir::Operation *op, mlir::Value table);

/// Whether `op` is rebuilt rather than cloned when it runs on local tensors
/// (its attributes hold sizes).
bool holdsSizes(mlir::Operation *op);

} // namespace hp::dtensor

#endif // HP_DIALECT_DTENSOR_TRANSFORMS_STRATEGIES_H
