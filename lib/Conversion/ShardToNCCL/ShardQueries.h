//===- ShardQueries.h - shard ops that are not collectives ------*- C++ -*-===//

#ifndef HP_LIB_CONVERSION_SHARDTONCCL_SHARDQUERIES_H
#define HP_LIB_CONVERSION_SHARDTONCCL_SHARDQUERIES_H

#include "mlir/IR/Operation.h"

namespace hp {

/// Lowers the shard ops that ask about the grid or a sharding to arithmetic
/// (grid_shape, neighbors_linear_indices, shard_shape) and erases the
/// compile-time sharding metadata (shard.sharding, shard.shard, get_sharding,
/// and !shard.sharding arguments and results of functions and calls).
/// Reports, located, what has no runtime meaning in hp.
mlir::LogicalResult lowerShardQueries(mlir::Operation *root);

} // namespace hp

#endif // HP_LIB_CONVERSION_SHARDTONCCL_SHARDQUERIES_H
