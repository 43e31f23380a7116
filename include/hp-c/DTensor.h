/*===- DTensor.h - C API of hp's dialects ------------------------*- C -*-===*\
|*                                                                            *|
|* Dialect handles, placement attributes, the !dtensor.tensor type, mesh and  *|
|* local_region construction, and registration of hp's passes and pipelines. *|
|* Naming follows upstream MLIR's C API: hp<Dialect><Thing>Get,               *|
|* hpAttributeIsA..., hpTypeIsA...                                            *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef HP_C_DTENSOR_H
#define HP_C_DTENSOR_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(DTensor, dtensor);
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(NCCL, nccl);

/// Adds every hp dialect to `registry`.
MLIR_CAPI_EXPORTED void hpRegisterAllDialects(MlirDialectRegistry registry);
/// Registers every hp pass and the hp-partition / hp-lower-to-cpu pipelines.
MLIR_CAPI_EXPORTED void hpRegisterAllPasses(void);

//===----------------------------------------------------------------------===//
// Placements
//===----------------------------------------------------------------------===//

/// The reductions of partial<op>; values match hp::dtensor::ReduceOp.
typedef enum HPReduceOp {
  HPReduceSum = 0,
  HPReduceAvg = 1,
  HPReduceMax = 2,
  HPReduceMin = 3,
  HPReduceProd = 4,
} HPReduceOp;

MLIR_CAPI_EXPORTED MlirAttribute hpDTensorShardAttrGet(MlirContext ctx,
                                                       int64_t dim);
MLIR_CAPI_EXPORTED bool hpAttributeIsADTensorShardAttr(MlirAttribute attr);
MLIR_CAPI_EXPORTED int64_t hpDTensorShardAttrGetDim(MlirAttribute attr);

/// `#dtensor.strided_shard<dim, splitFactor>`; null if dim < 0 or
/// splitFactor < 1 (the error goes to the context's diagnostic handlers).
MLIR_CAPI_EXPORTED MlirAttribute
hpDTensorStridedShardAttrGet(MlirContext ctx, int64_t dim, int64_t splitFactor);
MLIR_CAPI_EXPORTED bool
hpAttributeIsADTensorStridedShardAttr(MlirAttribute attr);
MLIR_CAPI_EXPORTED int64_t hpDTensorStridedShardAttrGetDim(MlirAttribute attr);
MLIR_CAPI_EXPORTED int64_t
hpDTensorStridedShardAttrGetSplitFactor(MlirAttribute attr);

MLIR_CAPI_EXPORTED MlirAttribute hpDTensorReplicateAttrGet(MlirContext ctx);
MLIR_CAPI_EXPORTED bool hpAttributeIsADTensorReplicateAttr(MlirAttribute attr);

MLIR_CAPI_EXPORTED MlirAttribute hpDTensorPartialAttrGet(MlirContext ctx,
                                                         HPReduceOp op);
MLIR_CAPI_EXPORTED bool hpAttributeIsADTensorPartialAttr(MlirAttribute attr);
MLIR_CAPI_EXPORTED HPReduceOp hpDTensorPartialAttrGetReduceOp(MlirAttribute attr);

//===----------------------------------------------------------------------===//
// !dtensor.tensor
//===----------------------------------------------------------------------===//

/// The DTensor type, or a null type (with a diagnostic on the context) when
/// it is invalid. `mesh` is the mesh symbol's name without '@'.
MLIR_CAPI_EXPORTED MlirType hpDTensorTypeGet(MlirContext ctx, intptr_t rank,
                                             const int64_t *shape,
                                             MlirType elementType,
                                             MlirStringRef mesh,
                                             intptr_t numPlacements,
                                             const MlirAttribute *placements);
MLIR_CAPI_EXPORTED bool hpTypeIsADTensorType(MlirType type);
MLIR_CAPI_EXPORTED intptr_t hpDTensorTypeGetRank(MlirType type);
MLIR_CAPI_EXPORTED int64_t hpDTensorTypeGetDimSize(MlirType type, intptr_t dim);
MLIR_CAPI_EXPORTED MlirType hpDTensorTypeGetElementType(MlirType type);
MLIR_CAPI_EXPORTED MlirStringRef hpDTensorTypeGetMesh(MlirType type);
MLIR_CAPI_EXPORTED intptr_t hpDTensorTypeGetNumPlacements(MlirType type);
MLIR_CAPI_EXPORTED MlirAttribute hpDTensorTypeGetPlacement(MlirType type,
                                                           intptr_t pos);
/// The local tensor type one rank holds on a mesh of `meshShape`
/// (torch.chunk sizes; dynamic where ranks differ); null if the placement
/// list does not have one entry per mesh dim.
MLIR_CAPI_EXPORTED MlirType hpDTensorTypeGetLocalType(MlirType type,
                                                      intptr_t meshRank,
                                                      const int64_t *meshShape);

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

/// `dtensor.mesh @name shape = [...] names = [...] devices = [...]`; `names`
/// and `devices` may be null.
MLIR_CAPI_EXPORTED MlirOperation
hpDTensorMeshOpCreate(MlirLocation loc, MlirStringRef name, intptr_t rank,
                      const int64_t *shape, const MlirStringRef *names,
                      const int64_t *devices);
MLIR_CAPI_EXPORTED bool hpOperationIsADTensorMeshOp(MlirOperation op);

/// A `dtensor.local_region` with an entry block whose arguments have
/// `blockArgTypes`; append the body and a yield (hpDTensorYieldOpCreate).
/// `inPlacements` is a dictionary (name -> array of placements or unit for
/// `none`) or null; `outPlacements` an array (flat or per-output) or null.
MLIR_CAPI_EXPORTED MlirOperation hpDTensorLocalRegionOpCreate(
    MlirLocation loc, MlirStringRef mesh, intptr_t numArgs,
    const MlirValue *args, const MlirStringRef *argNames,
    const MlirType *blockArgTypes, MlirAttribute inPlacements,
    MlirAttribute outPlacements, bool redistributeInputs, intptr_t numResults,
    const MlirType *resultTypes);
MLIR_CAPI_EXPORTED MlirBlock hpDTensorLocalRegionOpGetBody(MlirOperation op);

/// A `dtensor.local_call` of the func.func `callee` on `mesh`: the decorator
/// form. `inPlacements` / `outPlacements` as for local_region; the callee's
/// arguments are named by their `dtensor.arg_name` attributes
/// (hpFuncSetArgName).
MLIR_CAPI_EXPORTED MlirOperation hpDTensorLocalCallOpCreate(
    MlirLocation loc, MlirStringRef callee, MlirStringRef mesh,
    intptr_t numArgs, const MlirValue *args, MlirAttribute inPlacements,
    MlirAttribute outPlacements, bool redistributeInputs, bool unchecked,
    intptr_t numResults, const MlirType *resultTypes);

/// Names argument `index` of the func.func `func` for local_call
/// (`dtensor.arg_name`).
MLIR_CAPI_EXPORTED void hpFuncSetArgName(MlirOperation func, intptr_t index,
                                         MlirStringRef name);

/// Parses `text` as a module whose locations name `filename`; null on error
/// (the diagnostics go to the context's handlers).
MLIR_CAPI_EXPORTED MlirModule hpModuleCreateParseNamed(MlirContext ctx,
                                                       MlirStringRef text,
                                                       MlirStringRef filename);

MLIR_CAPI_EXPORTED MlirOperation hpDTensorYieldOpCreate(MlirLocation loc,
                                                        intptr_t numValues,
                                                        const MlirValue *values);

#ifdef __cplusplus
}
#endif

#endif // HP_C_DTENSOR_H
