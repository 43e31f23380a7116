/*===- DTensor.h - C API of hp's dialects ------------------------*- C -*-===*\
|*                                                                            *|
|* Dialect handles, placement attributes, the !dtensor.tensor type, mesh and  *|
|* local_region construction, and registration of hp's passes and pipelines. *|
|* Naming follows upstream MLIR's C API: hp<Dialect><Thing>Get,               *|
|* hpAttributeIsA..., hpTypeIsA...                                            *|
|*                                                                            *|
|* Bad input never crashes. Every function checks its arguments:             *|
|*  - A null handle passed in (context, location, attribute, type,           *|
|*    operation) gives a null result, false or the accessor's sentinel,      *|
|*    without a diagnostic (there is no context to report on).               *|
|*  - Any other broken precondition (a negative count, a NULL array or       *|
|*    string with a non-zero count or length, a null entry in an array, an   *|
|*    index out of range, an attribute, type or op of the wrong kind, an     *|
|*    unknown enum value, an invalid dim) emits one error diagnostic on the   *|
|*    context, naming the function and what was wrong, and gives a null      *|
|*    handle (check with mlirXIsNull), false, or the documented sentinel.    *|
|* Arrays may be NULL when their count is 0. A string is invalid when its     *|
|* data is NULL and its length is not 0.                                      *|
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

/// Adds every hp dialect to `registry`; does nothing for a null registry.
MLIR_CAPI_EXPORTED void hpRegisterAllDialects(MlirDialectRegistry registry);
/// Registers every hp pass and the hp-partition / hp-lower-to-cpu pipelines.
MLIR_CAPI_EXPORTED void hpRegisterAllPasses(void);

//===----------------------------------------------------------------------===//
// Placements
//===----------------------------------------------------------------------===//

/// The reductions of partial<op>; values match hp::dtensor::ReduceOp.
/// HPReduceInvalid is never a valid argument: it is what
/// hpDTensorPartialAttrGetReduceOp returns for an attribute that is not a
/// partial.
typedef enum HPReduceOp {
  HPReduceInvalid = -1,
  HPReduceSum = 0,
  HPReduceAvg = 1,
  HPReduceMax = 2,
  HPReduceMin = 3,
  HPReduceProd = 4,
} HPReduceOp;

/// `#dtensor.shard<dim>`; null if `dim` < 0 (with a diagnostic) or `ctx` is
/// null.
MLIR_CAPI_EXPORTED MlirAttribute hpDTensorShardAttrGet(MlirContext ctx,
                                                       int64_t dim);
/// Whether `attr` is a shard placement; false for a null attribute. The same
/// holds for every hpAttributeIsA... below.
MLIR_CAPI_EXPORTED bool hpAttributeIsADTensorShardAttr(MlirAttribute attr);
/// The sharded tensor dim; -1 if `attr` is null or not a shard (with a
/// diagnostic).
MLIR_CAPI_EXPORTED int64_t hpDTensorShardAttrGetDim(MlirAttribute attr);

/// `#dtensor.strided_shard<dim, splitFactor>`; null if dim < 0 or
/// splitFactor < 1 (with a diagnostic) or `ctx` is null.
MLIR_CAPI_EXPORTED MlirAttribute
hpDTensorStridedShardAttrGet(MlirContext ctx, int64_t dim, int64_t splitFactor);
MLIR_CAPI_EXPORTED bool
hpAttributeIsADTensorStridedShardAttr(MlirAttribute attr);
/// The sharded tensor dim; -1 if `attr` is null or not a strided_shard (with a
/// diagnostic).
MLIR_CAPI_EXPORTED int64_t hpDTensorStridedShardAttrGetDim(MlirAttribute attr);
/// The split factor; -1 if `attr` is null or not a strided_shard (with a
/// diagnostic).
MLIR_CAPI_EXPORTED int64_t
hpDTensorStridedShardAttrGetSplitFactor(MlirAttribute attr);

/// `#dtensor.replicate`; null if `ctx` is null.
MLIR_CAPI_EXPORTED MlirAttribute hpDTensorReplicateAttrGet(MlirContext ctx);
MLIR_CAPI_EXPORTED bool hpAttributeIsADTensorReplicateAttr(MlirAttribute attr);

/// `#dtensor.partial<op>`; null if `op` is not one of HPReduceSum ..
/// HPReduceProd (with a diagnostic) or `ctx` is null.
MLIR_CAPI_EXPORTED MlirAttribute hpDTensorPartialAttrGet(MlirContext ctx,
                                                         HPReduceOp op);
MLIR_CAPI_EXPORTED bool hpAttributeIsADTensorPartialAttr(MlirAttribute attr);
/// The reduction; HPReduceInvalid if `attr` is null or not a partial (with a
/// diagnostic).
MLIR_CAPI_EXPORTED HPReduceOp
hpDTensorPartialAttrGetReduceOp(MlirAttribute attr);
/// The reduction named `name` as written in the IR (`sum`, `avg`, ...);
/// HPReduceInvalid if there is none.
MLIR_CAPI_EXPORTED HPReduceOp hpDTensorReduceOpFromName(MlirStringRef name);
/// The IR name of `op` (`sum`, ...); an empty string if `op` is not one of
/// HPReduceSum .. HPReduceProd.
MLIR_CAPI_EXPORTED MlirStringRef hpDTensorReduceOpGetName(HPReduceOp op);

//===----------------------------------------------------------------------===//
// !dtensor.tensor
//===----------------------------------------------------------------------===//

/// The DTensor type, or a null type (with a diagnostic on the context) when
/// it is invalid. `mesh` is the mesh symbol's name without '@', a plain
/// symbol name ([A-Za-z_][A-Za-z0-9_$.-]*, hp/Support/SymbolName.h: the one
/// rule for names users type, as every function below checks it). `shape` has
/// `rank` entries (>= 0, or the dynamic size); `placements` has `numPlacements`
/// (>= 1) non-null placement attributes (shard, strided_shard, replicate,
/// partial): any other attribute kind is an error. The element type must be one
/// NCCL can move.
MLIR_CAPI_EXPORTED MlirType hpDTensorTypeGet(MlirContext ctx, intptr_t rank,
                                             const int64_t *shape,
                                             MlirType elementType,
                                             MlirStringRef mesh,
                                             intptr_t numPlacements,
                                             const MlirAttribute *placements);
/// Whether `type` is a !dtensor.tensor; false for a null type.
MLIR_CAPI_EXPORTED bool hpTypeIsADTensorType(MlirType type);
/// The accessors below take a !dtensor.tensor. For a null type they return
/// the sentinel given; for a type of another kind, the sentinel and a
/// diagnostic.

/// The tensor rank; -1 on error.
MLIR_CAPI_EXPORTED intptr_t hpDTensorTypeGetRank(MlirType type);
/// The global size of `dim` (0 <= dim < rank); -1 on error.
MLIR_CAPI_EXPORTED int64_t hpDTensorTypeGetDimSize(MlirType type, intptr_t dim);
/// The element type; null on error.
MLIR_CAPI_EXPORTED MlirType hpDTensorTypeGetElementType(MlirType type);
/// The mesh name (owned by the context); {NULL, 0} on error.
MLIR_CAPI_EXPORTED MlirStringRef hpDTensorTypeGetMesh(MlirType type);
/// The number of placements; -1 on error.
MLIR_CAPI_EXPORTED intptr_t hpDTensorTypeGetNumPlacements(MlirType type);
/// Placement `pos` (0 <= pos < hpDTensorTypeGetNumPlacements); null on error.
MLIR_CAPI_EXPORTED MlirAttribute hpDTensorTypeGetPlacement(MlirType type,
                                                           intptr_t pos);
/// The local tensor type one rank holds on a mesh of `meshShape`
/// (torch.chunk sizes; dynamic where ranks differ). Null, with a diagnostic,
/// if `type` is not a !dtensor.tensor, `meshRank` differs from its number of
/// placements, a mesh dim is < 1, the mesh has more than 2^31 - 1 devices,
/// or a strided_shard's split factor does not fit the mesh.
MLIR_CAPI_EXPORTED MlirType hpDTensorTypeGetLocalType(MlirType type,
                                                      intptr_t meshRank,
                                                      const int64_t *meshShape);

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//
//
// The create functions return a detached operation the caller owns (append it
// to a block or destroy it), or a null operation on error. The local_region
// and local_call ops are checked for well-formed arguments only: their
// contracts need the mesh and the callee, so verify the finished module.

/// `dtensor.mesh @name shape = [...] names = [...] devices = [...]`, verified:
/// `name` a plain symbol name, `rank` >= 1 sizes >= 1 of at most 2^31 - 1
/// devices in all; `names` (NULL for none) has `rank` distinct non-empty
/// entries; `devices` (NULL for none) has one entry per device, a permutation
/// of a contiguous range of non-negative ranks.
MLIR_CAPI_EXPORTED MlirOperation hpDTensorMeshOpCreate(
    MlirLocation loc, MlirStringRef name, intptr_t rank, const int64_t *shape,
    const MlirStringRef *names, const int64_t *devices);
/// Whether `op` is a dtensor.mesh; false for a null operation.
MLIR_CAPI_EXPORTED bool hpOperationIsADTensorMeshOp(MlirOperation op);

/// A `dtensor.local_region` with an entry block whose arguments have
/// `blockArgTypes`; append the body and a yield (hpDTensorYieldOpCreate).
/// `mesh` is a plain symbol name; `args`, `argNames` and `blockArgTypes` have
/// `numArgs` non-null entries, `resultTypes` `numResults`.
/// `inPlacements` is null or a dictionary whose values are arrays of
/// placements or unit (for `none`); `outPlacements` is null or an array with
/// one entry per result, an array of placements or unit (for `none`): a
/// single result's list is `[[...]]`, the textual syntax's flat form is not
/// taken. Another attribute kind anywhere in them is an error.
MLIR_CAPI_EXPORTED MlirOperation hpDTensorLocalRegionOpCreate(
    MlirLocation loc, MlirStringRef mesh, intptr_t numArgs,
    const MlirValue *args, const MlirStringRef *argNames,
    const MlirType *blockArgTypes, MlirAttribute inPlacements,
    MlirAttribute outPlacements, bool redistributeInputs, intptr_t numResults,
    const MlirType *resultTypes);
/// The body block of a dtensor.local_region; null if `op` is null, or (with
/// a diagnostic) not a local_region or without a body block.
MLIR_CAPI_EXPORTED MlirBlock hpDTensorLocalRegionOpGetBody(MlirOperation op);

/// A `dtensor.local_call` of the func.func `callee` on `mesh`: the decorator
/// form. `callee` and `mesh` are plain symbol names; `args` has `numArgs`
/// non-null entries, `resultTypes` `numResults`. `inPlacements` /
/// `outPlacements` as for local_region; the callee's arguments are named by
/// their `dtensor.arg_name` attributes (hpFuncSetArgName).
MLIR_CAPI_EXPORTED MlirOperation hpDTensorLocalCallOpCreate(
    MlirLocation loc, MlirStringRef callee, MlirStringRef mesh,
    intptr_t numArgs, const MlirValue *args, MlirAttribute inPlacements,
    MlirAttribute outPlacements, bool redistributeInputs, bool unchecked,
    intptr_t numResults, const MlirType *resultTypes);

/// Names argument `index` of the function `func` for local_call
/// (`dtensor.arg_name`). Returns false and changes nothing if `func` is null,
/// or (with a diagnostic) not a function with a function type, `index` is
/// out of range or `name` is empty.
MLIR_CAPI_EXPORTED bool hpFuncSetArgName(MlirOperation func, intptr_t index,
                                         MlirStringRef name);

/// The attributes of the global view (hp.torch sets them before
/// dtensor-globalize): `dtensor.mesh = @mesh` on `func` (`mesh` a plain
/// symbol name); `dtensor.placements` on argument or result `index` and
/// `dtensor.constrain` on result `index` (`placements` an array of placement
/// attributes); `dtensor.fsdp_axes = array<i64: axes...>` on argument
/// `index`. Each returns false and changes nothing if `func` is null, or
/// (with a diagnostic) not a function with a function type, `index` is out
/// of range or the value is not of that kind. The dialect's verifier checks
/// the rest (a mesh that exists, axes that split the argument).
MLIR_CAPI_EXPORTED bool hpFuncSetMesh(MlirOperation func, MlirStringRef mesh);
MLIR_CAPI_EXPORTED bool hpFuncSetArgPlacements(MlirOperation func,
                                               intptr_t index,
                                               MlirAttribute placements);
MLIR_CAPI_EXPORTED bool hpFuncSetResultPlacements(MlirOperation func,
                                                  intptr_t index,
                                                  MlirAttribute placements);
MLIR_CAPI_EXPORTED bool hpFuncSetResultConstrain(MlirOperation func,
                                                 intptr_t index,
                                                 MlirAttribute placements);
MLIR_CAPI_EXPORTED bool hpFuncSetArgFsdpAxes(MlirOperation func, intptr_t index,
                                             intptr_t count,
                                             const int64_t *axes);

/// Parses `text` as a module whose locations name `filename`, and verifies
/// it; null on error (the diagnostics go to the context's handlers), and
/// null without parsing for text nesting deeper than 512 brackets.
MLIR_CAPI_EXPORTED MlirModule hpModuleCreateParseNamed(MlirContext ctx,
                                                       MlirStringRef text,
                                                       MlirStringRef filename);

/// A `dtensor.global_region` on `mesh` (a plain symbol name) over `numArgs`
/// non-null `args`, with `numResults` non-null `resultTypes`, and an entry
/// block whose arguments are the operands' global types (a DTensor's global
/// tensor, anything else unchanged); append the body and a yield.
MLIR_CAPI_EXPORTED MlirOperation hpDTensorGlobalRegionOpCreate(
    MlirLocation loc, MlirStringRef mesh, intptr_t numArgs,
    const MlirValue *args, intptr_t numResults, const MlirType *resultTypes);
/// The body block of a dtensor.global_region; null if `op` is null, or (with
/// a diagnostic) not a global_region or without a body block.
MLIR_CAPI_EXPORTED MlirBlock hpDTensorGlobalRegionOpGetBody(MlirOperation op);
/// `dtensor.constrain %input [placements]`: `input` a non-null ranked
/// tensor value, `placements` `numPlacements` non-null placement attributes
/// (one per mesh dim of the enclosing global_region, checked when the module
/// is verified).
MLIR_CAPI_EXPORTED MlirOperation hpDTensorConstrainOpCreate(
    MlirLocation loc, MlirValue input, intptr_t numPlacements,
    const MlirAttribute *placements);

/// A `dtensor.yield` of `numValues` non-null `values`.
MLIR_CAPI_EXPORTED MlirOperation hpDTensorYieldOpCreate(
    MlirLocation loc, intptr_t numValues, const MlirValue *values);

/// Copies function `name` of `source` into `dest` as `newName`, with the
/// meshes `source` holds (one `dest` has must be identical), so that one
/// session serves both (dtensor-add-driver{extra-entries=newName}). Fails,
/// with a diagnostic in `dest`'s context and `dest` unchanged, for a null
/// module or string, modules of different contexts, no such function, a
/// `newName` that is not a plain symbol name or is already taken, a mesh that
/// differs, or a function calling another.
MLIR_CAPI_EXPORTED MlirLogicalResult
hpModuleImportFunction(MlirModule dest, MlirModule source, MlirStringRef name,
                       MlirStringRef newName);

#ifdef __cplusplus
}
#endif

#endif // HP_C_DTENSOR_H
