//===- CollectiveTotals.h - what partitioned IR moves -----------*- C++ -*-===//
//
// The collectives a program partitioned by hp-partition runs and the bytes
// one rank sends in them (plan::bytesSent), read off the shard ops. The one
// counter behind hp.collectives, hp.torch.collectives, the Trainer and the
// benchmarks (through the C API, hp-c/Collectives.h).
//
//===----------------------------------------------------------------------===//

#ifndef HP_ANALYSIS_COLLECTIVETOTALS_H
#define HP_ANALYSIS_COLLECTIVETOTALS_H

#include "hp/Dialect/DTensor/Utils/CollectiveBytes.h"

#include <array>
#include <cstdint>
#include <optional>

namespace mlir {
class Operation;
} // namespace mlir

namespace hp {

struct CollectiveTotals {
  /// How many ops of each kind (indexed by plan::Collective).
  std::array<int64_t, dtensor::plan::kNumCollectives> counts{};
  /// Bytes one rank sends in them all; none where a shape is dynamic or an
  /// element type has no size in bytes.
  std::optional<double> bytes = 0.0;
};

/// The totals over the shard collectives nested in `root` (a module or a
/// function of one; the grids are looked up from each op). A collective on a
/// group of one rank moves nothing and is not counted (a point-to-point op
/// is: its group is the pair); shard.all_slice is a local slice, not counted.
CollectiveTotals collectiveTotals(mlir::Operation *root);

} // namespace hp

#endif // HP_ANALYSIS_COLLECTIVETOTALS_H
