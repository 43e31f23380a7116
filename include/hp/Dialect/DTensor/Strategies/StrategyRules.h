//===- StrategyRules.h - building blocks of strategy models ------*- C++
//-*-===//
//
// What the strategy models share: per mesh axis an op does one thing
// (nothing, one loop or result dim split, or partial sums passed through),
// and a strategy picks one per axis. A model lists its per-axis options;
// combineAxisOptions makes the strategies. Structured ops (loops and
// indexing maps) have their rule here too, for any op that can describe
// itself as one. docs/Propagation.md states the rules.
//
//===----------------------------------------------------------------------===//

#ifndef HP_DIALECT_DTENSOR_STRATEGIES_STRATEGYRULES_H
#define HP_DIALECT_DTENSOR_STRATEGIES_STRATEGYRULES_H

#include "hp/Dialect/DTensor/IR/DTensor.h"
#include "hp/Dialect/DTensor/Utils/StrategyChooser.h"

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/AffineMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>

namespace hp::dtensor::strategies {

using propagation::Strategy;

/// What an op does on one mesh axis: the placement there of each strategy
/// operand and result, and the loop (or result dim) it splits, if any.
struct AxisOption {
  int64_t loop = Strategy::kNoLoop;
  llvm::SmallVector<plan::Placement> operands, results;
};

/// The strategies that pick, per mesh axis of `meshShape`, nothing (all
/// `replicate`) or one of `options` (axes of size 1 only nothing); the
/// all-replicate strategy comes first. `flops` prices each.
std::vector<Strategy>
combineAxisOptions(llvm::ArrayRef<int64_t> meshShape, int64_t numOperands,
                   int64_t numResults, llvm::ArrayRef<AxisOption> options,
                   llvm::function_ref<double(const Strategy &)> flops);

/// The one strategy of an op no rule places: everything `replicate`, one
/// flop per result element.
Strategy replicatedStrategy(mlir::Operation *op, int64_t numOperands,
                            llvm::ArrayRef<int64_t> meshShape);

/// An op as loops: how its tensor operands and results index them.
struct Structure {
  llvm::SmallVector<int64_t> loopSizes;
  llvm::SmallVector<mlir::utils::IteratorType> iterators;
  /// Per strategy operand and per result.
  llvm::SmallVector<mlir::AffineMap> operandMaps, resultMaps;
  /// Per strategy operand: the result it initialises, or -1.
  llvm::SmallVector<int64_t> initOf;
  /// Per result: the partial its reduction loops leave, if known.
  llvm::SmallVector<std::optional<ReduceOp>> combiners;
  /// Operand sets (flags per strategy operand) the op is linear in.
  llvm::SmallVector<llvm::SmallVector<bool>> linearSets;
  double flopsPerPoint = 1;
};

/// A structured op's per-axis options: a parallel loop gives `shard<k>` to
/// the operands and results whose map has it alone at position k; a
/// reduction loop gives the results their combiner's partial; a linear set
/// passes `partial<sum>` through.
llvm::SmallVector<AxisOption> axisOptions(const Structure &s);

/// The strategies of `s` from `options` (by default axisOptions(s)), priced
/// by the loop points a device runs times flopsPerPoint.
std::vector<Strategy> structuredStrategies(const Structure &s,
                                           llvm::ArrayRef<int64_t> meshShape,
                                           llvm::ArrayRef<AxisOption> options,
                                           int64_t numOperands);
std::vector<Strategy> structuredStrategies(const Structure &s,
                                           llvm::ArrayRef<int64_t> meshShape);

/// How a value depends on the operands that carry partial sums.
enum class Linearity { Const, Linear, Bad };

/// The linearity of `op`'s results from its operands' (`in`), under the
/// IEEE conditions of docs/Propagation.md.
Linearity linearityOf(mlir::Operation *op, llvm::ArrayRef<Linearity> in);

/// Whether every value `body` yields is linear in the block arguments
/// flagged in `linear`, jointly, the others held constant.
bool isLinearIn(mlir::Block &body, llvm::ArrayRef<bool> linear);

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

} // namespace hp::dtensor::strategies

#endif // HP_DIALECT_DTENSOR_STRATEGIES_STRATEGYRULES_H
