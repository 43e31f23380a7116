/*===- Collectives.h - C API of hp's collective totals -----------*- C -*-===*\
|*                                                                            *|
|* What a partitioned program moves: the collectives hp-partition emits and   *|
|* the bytes one rank sends in them, under one set of formulas (ring          *|
|* algorithms) shared with the redistribute planner. Python's                 *|
|* hp.collectives and hp's benchmarks count through these functions.          *|
|*                                                                            *|
|* Arguments are checked as in hp-c/DTensor.h: a null module gives false      *|
|* without a diagnostic; any other broken precondition gives false or the     *|
|* documented sentinel, with an error diagnostic where there is a context.    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef HP_C_COLLECTIVES_H
#define HP_C_COLLECTIVES_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The communicating ops of the shard dialect: those hp-partition emits,
/// then the rooted ones other partitioners emit.
typedef enum HPCollectiveKind {
  HPCollectiveAllGather = 0,
  HPCollectiveAllReduce = 1,
  HPCollectiveReduceScatter = 2,
  HPCollectiveAllToAll = 3,
  HPCollectiveShift = 4,
  HPCollectiveSend = 5,
  HPCollectiveRecv = 6,
  HPCollectiveBroadcast = 7,
  HPCollectiveGather = 8,
  HPCollectiveScatter = 9,
  HPCollectiveReduce = 10,
} HPCollectiveKind;
#define HP_NUM_COLLECTIVE_KINDS 11

/// What the collectives of a program move.
typedef struct HPCollectiveTotals {
  /// How many ops of each kind, indexed by HPCollectiveKind.
  int64_t counts[HP_NUM_COLLECTIVE_KINDS];
  /// Bytes one rank sends in them all; meaningful when bytesKnown.
  double bytes;
  /// False where a shape is dynamic or an element type has no byte size.
  bool bytesKnown;
} HPCollectiveTotals;

/// The op's name in the shard dialect (`all_gather`, ...); an empty string
/// for a value outside HPCollectiveKind.
MLIR_CAPI_EXPORTED MlirStringRef hpCollectiveKindGetName(HPCollectiveKind kind);

/// Bytes one rank sends for one collective of `kind` on a group of
/// `groupSize` ranks whose operand holds `operandBytes` and result
/// `resultBytes` on that rank: an all_gather (n-1)/n of its result, a
/// reduce_scatter or all_to_all (n-1)/n of its operand, an all_reduce twice
/// that, a shift, send or broadcast its operand, a recv nothing, a rooted
/// gather, scatter or reduce its operand (an upper bound: a scatter's root
/// sends (n-1)/n of it);
/// a collective on a group of one nothing. -1 for a kind outside
/// HPCollectiveKind, `groupSize` < 1, or a byte count that is negative or
/// not finite.
MLIR_CAPI_EXPORTED double hpCollectiveBytesSent(HPCollectiveKind kind,
                                                int64_t groupSize,
                                                double operandBytes,
                                                double resultBytes);

/// Fills `totals` with what the shard collectives of `module` (after
/// hp-partition) move: those of func `function`, or of the whole module when
/// `function` is empty. A collective on a group of one rank is not counted,
/// nor shard.all_slice (a local slice). False, with a diagnostic, when
/// `totals` is NULL, `function` is a NULL string of non-zero length, or
/// names no function of the module; false without one for a null module.
MLIR_CAPI_EXPORTED bool hpModuleGetCollectiveTotals(MlirModule module,
                                                    MlirStringRef function,
                                                    HPCollectiveTotals *totals);

#ifdef __cplusplus
}
#endif

#endif // HP_C_COLLECTIVES_H
