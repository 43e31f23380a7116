//===- PlacementRules.h - placements hp.torch infers, as rules --*- C++ -*-===//
//
// The placement decisions a front end makes before the IR exists: which
// parameters FSDP splits, what an optimizer's state takes, what a value
// without a declared layout takes from the inputs. One rule each, here,
// reached from Python and C through the C API (hp-c/PlacementRules.h), so
// that every front end decides alike. docs/Training.md states them.
//
//===----------------------------------------------------------------------===//

#ifndef HP_DIALECT_DTENSOR_LAYOUT_PLACEMENTRULES_H
#define HP_DIALECT_DTENSOR_LAYOUT_PLACEMENTRULES_H

#include "hp/Dialect/DTensor/Layout/Placement.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

namespace hp::dtensor::plan {

using PlacementList = llvm::SmallVector<Placement>;

/// FSDP: a parameter of rank `rank` laid out with `placements` is stored
/// split by rows (`shard<0>`) on mesh dim `meshDim` where nothing splits or
/// reduces it there yet; a scalar (rank 0) stays as it is. Returns whether
/// it was split.
bool fsdpSplit(PlacementList &placements, int64_t rank, int64_t meshDim);

/// An optimizer state tensor of shape `stateShape` kept for a parameter of
/// shape `paramShape` laid out with `paramPlacements`: the parameter's
/// placements where the shapes are equal (moments, momentum: elementwise
/// with the parameter), else replicated (a step count).
PlacementList
optimizerStatePlacements(llvm::ArrayRef<Placement> paramPlacements,
                         llvm::ArrayRef<int64_t> paramShape,
                         llvm::ArrayRef<int64_t> stateShape);

/// A value of rank `rank` without a declared layout (a loss target, a
/// plan's pinned value on the mesh dims the plan does not fix) on a mesh of
/// `meshRank` dims: on each mesh dim, the `shard<k>` every input has there
/// when k < rank (data parallel: the batch dim), else `replicate`. Mesh dim
/// `fixedDim` (-1: none) is left `replicate`, for the caller to fix.
PlacementList placementsFromInputs(llvm::ArrayRef<PlacementList> inputs,
                                   int64_t rank, int64_t meshRank,
                                   int64_t fixedDim = -1);

} // namespace hp::dtensor::plan

#endif // HP_DIALECT_DTENSOR_LAYOUT_PLACEMENTRULES_H
