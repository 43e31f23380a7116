//===- PlacementRulesCAPI.cpp - placements a front end infers, for C ------===//

#include "hp-c/PlacementRules.h"

#include "hp/Dialect/DTensor/IR/DTensor.h"
#include "hp/Dialect/DTensor/Layout/PlacementRules.h"
#include "hp/Dialect/DTensor/Planning/PlanAttrs.h"

#include "mlir/CAPI/IR.h"

using namespace mlir;
using namespace hp::dtensor;

/// `attr` as a placement list, or nothing with an error naming `fn`.
static std::optional<plan::PlacementList>
placementList(MlirAttribute attr, const char *fn, const char *what) {
  if (mlirAttributeIsNull(attr))
    return std::nullopt; // no context to report to
  Attribute a = unwrap(attr);
  auto list = dyn_cast<ArrayAttr>(a);
  if (!list || list.empty() ||
      !llvm::all_of(list, llvm::IsaPred<PlacementAttrInterface>)) {
    emitError(UnknownLoc::get(a.getContext()))
        << fn << ": " << what
        << " must be a non-empty array of placements, got " << a;
    return std::nullopt;
  }
  return plan::PlacementList(toPlanPlacements(list));
}

static MlirAttribute fail(MLIRContext *ctx, const char *fn, const Twine &why) {
  emitError(UnknownLoc::get(ctx)) << fn << ": " << why;
  return MlirAttribute{nullptr};
}

MlirAttribute hpPlacementsFsdpSplit(MlirAttribute placements, int64_t rank,
                                    int64_t meshDim) {
  std::optional<plan::PlacementList> list =
      placementList(placements, __func__, "placements");
  if (!list)
    return MlirAttribute{nullptr};
  MLIRContext *ctx = unwrap(placements).getContext();
  if (rank < 0)
    return fail(ctx, __func__, "rank must be non-negative, got " + Twine(rank));
  if (meshDim < 0 || meshDim >= static_cast<int64_t>(list->size()))
    return fail(ctx, __func__,
                "mesh dim " + Twine(meshDim) + " is not one of the " +
                    Twine(list->size()) + " the placements cover");
  plan::fsdpSplit(*list, rank, meshDim);
  return wrap(toPlacementsAttr(ctx, *list));
}

MlirAttribute hpPlacementsOfOptimizerState(MlirAttribute paramPlacements,
                                           intptr_t paramRank,
                                           const int64_t *paramShape,
                                           intptr_t stateRank,
                                           const int64_t *stateShape) {
  std::optional<plan::PlacementList> list =
      placementList(paramPlacements, __func__, "paramPlacements");
  if (!list)
    return MlirAttribute{nullptr};
  MLIRContext *ctx = unwrap(paramPlacements).getContext();
  if (paramRank < 0 || stateRank < 0 || (paramRank && !paramShape) ||
      (stateRank && !stateShape))
    return fail(ctx, __func__,
                "a shape must have a non-negative rank and, unless empty, "
                "its sizes");
  return wrap(
      toPlacementsAttr(ctx, plan::optimizerStatePlacements(
                                *list, llvm::ArrayRef(paramShape, paramRank),
                                llvm::ArrayRef(stateShape, stateRank))));
}

MlirAttribute hpPlacementsFromInputs(MlirContext ctx, intptr_t numInputs,
                                     const MlirAttribute *inputs, int64_t rank,
                                     int64_t meshRank, int64_t fixedDim) {
  if (mlirContextIsNull(ctx))
    return MlirAttribute{nullptr};
  MLIRContext *context = unwrap(ctx);
  if (numInputs < 0 || (numInputs && !inputs))
    return fail(context, __func__,
                "inputs must be NULL with a count of 0, or hold its count");
  if (rank < 0 || meshRank < 1 || fixedDim < -1 || fixedDim >= meshRank)
    return fail(context, __func__,
                "needs rank >= 0, meshRank >= 1 and -1 <= fixedDim < "
                "meshRank; got rank " +
                    Twine(rank) + ", meshRank " + Twine(meshRank) +
                    ", fixedDim " + Twine(fixedDim));
  std::vector<plan::PlacementList> lists;
  for (intptr_t i = 0; i < numInputs; ++i) {
    if (mlirAttributeIsNull(inputs[i]))
      return fail(context, __func__, "input " + Twine(i) + " is null");
    std::optional<plan::PlacementList> list =
        placementList(inputs[i], __func__, "each input");
    if (!list)
      return MlirAttribute{nullptr};
    if (static_cast<int64_t>(list->size()) != meshRank)
      return fail(context, __func__,
                  "input " + Twine(i) + " has " + Twine(list->size()) +
                      " placements for a mesh of " + Twine(meshRank) + " dims");
    lists.push_back(std::move(*list));
  }
  return wrap(toPlacementsAttr(
      context, plan::placementsFromInputs(lists, rank, meshRank, fixedDim)));
}
