//===- ShardQueries.h - shard ops that are not collectives ------*- C++ -*-===//

#ifndef HP_LIB_CONVERSION_SHARDTONCCL_SHARDQUERIES_H
#define HP_LIB_CONVERSION_SHARDTONCCL_SHARDQUERIES_H

#include "mlir/IR/Operation.h"

namespace mlir {
class RewritePatternSet;
class TypeConverter;
} // namespace mlir

namespace hp {

/// Reports, located, what of a grid or sharding query, or of a use of a
/// sharding value, has no runtime meaning in hp.
mlir::LogicalResult checkShardQuery(mlir::Operation *op);

/// The patterns that lower the shard ops that ask about the grid or a
/// sharding to arithmetic (grid_shape, neighbors_linear_indices,
/// shard_shape) and erase the compile-time sharding metadata
/// (shard.sharding, shard.shard, get_sharding); `converter` learns to drop
/// !shard.sharding, from signatures, calls and returns too.
void populateShardQueryPatterns(mlir::TypeConverter &converter,
                                mlir::RewritePatternSet &patterns);

} // namespace hp

#endif // HP_LIB_CONVERSION_SHARDTONCCL_SHARDQUERIES_H
