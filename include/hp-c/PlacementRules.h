/*===- PlacementRules.h - placements a front end infers ----------*- C -*-===*\
|*                                                                            *|
|* The placement decisions a front end makes before it builds the IR: which  *|
|* parameters FSDP splits, what an optimizer's state takes, what a value     *|
|* without a declared layout takes from the inputs. hp.torch decides by      *|
|* these; a C or C++ front end gets the same answers. Placement lists are    *|
|* array attributes of placement attributes (hp-c/DTensor.h), one per mesh   *|
|* dim. Each function reports a broken argument as an error diagnostic on    *|
|* the context and returns a null attribute (a null attribute or context    *|
|* argument, which names no context, only returns null).                     *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef HP_C_PLACEMENTRULES_H
#define HP_C_PLACEMENTRULES_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

/// FSDP's split of a parameter of rank `rank` (>= 0) laid out with
/// `placements`: `shard<0>` on mesh dim `meshDim` (0 <= meshDim < the list's
/// length) where nothing splits or reduces it there and the parameter is
/// not a scalar; else `placements` unchanged.
MLIR_CAPI_EXPORTED MlirAttribute hpPlacementsFsdpSplit(MlirAttribute placements,
                                                       int64_t rank,
                                                       int64_t meshDim);

/// The placements of an optimizer state tensor of shape `stateShape`
/// (`stateRank` sizes) kept for a parameter of shape `paramShape` laid out
/// with `paramPlacements`: the parameter's where the shapes are equal, else
/// every mesh dim `replicate`.
MLIR_CAPI_EXPORTED MlirAttribute hpPlacementsOfOptimizerState(
    MlirAttribute paramPlacements, intptr_t paramRank,
    const int64_t *paramShape, intptr_t stateRank, const int64_t *stateShape);

/// The placements of a value of rank `rank` (>= 0) without a declared
/// layout, from the `numInputs` inputs' placement lists (each with
/// `meshRank` >= 1 entries): on each mesh dim, the `shard<k>` every input
/// has there when k < rank, else `replicate`; mesh dim `fixedDim` (-1: none)
/// is left `replicate` for the caller to fix.
MLIR_CAPI_EXPORTED MlirAttribute hpPlacementsFromInputs(
    MlirContext ctx, intptr_t numInputs, const MlirAttribute *inputs,
    int64_t rank, int64_t meshRank, int64_t fixedDim);

#ifdef __cplusplus
}
#endif

#endif // HP_C_PLACEMENTRULES_H
