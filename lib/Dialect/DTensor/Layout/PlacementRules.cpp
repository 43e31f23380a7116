//===- PlacementRules.cpp - placements hp.torch infers, as rules ----------===//

#include "hp/Dialect/DTensor/Layout/PlacementRules.h"

#include "llvm/ADT/STLExtras.h"

#include <cassert>

using namespace hp::dtensor::plan;

bool hp::dtensor::plan::fsdpSplit(PlacementList &placements, int64_t rank,
                                  int64_t meshDim) {
  assert(meshDim >= 0 && meshDim < static_cast<int64_t>(placements.size()) &&
         "mesh dim out of range");
  Placement &p = placements[meshDim];
  if (rank == 0 || p.isSplit() || p.kind == Placement::Partial)
    return false;
  p = Placement::shard(0);
  return true;
}

PlacementList hp::dtensor::plan::optimizerStatePlacements(
    llvm::ArrayRef<Placement> paramPlacements,
    llvm::ArrayRef<int64_t> paramShape, llvm::ArrayRef<int64_t> stateShape) {
  if (paramShape == stateShape)
    return PlacementList(paramPlacements);
  return PlacementList(paramPlacements.size(), Placement::replicate());
}

PlacementList
hp::dtensor::plan::placementsFromInputs(llvm::ArrayRef<PlacementList> inputs,
                                        int64_t rank, int64_t meshRank,
                                        int64_t fixedDim) {
  assert(fixedDim >= -1 && fixedDim < meshRank && "fixed dim out of range");
  assert(llvm::all_of(inputs,
                      [&](const PlacementList &in) {
                        return static_cast<int64_t>(in.size()) == meshRank;
                      }) &&
         "an input's placements do not cover the mesh");
  PlacementList out(meshRank, Placement::replicate());
  if (inputs.empty())
    return out;
  for (int64_t d = 0; d < meshRank; ++d) {
    if (d == fixedDim)
      continue;
    const Placement &first = inputs.front()[d];
    bool shared = llvm::all_of(
        inputs, [&](const PlacementList &in) { return in[d] == first; });
    if (shared && first.kind == Placement::Shard && first.dim < rank)
      out[d] = first;
  }
  return out;
}
