//===- NCCLMapping.h - what of shard NCCL can carry -------------*- C++ -*-===//

#ifndef HP_LIB_CONVERSION_SHARDTONCCL_NCCLMAPPING_H
#define HP_LIB_CONVERSION_SHARDTONCCL_NCCLMAPPING_H

#include "hp/Dialect/NCCL/IR/NCCL.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"

#include <optional>

namespace hp {

/// NCCL's reduction for `kind`; none where NCCL has no equivalent.
std::optional<nccl::RedOp> toRedOp(mlir::shard::ReductionKind kind);

/// The element type a reduction accumulates in: the wider of its input's and
/// its result's (upstream lets them differ, e.g. f32 -> f64), and for
/// integers NCCL lacks (i16) the next one it has.
mlir::Type accumulatorType(mlir::Type input, mlir::Type result);

/// What hp cannot lower in `op` (element types without an NCCL data type,
/// reductions without an NCCL op, axes out of range, uneven all_to_all
/// splits, malformed halos, receives without a source, grid queries),
/// reported where it is; the conversion's patterns take the rest as given.
mlir::LogicalResult checkNCCLLowerable(mlir::Operation *op);

} // namespace hp

#endif // HP_LIB_CONVERSION_SHARDTONCCL_NCCLMAPPING_H
