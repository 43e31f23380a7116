//===- dtensor-capi-errors.c - every C API function given bad input -------===//
// RUN: hp-capi-errors-test 2>&1 | FileCheck %s
//
// Each call breaks one precondition of include/hp-c/DTensor.h. It must
// return the documented null handle or sentinel, and report what was wrong
// through the context's diagnostic handler (one diagnostic), except when the
// handle it would report through is itself null (no diagnostic). Every line
// `label: null=1 diags=N` is checked, with the diagnostic just before it.
//===----------------------------------------------------------------------===//

#include "hp-c/DTensor.h"
#include "hp-c/PlacementRules.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/RegisterEverything.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int numDiags;

static void print(MlirStringRef s, void *unused) {
  (void)unused;
  fwrite(s.data, 1, s.length, stdout);
}

static MlirLogicalResult onDiagnostic(MlirDiagnostic d, void *unused) {
  (void)unused;
  ++numDiags;
  printf("diag: ");
  mlirDiagnosticPrint(d, print, NULL);
  printf(" @ ");
  mlirLocationPrint(mlirDiagnosticGetLocation(d), print, NULL);
  printf("\n");
  return mlirLogicalResultSuccess();
}

static MlirStringRef str(const char *s) {
  return mlirStringRefCreateFromCString(s);
}

/// A string of `length` bytes at NULL: no function may read it.
static MlirStringRef nullStr(size_t length) {
  return mlirStringRefCreate(NULL, length);
}

static int before;
static void start(void) { before = numDiags; }
/// One checked call: whether it gave the null handle or sentinel, and how
/// many diagnostics it emitted.
static void report(const char *label, int isNull) {
  printf("%s: null=%d diags=%d\n", label, isNull, numDiags - before);
}

#define EXPECT_NULL_ATTR(label, call)                                          \
  do {                                                                         \
    start();                                                                   \
    report(label, mlirAttributeIsNull(call));                                  \
  } while (0)
#define EXPECT_NULL_TYPE(label, call)                                          \
  do {                                                                         \
    start();                                                                   \
    report(label, mlirTypeIsNull(call));                                       \
  } while (0)
#define EXPECT_NULL_OP(label, call)                                            \
  do {                                                                         \
    start();                                                                   \
    report(label, mlirOperationIsNull(call));                                  \
  } while (0)
#define EXPECT_VALUE(label, call, sentinel)                                    \
  do {                                                                         \
    start();                                                                   \
    report(label, (call) == (sentinel));                                       \
  } while (0)

static MlirContext makeContext(void) {
  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  hpRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  mlirContextLoadAllAvailableDialects(ctx);
  mlirContextAttachDiagnosticHandler(ctx, onDiagnostic, NULL, NULL);
  return ctx;
}

static void placements(MlirContext ctx) {
  MlirContext noCtx = {NULL};
  MlirAttribute noAttr = mlirAttributeGetNull();
  MlirAttribute replicate = hpDTensorReplicateAttrGet(ctx);
  MlirAttribute shard = hpDTensorShardAttrGet(ctx, 0);

  EXPECT_NULL_ATTR("shard null ctx", hpDTensorShardAttrGet(noCtx, 0));
  // CHECK: shard null ctx: null=1 diags=0
  EXPECT_NULL_ATTR("shard -1", hpDTensorShardAttrGet(ctx, -1));
  // CHECK: diag: shard dim must be non-negative, got -1
  // CHECK-NEXT: shard -1: null=1 diags=1
  EXPECT_NULL_ATTR("strided null ctx",
                   hpDTensorStridedShardAttrGet(noCtx, 0, 2));
  // CHECK: strided null ctx: null=1 diags=0
  EXPECT_NULL_ATTR("strided -1", hpDTensorStridedShardAttrGet(ctx, -1, 2));
  // CHECK: diag: strided_shard dim must be non-negative, got -1
  // CHECK-NEXT: strided -1: null=1 diags=1
  EXPECT_NULL_ATTR("replicate null ctx", hpDTensorReplicateAttrGet(noCtx));
  // CHECK: replicate null ctx: null=1 diags=0
  EXPECT_NULL_ATTR("partial null ctx",
                   hpDTensorPartialAttrGet(noCtx, HPReduceSum));
  // CHECK: partial null ctx: null=1 diags=0
  EXPECT_NULL_ATTR("partial 99", hpDTensorPartialAttrGet(ctx, (HPReduceOp)99));
  // CHECK: diag: hpDTensorPartialAttrGet: unknown reduce op 99; expected 0 (sum) to 4 (prod)
  // CHECK-NEXT: partial 99: null=1 diags=1
  EXPECT_NULL_ATTR("partial -1",
                   hpDTensorPartialAttrGet(ctx, HPReduceInvalid));
  // CHECK: diag: hpDTensorPartialAttrGet: unknown reduce op -1
  // CHECK-NEXT: partial -1: null=1 diags=1

  EXPECT_VALUE("isa null", hpAttributeIsADTensorShardAttr(noAttr) +
                               hpAttributeIsADTensorStridedShardAttr(noAttr) +
                               hpAttributeIsADTensorReplicateAttr(noAttr) +
                               hpAttributeIsADTensorPartialAttr(noAttr),
               0);
  // CHECK: isa null: null=1 diags=0
  EXPECT_VALUE("shard dim null", hpDTensorShardAttrGetDim(noAttr), -1);
  // CHECK: shard dim null: null=1 diags=0
  EXPECT_VALUE("shard dim of replicate", hpDTensorShardAttrGetDim(replicate),
               -1);
  // CHECK: diag: hpDTensorShardAttrGetDim: #dtensor.replicate is not a #dtensor.shard
  // CHECK-NEXT: shard dim of replicate: null=1 diags=1
  EXPECT_VALUE("strided dim null", hpDTensorStridedShardAttrGetDim(noAttr), -1);
  // CHECK: strided dim null: null=1 diags=0
  EXPECT_VALUE("strided dim of shard", hpDTensorStridedShardAttrGetDim(shard),
               -1);
  // CHECK: diag: hpDTensorStridedShardAttrGetDim: #dtensor.shard<0> is not a #dtensor.strided_shard
  // CHECK-NEXT: strided dim of shard: null=1 diags=1
  EXPECT_VALUE("factor null", hpDTensorStridedShardAttrGetSplitFactor(noAttr),
               -1);
  // CHECK: factor null: null=1 diags=0
  EXPECT_VALUE("factor of shard",
               hpDTensorStridedShardAttrGetSplitFactor(shard), -1);
  // CHECK: diag: hpDTensorStridedShardAttrGetSplitFactor: #dtensor.shard<0> is not a #dtensor.strided_shard
  // CHECK-NEXT: factor of shard: null=1 diags=1
  EXPECT_VALUE("reduce op null", hpDTensorPartialAttrGetReduceOp(noAttr),
               HPReduceInvalid);
  // CHECK: reduce op null: null=1 diags=0
  EXPECT_VALUE("reduce op of shard", hpDTensorPartialAttrGetReduceOp(shard),
               HPReduceInvalid);
  // CHECK: diag: hpDTensorPartialAttrGetReduceOp: #dtensor.shard<0> is not a #dtensor.partial
  // CHECK-NEXT: reduce op of shard: null=1 diags=1
}

static void types(MlirContext ctx) {
  MlirContext noCtx = {NULL};
  MlirType noType = {NULL};
  MlirType f32 = mlirF32TypeGet(ctx);
  int64_t shape[2] = {8, 4};
  MlirAttribute sr[2] = {hpDTensorShardAttrGet(ctx, 0),
                         hpDTensorReplicateAttrGet(ctx)};
  MlirType dt = hpDTensorTypeGet(ctx, 2, shape, f32, str("mesh"), 2, sr);

  EXPECT_NULL_TYPE("type null ctx",
                   hpDTensorTypeGet(noCtx, 2, shape, f32, str("mesh"), 2, sr));
  // CHECK: type null ctx: null=1 diags=0
  EXPECT_NULL_TYPE("type rank -1",
                   hpDTensorTypeGet(ctx, -1, shape, f32, str("mesh"), 2, sr));
  // CHECK: diag: hpDTensorTypeGet: shape count must be non-negative, got -1
  // CHECK-NEXT: type rank -1: null=1 diags=1
  EXPECT_NULL_TYPE("type shape NULL",
                   hpDTensorTypeGet(ctx, 2, NULL, f32, str("mesh"), 2, sr));
  // CHECK: diag: hpDTensorTypeGet: shape is NULL but its count is 2
  // CHECK-NEXT: type shape NULL: null=1 diags=1
  EXPECT_NULL_TYPE("type placements -1",
                   hpDTensorTypeGet(ctx, 2, shape, f32, str("mesh"), -1, sr));
  // CHECK: diag: hpDTensorTypeGet: placements count must be non-negative, got -1
  // CHECK-NEXT: type placements -1: null=1 diags=1
  EXPECT_NULL_TYPE("type placements NULL",
                   hpDTensorTypeGet(ctx, 2, shape, f32, str("mesh"), 2, NULL));
  // CHECK: diag: hpDTensorTypeGet: placements is NULL but its count is 2
  // CHECK-NEXT: type placements NULL: null=1 diags=1
  MlirAttribute withNull[2] = {sr[0], mlirAttributeGetNull()};
  EXPECT_NULL_TYPE("type null placement", hpDTensorTypeGet(ctx, 2, shape, f32,
                                                           str("mesh"), 2,
                                                           withNull));
  // CHECK: diag: hpDTensorTypeGet: placements entry #1 is null
  // CHECK-NEXT: type null placement: null=1 diags=1
  MlirAttribute withInt[2] = {sr[0],
                              mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), 3)};
  EXPECT_NULL_TYPE("type integer placement",
                   hpDTensorTypeGet(ctx, 2, shape, f32, str("mesh"), 2,
                                    withInt));
  // CHECK: diag: hpDTensorTypeGet: placements entry #1 is 3 : i64, not a placement
  // CHECK-NEXT: type integer placement: null=1 diags=1
  EXPECT_NULL_TYPE("type no placements",
                   hpDTensorTypeGet(ctx, 2, shape, f32, str("mesh"), 0, NULL));
  // CHECK: diag: dtensor needs at least one placement
  // CHECK-NEXT: type no placements: null=1 diags=1
  EXPECT_NULL_TYPE("type null element",
                   hpDTensorTypeGet(ctx, 2, shape, noType, str("mesh"), 2, sr));
  // CHECK: diag: hpDTensorTypeGet: the element type is null
  // CHECK-NEXT: type null element: null=1 diags=1
  EXPECT_NULL_TYPE("type null mesh",
                   hpDTensorTypeGet(ctx, 2, shape, f32, nullStr(4), 2, sr));
  // CHECK: diag: hpDTensorTypeGet: mesh is a NULL string of length 4
  // CHECK-NEXT: type null mesh: null=1 diags=1
  EXPECT_NULL_TYPE("type empty mesh",
                   hpDTensorTypeGet(ctx, 2, shape, f32, str(""), 2, sr));
  // CHECK: diag: hpDTensorTypeGet: mesh must not be empty
  // CHECK-NEXT: type empty mesh: null=1 diags=1
  // The one rule for names users type (hp/Support/SymbolName.h): a name
  // MLIR would have to quote is refused.
  EXPECT_NULL_TYPE("type quoted mesh",
                   hpDTensorTypeGet(ctx, 2, shape, f32, str("my mesh"), 2, sr));
  // CHECK: diag: hpDTensorTypeGet: mesh 'my mesh' is not a symbol name ([A-Za-z_][A-Za-z0-9_$.-]*)
  // CHECK-NEXT: type quoted mesh: null=1 diags=1
  int64_t negative[2] = {8, -5};
  EXPECT_NULL_TYPE("type dim -5",
                   hpDTensorTypeGet(ctx, 2, negative, f32, str("mesh"), 2, sr));
  // CHECK: diag: dtensor dims must be non-negative or '?', got -5
  // CHECK-NEXT: type dim -5: null=1 diags=1

  EXPECT_VALUE("isa type null", hpTypeIsADTensorType(noType), 0);
  // CHECK: isa type null: null=1 diags=0
  EXPECT_VALUE("rank null", hpDTensorTypeGetRank(noType), -1);
  // CHECK: rank null: null=1 diags=0
  EXPECT_VALUE("rank f32", hpDTensorTypeGetRank(f32), -1);
  // CHECK: diag: hpDTensorTypeGetRank: 'f32' is not a !dtensor.tensor
  // CHECK-NEXT: rank f32: null=1 diags=1
  EXPECT_VALUE("dim null", hpDTensorTypeGetDimSize(noType, 0), -1);
  // CHECK: dim null: null=1 diags=0
  EXPECT_VALUE("dim 2", hpDTensorTypeGetDimSize(dt, 2), -1);
  // CHECK: diag: hpDTensorTypeGetDimSize: dim 2 is out of range for a tensor of rank 2
  // CHECK-NEXT: dim 2: null=1 diags=1
  EXPECT_VALUE("dim -1", hpDTensorTypeGetDimSize(dt, -1), -1);
  // CHECK: diag: hpDTensorTypeGetDimSize: dim -1 is out of range for a tensor of rank 2
  // CHECK-NEXT: dim -1: null=1 diags=1
  EXPECT_VALUE("dim f32", hpDTensorTypeGetDimSize(f32, 0), -1);
  // CHECK: diag: hpDTensorTypeGetDimSize: 'f32' is not a !dtensor.tensor
  // CHECK-NEXT: dim f32: null=1 diags=1
  EXPECT_NULL_TYPE("element null", hpDTensorTypeGetElementType(noType));
  // CHECK: element null: null=1 diags=0
  EXPECT_NULL_TYPE("element f32", hpDTensorTypeGetElementType(f32));
  // CHECK: diag: hpDTensorTypeGetElementType: 'f32' is not a !dtensor.tensor
  // CHECK-NEXT: element f32: null=1 diags=1
  EXPECT_VALUE("mesh null", hpDTensorTypeGetMesh(noType).data, NULL);
  // CHECK: mesh null: null=1 diags=0
  EXPECT_VALUE("mesh f32", hpDTensorTypeGetMesh(f32).length, 0);
  // CHECK: diag: hpDTensorTypeGetMesh: 'f32' is not a !dtensor.tensor
  // CHECK-NEXT: mesh f32: null=1 diags=1
  EXPECT_VALUE("placements null", hpDTensorTypeGetNumPlacements(noType), -1);
  // CHECK: placements null: null=1 diags=0
  EXPECT_VALUE("placements f32", hpDTensorTypeGetNumPlacements(f32), -1);
  // CHECK: diag: hpDTensorTypeGetNumPlacements: 'f32' is not a !dtensor.tensor
  // CHECK-NEXT: placements f32: null=1 diags=1
  EXPECT_NULL_ATTR("placement null", hpDTensorTypeGetPlacement(noType, 0));
  // CHECK: placement null: null=1 diags=0
  EXPECT_NULL_ATTR("placement 2", hpDTensorTypeGetPlacement(dt, 2));
  // CHECK: diag: hpDTensorTypeGetPlacement: placement 2 is out of range; the type has 2
  // CHECK-NEXT: placement 2: null=1 diags=1
  EXPECT_NULL_ATTR("placement -1", hpDTensorTypeGetPlacement(dt, -1));
  // CHECK: diag: hpDTensorTypeGetPlacement: placement -1 is out of range; the type has 2
  // CHECK-NEXT: placement -1: null=1 diags=1
  EXPECT_NULL_ATTR("placement f32", hpDTensorTypeGetPlacement(f32, 0));
  // CHECK: diag: hpDTensorTypeGetPlacement: 'f32' is not a !dtensor.tensor
  // CHECK-NEXT: placement f32: null=1 diags=1

  int64_t mesh[2] = {2, 2};
  EXPECT_NULL_TYPE("local null", hpDTensorTypeGetLocalType(noType, 2, mesh));
  // CHECK: local null: null=1 diags=0
  EXPECT_NULL_TYPE("local f32", hpDTensorTypeGetLocalType(f32, 2, mesh));
  // CHECK: diag: hpDTensorTypeGetLocalType: 'f32' is not a !dtensor.tensor
  // CHECK-NEXT: local f32: null=1 diags=1
  EXPECT_NULL_TYPE("local rank 1", hpDTensorTypeGetLocalType(dt, 1, mesh));
  // CHECK: diag: hpDTensorTypeGetLocalType: a mesh of rank 1 for a type with 2 placements
  // CHECK-NEXT: local rank 1: null=1 diags=1
  EXPECT_NULL_TYPE("local rank -1", hpDTensorTypeGetLocalType(dt, -1, mesh));
  // CHECK: diag: hpDTensorTypeGetLocalType: meshShape count must be non-negative, got -1
  // CHECK-NEXT: local rank -1: null=1 diags=1
  EXPECT_NULL_TYPE("local NULL", hpDTensorTypeGetLocalType(dt, 2, NULL));
  // CHECK: diag: hpDTensorTypeGetLocalType: meshShape is NULL but its count is 2
  // CHECK-NEXT: local NULL: null=1 diags=1
  int64_t zero[2] = {0, 2};
  EXPECT_NULL_TYPE("local 0", hpDTensorTypeGetLocalType(dt, 2, zero));
  // CHECK: diag: hpDTensorTypeGetLocalType: mesh dim 0 has size 0; sizes must be >= 1
  // CHECK-NEXT: local 0: null=1 diags=1
  int64_t minus[2] = {2, -3};
  EXPECT_NULL_TYPE("local -3", hpDTensorTypeGetLocalType(dt, 2, minus));
  // CHECK: diag: hpDTensorTypeGetLocalType: mesh dim 1 has size -3; sizes must be >= 1
  // CHECK-NEXT: local -3: null=1 diags=1
  int64_t huge[2] = {INT64_MAX, INT64_MAX};
  EXPECT_NULL_TYPE("local huge", hpDTensorTypeGetLocalType(dt, 2, huge));
  // CHECK: diag: hpDTensorTypeGetLocalType: mesh has more than 2147483647 devices
  // CHECK-NEXT: local huge: null=1 diags=1
  MlirAttribute strided[2] = {hpDTensorStridedShardAttrGet(ctx, 0, 3),
                              hpDTensorShardAttrGet(ctx, 0)};
  MlirType st = hpDTensorTypeGet(ctx, 2, shape, f32, str("mesh"), 2, strided);
  EXPECT_NULL_TYPE("local strided", hpDTensorTypeGetLocalType(st, 2, mesh));
  // CHECK: diag: hpDTensorTypeGetLocalType: strided_shard<0, 3> on mesh dim 0 needs split factor 2
  // CHECK-NEXT: local strided: null=1 diags=1
  strided[0] = hpDTensorStridedShardAttrGet(ctx, 0, 2);
  st = hpDTensorTypeGet(ctx, 2, shape, f32, str("mesh"), 2, strided);
  EXPECT_NULL_TYPE("local strided ok", hpDTensorTypeGetLocalType(st, 2, mesh));
  // CHECK: local strided ok: null=0 diags=0
}

/// A func.func @f(tensor<4xf32>) with an entry block; returns it.
static MlirOperation makeFunc(MlirContext ctx, MlirLocation loc,
                              MlirType argType) {
  MlirType fnType = mlirFunctionTypeGet(ctx, 1, &argType, 0, NULL);
  MlirNamedAttribute attrs[2] = {
      mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("sym_name")),
                            mlirStringAttrGet(ctx, str("f"))),
      mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("function_type")),
                            mlirTypeAttrGet(fnType))};
  MlirRegion body = mlirRegionCreate();
  mlirRegionAppendOwnedBlock(body, mlirBlockCreate(1, &argType, &loc));
  MlirOperationState state = mlirOperationStateGet(str("func.func"), loc);
  mlirOperationStateAddAttributes(&state, 2, attrs);
  mlirOperationStateAddOwnedRegions(&state, 1, &body);
  return mlirOperationCreate(&state);
}

static void meshes(MlirContext ctx, MlirLocation loc) {
  MlirLocation noLoc = {NULL};
  int64_t shape[2] = {2, 2};
  MlirStringRef names[2] = {str("dp"), str("tp")};

  EXPECT_NULL_OP("mesh null loc", hpDTensorMeshOpCreate(noLoc, str("m"), 2,
                                                        shape, names, NULL));
  // CHECK: mesh null loc: null=1 diags=0
  EXPECT_NULL_OP("mesh empty name",
                 hpDTensorMeshOpCreate(loc, str(""), 2, shape, names, NULL));
  // CHECK: diag: hpDTensorMeshOpCreate: name must not be empty
  // CHECK-NEXT: mesh empty name: null=1 diags=1
  EXPECT_NULL_OP("mesh digit name",
                 hpDTensorMeshOpCreate(loc, str("2d"), 2, shape, names, NULL));
  // CHECK: diag: hpDTensorMeshOpCreate: name '2d' is not a symbol name ([A-Za-z_][A-Za-z0-9_$.-]*)
  // CHECK-NEXT: mesh digit name: null=1 diags=1
  EXPECT_NULL_OP("mesh null name",
                 hpDTensorMeshOpCreate(loc, nullStr(3), 2, shape, names, NULL));
  // CHECK: diag: hpDTensorMeshOpCreate: name is a NULL string of length 3
  // CHECK-NEXT: mesh null name: null=1 diags=1
  EXPECT_NULL_OP("mesh rank 0",
                 hpDTensorMeshOpCreate(loc, str("m"), 0, shape, NULL, NULL));
  // CHECK: diag: hpDTensorMeshOpCreate: mesh shape must not be empty
  // CHECK-NEXT: mesh rank 0: null=1 diags=1
  EXPECT_NULL_OP("mesh rank -1",
                 hpDTensorMeshOpCreate(loc, str("m"), -1, shape, NULL, NULL));
  // CHECK: diag: hpDTensorMeshOpCreate: shape count must be non-negative, got -1
  // CHECK-NEXT: mesh rank -1: null=1 diags=1
  EXPECT_NULL_OP("mesh shape NULL",
                 hpDTensorMeshOpCreate(loc, str("m"), 2, NULL, names, NULL));
  // CHECK: diag: hpDTensorMeshOpCreate: shape is NULL but its count is 2
  // CHECK-NEXT: mesh shape NULL: null=1 diags=1
  int64_t zero[2] = {2, 0};
  int64_t devices[4] = {0, 1, 2, 3};
  EXPECT_NULL_OP("mesh dim 0",
                 hpDTensorMeshOpCreate(loc, str("m"), 2, zero, names, devices));
  // CHECK: diag: hpDTensorMeshOpCreate: mesh dim 1 has size 0; sizes must be >= 1
  // CHECK-NEXT: mesh dim 0: null=1 diags=1
  int64_t minus[2] = {-2, 2};
  EXPECT_NULL_OP("mesh dim -2",
                 hpDTensorMeshOpCreate(loc, str("m"), 2, minus, names, devices));
  // CHECK: diag: hpDTensorMeshOpCreate: mesh dim 0 has size -2; sizes must be >= 1
  // CHECK-NEXT: mesh dim -2: null=1 diags=1
  int64_t huge[2] = {INT64_MAX / 2, 4};
  EXPECT_NULL_OP("mesh huge",
                 hpDTensorMeshOpCreate(loc, str("m"), 2, huge, names, devices));
  // CHECK: diag: hpDTensorMeshOpCreate: mesh has more than 2147483647 devices
  // CHECK-NEXT: mesh huge: null=1 diags=1
  MlirStringRef nullName[2] = {str("dp"), nullStr(2)};
  EXPECT_NULL_OP("mesh null axis name", hpDTensorMeshOpCreate(
                                            loc, str("m"), 2, shape, nullName,
                                            NULL));
  // CHECK: diag: hpDTensorMeshOpCreate: names entry #1 is a NULL string of length 2
  // CHECK-NEXT: mesh null axis name: null=1 diags=1
  MlirStringRef twice[2] = {str("dp"), str("dp")};
  EXPECT_NULL_OP("mesh duplicate axis",
                 hpDTensorMeshOpCreate(loc, str("m"), 2, shape, twice, NULL));
  // CHECK: diag: 'dtensor.mesh' op mesh axis name 'dp' is used more than once
  // CHECK-NEXT: mesh duplicate axis: null=1 diags=1
  int64_t repeated[4] = {0, 0, 1, 2};
  EXPECT_NULL_OP("mesh bad devices", hpDTensorMeshOpCreate(
                                         loc, str("m"), 2, shape, names,
                                         repeated));
  // CHECK: diag: 'dtensor.mesh' op devices lists rank 0 more than once
  // CHECK-NEXT: mesh bad devices: null=1 diags=1
  MlirOperation noOp = {NULL};
  EXPECT_VALUE("isa mesh null", hpOperationIsADTensorMeshOp(noOp), 0);
  // CHECK: isa mesh null: null=1 diags=0
}

static void localRegions(MlirContext ctx, MlirLocation loc) {
  MlirLocation noLoc = {NULL};
  MlirType f32 = mlirF32TypeGet(ctx);
  int64_t gshape[1] = {8}, lshape[1] = {4};
  MlirAttribute s0 = hpDTensorShardAttrGet(ctx, 0);
  MlirType global = hpDTensorTypeGet(ctx, 1, gshape, f32, str("mesh"), 1, &s0);
  MlirType local = mlirRankedTensorTypeGet(1, lshape, f32,
                                           mlirAttributeGetNull());
  MlirOperation fn = makeFunc(ctx, loc, global);
  MlirValue x = mlirBlockGetArgument(
      mlirRegionGetFirstBlock(mlirOperationGetRegion(fn, 0)), 0);
  MlirValue noValue = {NULL};
  MlirType noType = {NULL};
  MlirAttribute noAttr = mlirAttributeGetNull();
  MlirStringRef name = str("x");
  MlirAttribute i64 = mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), 42);
  MlirAttribute flat = mlirArrayAttrGet(ctx, 1, &s0);
  MlirAttribute outs = mlirArrayAttrGet(ctx, 1, &flat);
  MlirAttribute intList = mlirArrayAttrGet(ctx, 1, &i64);
  MlirNamedAttribute entry =
      mlirNamedAttributeGet(mlirIdentifierGet(ctx, name), intList);
  MlirAttribute badDict = mlirDictionaryAttrGet(ctx, 1, &entry);

#define REGION(label, l, mesh, n, args, names, types, in, out, nr, results)    \
  EXPECT_NULL_OP(label, hpDTensorLocalRegionOpCreate(l, mesh, n, args, names,  \
                                                     types, in, out, false,    \
                                                     nr, results))
  REGION("region null loc", noLoc, str("mesh"), 1, &x, &name, &local, noAttr,
         outs, 1, &global);
  // CHECK: region null loc: null=1 diags=0
  REGION("region empty mesh", loc, str(""), 1, &x, &name, &local, noAttr, outs,
         1, &global);
  // CHECK: diag: hpDTensorLocalRegionOpCreate: mesh must not be empty
  // CHECK-NEXT: region empty mesh: null=1 diags=1
  REGION("region args -1", loc, str("mesh"), -1, &x, &name, &local, noAttr,
         outs, 1, &global);
  // CHECK: diag: hpDTensorLocalRegionOpCreate: args count must be non-negative, got -1
  // CHECK-NEXT: region args -1: null=1 diags=1
  REGION("region args NULL", loc, str("mesh"), 1, NULL, &name, &local, noAttr,
         outs, 1, &global);
  // CHECK: diag: hpDTensorLocalRegionOpCreate: args is NULL but its count is 1
  // CHECK-NEXT: region args NULL: null=1 diags=1
  REGION("region names NULL", loc, str("mesh"), 1, &x, NULL, &local, noAttr,
         outs, 1, &global);
  // CHECK: diag: hpDTensorLocalRegionOpCreate: argNames is NULL but its count is 1
  // CHECK-NEXT: region names NULL: null=1 diags=1
  REGION("region types NULL", loc, str("mesh"), 1, &x, &name, NULL, noAttr,
         outs, 1, &global);
  // CHECK: diag: hpDTensorLocalRegionOpCreate: blockArgTypes is NULL but its count is 1
  // CHECK-NEXT: region types NULL: null=1 diags=1
  REGION("region null arg", loc, str("mesh"), 1, &noValue, &name, &local,
         noAttr, outs, 1, &global);
  // CHECK: diag: hpDTensorLocalRegionOpCreate: args entry #0 is null
  // CHECK-NEXT: region null arg: null=1 diags=1
  MlirStringRef nullName = nullStr(1);
  REGION("region null name", loc, str("mesh"), 1, &x, &nullName, &local,
         noAttr, outs, 1, &global);
  // CHECK: diag: hpDTensorLocalRegionOpCreate: argNames entry #0 is a NULL string of length 1
  // CHECK-NEXT: region null name: null=1 diags=1
  REGION("region null type", loc, str("mesh"), 1, &x, &name, &noType, noAttr,
         outs, 1, &global);
  // CHECK: diag: hpDTensorLocalRegionOpCreate: blockArgTypes entry #0 is null
  // CHECK-NEXT: region null type: null=1 diags=1
  REGION("region in not dict", loc, str("mesh"), 1, &x, &name, &local, i64,
         outs, 1, &global);
  // CHECK: diag: hpDTensorLocalRegionOpCreate: inPlacements must be a dictionary attribute, got 42 : i64
  // CHECK-NEXT: region in not dict: null=1 diags=1
  REGION("region in int entry", loc, str("mesh"), 1, &x, &name, &local,
         badDict, outs, 1, &global);
  // CHECK: diag: hpDTensorLocalRegionOpCreate: inPlacements entry 'x' must be an array of placements or a unit attribute (none), got [42]
  // CHECK-NEXT: region in int entry: null=1 diags=1
  REGION("region out not array", loc, str("mesh"), 1, &x, &name, &local,
         noAttr, i64, 1, &global);
  // CHECK: diag: hpDTensorLocalRegionOpCreate: outPlacements must be an array attribute, got 42 : i64
  // CHECK-NEXT: region out not array: null=1 diags=1
  REGION("region out int", loc, str("mesh"), 1, &x, &name, &local, noAttr,
         intList, 1, &global);
  // CHECK: diag: hpDTensorLocalRegionOpCreate: outPlacements entry #0 must be an array of placements or a unit attribute (none), one per result, got 42 : i64
  // CHECK-NEXT: region out int: null=1 diags=1
  MlirAttribute nested = mlirArrayAttrGet(ctx, 1, &intList);
  REGION("region out nested int", loc, str("mesh"), 1, &x, &name, &local,
         noAttr, nested, 1, &global);
  // CHECK: diag: hpDTensorLocalRegionOpCreate: outPlacements entry #0 must be an array of placements or a unit attribute (none), one per result, got [42]
  // CHECK-NEXT: region out nested int: null=1 diags=1
  // The textual syntax's flat form is not the op's.
  REGION("region out flat", loc, str("mesh"), 1, &x, &name, &local, noAttr,
         flat, 1, &global);
  // CHECK: diag: hpDTensorLocalRegionOpCreate: outPlacements entry #0 must be an array of placements or a unit attribute (none), one per result, got #dtensor.shard<0>
  // CHECK-NEXT: region out flat: null=1 diags=1
  REGION("region results -1", loc, str("mesh"), 1, &x, &name, &local, noAttr,
         outs, -1, &global);
  // CHECK: diag: hpDTensorLocalRegionOpCreate: resultTypes count must be non-negative, got -1
  // CHECK-NEXT: region results -1: null=1 diags=1
  REGION("region results NULL", loc, str("mesh"), 1, &x, &name, &local,
         noAttr, outs, 1, NULL);
  // CHECK: diag: hpDTensorLocalRegionOpCreate: resultTypes is NULL but its count is 1
  // CHECK-NEXT: region results NULL: null=1 diags=1
  REGION("region null result", loc, str("mesh"), 1, &x, &name, &local, noAttr,
         outs, 1, &noType);
  // CHECK: diag: hpDTensorLocalRegionOpCreate: resultTypes entry #0 is null
  // CHECK-NEXT: region null result: null=1 diags=1
#undef REGION

  MlirOperation noOp = {NULL};
  start();
  report("body null", mlirBlockIsNull(hpDTensorLocalRegionOpGetBody(noOp)));
  // CHECK: body null: null=1 diags=0
  start();
  report("body of func", mlirBlockIsNull(hpDTensorLocalRegionOpGetBody(fn)));
  // CHECK: diag: hpDTensorLocalRegionOpGetBody: 'func.func' is not a dtensor.local_region
  // CHECK-NEXT: body of func: null=1 diags=1
  // A local_region built generically, with an empty region.
  MlirOperationState state =
      mlirOperationStateGet(str("dtensor.local_region"), loc);
  MlirRegion empty = mlirRegionCreate();
  mlirOperationStateAddOwnedRegions(&state, 1, &empty);
  MlirOperation bare = mlirOperationCreate(&state);
  start();
  report("body empty", mlirBlockIsNull(hpDTensorLocalRegionOpGetBody(bare)));
  // CHECK: diag: hpDTensorLocalRegionOpGetBody: the local_region has no body block
  // CHECK-NEXT: body empty: null=1 diags=1
  mlirOperationDestroy(bare);
  mlirOperationDestroy(fn);
}

static void globalRegions(MlirContext ctx, MlirLocation loc) {
  MlirLocation noLoc = {NULL};
  MlirType f32 = mlirF32TypeGet(ctx);
  int64_t gshape[1] = {8};
  MlirAttribute s0 = hpDTensorShardAttrGet(ctx, 0);
  MlirType global = hpDTensorTypeGet(ctx, 1, gshape, f32, str("mesh"), 1, &s0);
  MlirOperation fn = makeFunc(ctx, loc, global);
  MlirValue x = mlirBlockGetArgument(
      mlirRegionGetFirstBlock(mlirOperationGetRegion(fn, 0)), 0);
  MlirValue noValue = {NULL};
  MlirType noType = {NULL};
  MlirAttribute i64 = mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), 42);

  start();
  report("global no loc", mlirOperationIsNull(hpDTensorGlobalRegionOpCreate(
                              noLoc, str("mesh"), 1, &x, 1, &global)));
  // CHECK: global no loc: null=1 diags=0
  start();
  report("global empty mesh", mlirOperationIsNull(hpDTensorGlobalRegionOpCreate(
                                  loc, str(""), 1, &x, 1, &global)));
  // CHECK: diag: hpDTensorGlobalRegionOpCreate: mesh must not be empty
  // CHECK-NEXT: global empty mesh: null=1 diags=1
  start();
  report("global args NULL", mlirOperationIsNull(hpDTensorGlobalRegionOpCreate(
                                 loc, str("mesh"), 2, NULL, 1, &global)));
  // CHECK: diag: hpDTensorGlobalRegionOpCreate: args is NULL but its count is 2
  // CHECK-NEXT: global args NULL: null=1 diags=1
  start();
  report("global null arg", mlirOperationIsNull(hpDTensorGlobalRegionOpCreate(
                                loc, str("mesh"), 1, &noValue, 1, &global)));
  // CHECK: diag: hpDTensorGlobalRegionOpCreate: args entry #0 is null
  // CHECK-NEXT: global null arg: null=1 diags=1
  start();
  report("global null result", mlirOperationIsNull(hpDTensorGlobalRegionOpCreate(
                                   loc, str("mesh"), 1, &x, 1, &noType)));
  // CHECK: diag: hpDTensorGlobalRegionOpCreate: resultTypes entry #0 is null
  // CHECK-NEXT: global null result: null=1 diags=1

  MlirOperation noOp = {NULL};
  start();
  report("global body null", mlirBlockIsNull(hpDTensorGlobalRegionOpGetBody(noOp)));
  // CHECK: global body null: null=1 diags=0
  start();
  report("global body of func", mlirBlockIsNull(hpDTensorGlobalRegionOpGetBody(fn)));
  // CHECK: diag: hpDTensorGlobalRegionOpGetBody: 'func.func' is not a dtensor.global_region
  // CHECK-NEXT: global body of func: null=1 diags=1
  MlirOperationState state =
      mlirOperationStateGet(str("dtensor.global_region"), loc);
  MlirRegion empty = mlirRegionCreate();
  mlirOperationStateAddOwnedRegions(&state, 1, &empty);
  MlirOperation bare = mlirOperationCreate(&state);
  start();
  report("global body empty", mlirBlockIsNull(hpDTensorGlobalRegionOpGetBody(bare)));
  // CHECK: diag: hpDTensorGlobalRegionOpGetBody: the global_region has no body block
  // CHECK-NEXT: global body empty: null=1 diags=1
  mlirOperationDestroy(bare);

  MlirAttribute r = hpDTensorReplicateAttrGet(ctx);
  start();
  report("constrain no loc", mlirOperationIsNull(hpDTensorConstrainOpCreate(
                                 noLoc, x, 1, &r)));
  // CHECK: constrain no loc: null=1 diags=0
  start();
  report("constrain null input", mlirOperationIsNull(hpDTensorConstrainOpCreate(
                                     loc, noValue, 1, &r)));
  // CHECK: diag: hpDTensorConstrainOpCreate: input is null
  // CHECK-NEXT: constrain null input: null=1 diags=1
  start();
  report("constrain dtensor input", mlirOperationIsNull(hpDTensorConstrainOpCreate(
                                        loc, x, 1, &r)));
  // CHECK: diag: hpDTensorConstrainOpCreate: input has type '!dtensor.tensor<8xf32, @mesh, [shard<0>]>', not a ranked tensor
  // CHECK-NEXT: constrain dtensor input: null=1 diags=1
  MlirOperation g = hpDTensorGlobalRegionOpCreate(loc, str("mesh"), 1, &x, 0, NULL);
  MlirValue whole = mlirBlockGetArgument(hpDTensorGlobalRegionOpGetBody(g), 0);
  start();
  report("constrain NULL placements", mlirOperationIsNull(hpDTensorConstrainOpCreate(
                                          loc, whole, 1, NULL)));
  // CHECK: diag: hpDTensorConstrainOpCreate: placements is NULL but its count is 1
  // CHECK-NEXT: constrain NULL placements: null=1 diags=1
  start();
  report("constrain wrong kind", mlirOperationIsNull(hpDTensorConstrainOpCreate(
                                     loc, whole, 1, &i64)));
  // CHECK: diag: hpDTensorConstrainOpCreate: placements entry #0 is 42 : i64, not a placement
  // CHECK-NEXT: constrain wrong kind: null=1 diags=1
  start();
  MlirOperation ok = hpDTensorConstrainOpCreate(loc, whole, 1, &r);
  report("constrain valid", mlirOperationIsNull(ok));
  // CHECK: constrain valid: null=0 diags=0
  mlirOperationDestroy(ok);
  mlirOperationDestroy(g);
  mlirOperationDestroy(fn);
}

static void localCalls(MlirContext ctx, MlirLocation loc) {
  MlirLocation noLoc = {NULL};
  MlirType f32 = mlirF32TypeGet(ctx);
  int64_t gshape[1] = {8};
  MlirAttribute s0 = hpDTensorShardAttrGet(ctx, 0);
  MlirType global = hpDTensorTypeGet(ctx, 1, gshape, f32, str("mesh"), 1, &s0);
  MlirOperation fn = makeFunc(ctx, loc, global);
  MlirValue x = mlirBlockGetArgument(
      mlirRegionGetFirstBlock(mlirOperationGetRegion(fn, 0)), 0);
  MlirValue noValue = {NULL};
  MlirType noType = {NULL};
  MlirAttribute noAttr = mlirAttributeGetNull();
  MlirAttribute i64 = mlirIntegerAttrGet(mlirIntegerTypeGet(ctx, 64), 42);
  MlirAttribute flat = mlirArrayAttrGet(ctx, 1, &s0);
  MlirAttribute outs = mlirArrayAttrGet(ctx, 1, &flat);

#define CALL(label, l, callee, mesh, n, args, in, out, nr, results)            \
  EXPECT_NULL_OP(label, hpDTensorLocalCallOpCreate(l, callee, mesh, n, args,   \
                                                   in, out, false, false, nr,  \
                                                   results))
  CALL("call null loc", noLoc, str("g"), str("mesh"), 1, &x, noAttr, outs, 1,
       &global);
  // CHECK: call null loc: null=1 diags=0
  CALL("call empty callee", loc, str(""), str("mesh"), 1, &x, noAttr, outs, 1,
       &global);
  // CHECK: diag: hpDTensorLocalCallOpCreate: callee must not be empty
  // CHECK-NEXT: call empty callee: null=1 diags=1
  CALL("call quoted callee", loc, str("f g"), str("mesh"), 1, &x, noAttr, outs,
       1, &global);
  // CHECK: diag: hpDTensorLocalCallOpCreate: callee 'f g' is not a symbol name ([A-Za-z_][A-Za-z0-9_$.-]*)
  // CHECK-NEXT: call quoted callee: null=1 diags=1
  CALL("call null mesh", loc, str("g"), nullStr(2), 1, &x, noAttr, outs, 1,
       &global);
  // CHECK: diag: hpDTensorLocalCallOpCreate: mesh is a NULL string of length 2
  // CHECK-NEXT: call null mesh: null=1 diags=1
  CALL("call args NULL", loc, str("g"), str("mesh"), 2, NULL, noAttr, outs, 1,
       &global);
  // CHECK: diag: hpDTensorLocalCallOpCreate: args is NULL but its count is 2
  // CHECK-NEXT: call args NULL: null=1 diags=1
  CALL("call null arg", loc, str("g"), str("mesh"), 1, &noValue, noAttr, outs,
       1, &global);
  // CHECK: diag: hpDTensorLocalCallOpCreate: args entry #0 is null
  // CHECK-NEXT: call null arg: null=1 diags=1
  CALL("call in not dict", loc, str("g"), str("mesh"), 1, &x, flat, outs, 1,
       &global);
  // CHECK: diag: hpDTensorLocalCallOpCreate: inPlacements must be a dictionary attribute, got [#dtensor.shard<0>]
  // CHECK-NEXT: call in not dict: null=1 diags=1
  CALL("call out int", loc, str("g"), str("mesh"), 1, &x, noAttr, i64, 1,
       &global);
  // CHECK: diag: hpDTensorLocalCallOpCreate: outPlacements must be an array attribute, got 42 : i64
  // CHECK-NEXT: call out int: null=1 diags=1
  CALL("call results -2", loc, str("g"), str("mesh"), 1, &x, noAttr, outs, -2,
       &global);
  // CHECK: diag: hpDTensorLocalCallOpCreate: resultTypes count must be non-negative, got -2
  // CHECK-NEXT: call results -2: null=1 diags=1
  CALL("call null result", loc, str("g"), str("mesh"), 1, &x, noAttr, outs, 1,
       &noType);
  // CHECK: diag: hpDTensorLocalCallOpCreate: resultTypes entry #0 is null
  // CHECK-NEXT: call null result: null=1 diags=1
#undef CALL

  MlirOperation noOp = {NULL};
  EXPECT_VALUE("arg name null func", hpFuncSetArgName(noOp, 0, str("a")),
               false);
  // CHECK: arg name null func: null=1 diags=0
  MlirOperation yield = hpDTensorYieldOpCreate(loc, 0, NULL);
  EXPECT_VALUE("arg name of yield", hpFuncSetArgName(yield, 0, str("a")),
               false);
  // CHECK: diag: hpFuncSetArgName: 'dtensor.yield' is not a function
  // CHECK-NEXT: arg name of yield: null=1 diags=1
  mlirOperationDestroy(yield);
  EXPECT_VALUE("arg name 1", hpFuncSetArgName(fn, 1, str("a")), false);
  // CHECK: diag: hpFuncSetArgName: argument 1 is out of range; the function has 1
  // CHECK-NEXT: arg name 1: null=1 diags=1
  EXPECT_VALUE("arg name -1", hpFuncSetArgName(fn, -1, str("a")), false);
  // CHECK: diag: hpFuncSetArgName: argument -1 is out of range; the function has 1
  // CHECK-NEXT: arg name -1: null=1 diags=1
  EXPECT_VALUE("arg name NULL", hpFuncSetArgName(fn, 0, nullStr(5)), false);
  // CHECK: diag: hpFuncSetArgName: name is a NULL string of length 5
  // CHECK-NEXT: arg name NULL: null=1 diags=1
  EXPECT_VALUE("arg name empty", hpFuncSetArgName(fn, 0, str("")), false);
  // CHECK: diag: hpFuncSetArgName: name must not be empty
  // CHECK-NEXT: arg name empty: null=1 diags=1
  // A func.func built without its function_type.
  MlirOperationState state = mlirOperationStateGet(str("func.func"), loc);
  MlirRegion body = mlirRegionCreate();
  mlirOperationStateAddOwnedRegions(&state, 1, &body);
  MlirOperation untyped = mlirOperationCreate(&state);
  EXPECT_VALUE("arg name untyped", hpFuncSetArgName(untyped, 0, str("a")),
               false);
  // CHECK: diag: hpFuncSetArgName: the function has no function type
  // CHECK-NEXT: arg name untyped: null=1 diags=1
  EXPECT_VALUE("arg name ok", hpFuncSetArgName(fn, 0, str("a")), true);
  // CHECK: arg name ok: null=1 diags=0

  // The global view's setters: the same slot checks, then their own.
  EXPECT_VALUE("mesh null func", hpFuncSetMesh(noOp, str("mesh")), false);
  // CHECK: mesh null func: null=1 diags=0
  EXPECT_VALUE("mesh quoted", hpFuncSetMesh(fn, str("a b")), false);
  // CHECK: diag: hpFuncSetMesh: mesh 'a b' is not a symbol name ([A-Za-z_][A-Za-z0-9_$.-]*)
  // CHECK-NEXT: mesh quoted: null=1 diags=1
  EXPECT_VALUE("mesh ok", hpFuncSetMesh(fn, str("mesh")), true);
  // CHECK: mesh ok: null=1 diags=0
  EXPECT_VALUE("placements 1", hpFuncSetArgPlacements(fn, 1, outs), false);
  // CHECK: diag: hpFuncSetArgPlacements: argument 1 is out of range; the function has 1
  // CHECK-NEXT: placements 1: null=1 diags=1
  EXPECT_VALUE("placements null", hpFuncSetArgPlacements(fn, 0, noAttr),
               false);
  // CHECK: diag: hpFuncSetArgPlacements: placements must be an array of placements
  // CHECK-NEXT: placements null: null=1 diags=1
  EXPECT_VALUE("placements nested", hpFuncSetArgPlacements(fn, 0, outs), false);
  // CHECK: diag: hpFuncSetArgPlacements: placements entry #0 is [#dtensor.shard<0>], not a placement
  // CHECK-NEXT: placements nested: null=1 diags=1
  EXPECT_VALUE("placements ok", hpFuncSetArgPlacements(fn, 0, flat), true);
  // CHECK: placements ok: null=1 diags=0
  // The function has no result.
  EXPECT_VALUE("result placements 0", hpFuncSetResultPlacements(fn, 0, flat),
               false);
  // CHECK: diag: hpFuncSetResultPlacements: result 0 is out of range; the function has 0
  // CHECK-NEXT: result placements 0: null=1 diags=1
  EXPECT_VALUE("constrain 0", hpFuncSetResultConstrain(fn, 0, flat), false);
  // CHECK: diag: hpFuncSetResultConstrain: result 0 is out of range; the function has 0
  // CHECK-NEXT: constrain 0: null=1 diags=1
  int64_t axis = 0;
  EXPECT_VALUE("fsdp NULL", hpFuncSetArgFsdpAxes(fn, 0, 1, NULL), false);
  // CHECK: diag: hpFuncSetArgFsdpAxes: axes is NULL but its count is 1
  // CHECK-NEXT: fsdp NULL: null=1 diags=1
  EXPECT_VALUE("fsdp -1", hpFuncSetArgFsdpAxes(fn, -1, 1, &axis), false);
  // CHECK: diag: hpFuncSetArgFsdpAxes: argument -1 is out of range; the function has 1
  // CHECK-NEXT: fsdp -1: null=1 diags=1
  EXPECT_VALUE("fsdp ok", hpFuncSetArgFsdpAxes(fn, 0, 1, &axis), true);
  // CHECK: fsdp ok: null=1 diags=0
  mlirOperationDestroy(untyped);
  mlirOperationDestroy(fn);
}

static void yields(MlirContext ctx, MlirLocation loc) {
  (void)ctx;
  MlirLocation noLoc = {NULL};
  MlirValue noValue = {NULL};
  EXPECT_NULL_OP("yield null loc", hpDTensorYieldOpCreate(noLoc, 0, NULL));
  // CHECK: yield null loc: null=1 diags=0
  EXPECT_NULL_OP("yield -1", hpDTensorYieldOpCreate(loc, -1, NULL));
  // CHECK: diag: hpDTensorYieldOpCreate: values count must be non-negative, got -1
  // CHECK-NEXT: yield -1: null=1 diags=1
  EXPECT_NULL_OP("yield NULL", hpDTensorYieldOpCreate(loc, 3, NULL));
  // CHECK: diag: hpDTensorYieldOpCreate: values is NULL but its count is 3
  // CHECK-NEXT: yield NULL: null=1 diags=1
  EXPECT_NULL_OP("yield null value", hpDTensorYieldOpCreate(loc, 1, &noValue));
  // CHECK: diag: hpDTensorYieldOpCreate: values entry #0 is null
  // CHECK-NEXT: yield null value: null=1 diags=1
}

static void parsing(MlirContext ctx) {
  MlirContext noCtx = {NULL};
  start();
  report("parse null ctx", mlirModuleIsNull(hpModuleCreateParseNamed(
                               noCtx, str("module {}"), str("a.mlir"))));
  // CHECK: parse null ctx: null=1 diags=0
  start();
  report("parse NULL text", mlirModuleIsNull(hpModuleCreateParseNamed(
                                ctx, nullStr(10), str("a.mlir"))));
  // CHECK: diag: hpModuleCreateParseNamed: text is a NULL string of length 10
  // CHECK-NEXT: parse NULL text: null=1 diags=1
  start();
  report("parse NULL name", mlirModuleIsNull(hpModuleCreateParseNamed(
                                ctx, str("module {}"), nullStr(2))));
  // CHECK: diag: hpModuleCreateParseNamed: filename is a NULL string of length 2
  // CHECK-NEXT: parse NULL name: null=1 diags=1
  // Nesting this deep overflows the parser's stack unless refused first.
  size_t depth = 100000;
  char *deep = malloc(2 * depth + 1);
  for (size_t i = 0; i < depth; ++i) {
    deep[i] = '[';
    deep[depth + i] = ']';
  }
  deep[2 * depth] = 0;
  MlirStringRef text = mlirStringRefCreate(deep, 2 * depth);
  start();
  report("parse deep", mlirModuleIsNull(hpModuleCreateParseNamed(
                           ctx, text, str("deep.mlir"))));
  // CHECK: diag: input nests deeper than 512 brackets{{.*}} @ loc("deep.mlir":1:513)
  // CHECK-NEXT: parse deep: null=1 diags=1
  free(deep);
  start();
  report("parse syntax", mlirModuleIsNull(hpModuleCreateParseNamed(
                             ctx, str("module {\n  %x = \n}"), str("s.mlir"))));
  // CHECK: diag: {{.*}}
  // CHECK-NEXT: parse syntax: null=1 diags=1
  start();
  MlirModule ok = hpModuleCreateParseNamed(
      ctx, str("dtensor.mesh @m shape = [2]"), str("ok.mlir"));
  report("parse ok", mlirModuleIsNull(ok));
  // CHECK: parse ok: null=0 diags=0
  mlirModuleDestroy(ok);
}

static void imports(MlirContext ctx) {
  MlirModule dest = hpModuleCreateParseNamed(ctx, str(""), str("dest.mlir"));
  MlirModule src = hpModuleCreateParseNamed(
      ctx,
      str("dtensor.mesh @m shape = [2]\n"
          "func.func @f(%x: !dtensor.tensor<4xf32, @m, [shard<0>]>) {\n"
          "  return\n}"),
      str("src.mlir"));
  MlirModule noModule = {NULL};
  start();
  report("import null dest",
         mlirLogicalResultIsFailure(hpModuleImportFunction(
             noModule, src, str("f"), str("g"))));
  // CHECK: import null dest: null=1 diags=0
  start();
  report("import null source",
         mlirLogicalResultIsFailure(hpModuleImportFunction(
             dest, noModule, str("f"), str("g"))));
  // CHECK: diag: hpModuleImportFunction: source is a null module
  // CHECK-NEXT: import null source: null=1 diags=1
  start();
  report("import empty name",
         mlirLogicalResultIsFailure(hpModuleImportFunction(
             dest, src, str("f"), str(""))));
  // CHECK: diag: hpModuleImportFunction: newName must not be empty
  // CHECK-NEXT: import empty name: null=1 diags=1
  start();
  report("import quoted name",
         mlirLogicalResultIsFailure(hpModuleImportFunction(
             dest, src, str("f"), str("f\"g"))));
  // CHECK: diag: hpModuleImportFunction: newName 'f"g' is not a symbol name ([A-Za-z_][A-Za-z0-9_$.-]*)
  // CHECK-NEXT: import quoted name: null=1 diags=1
  start();
  report("import absent",
         mlirLogicalResultIsFailure(hpModuleImportFunction(
             dest, src, str("nope"), str("g"))));
  // CHECK: diag: import: the source module has no function @nope
  // CHECK-NEXT: import absent: null=1 diags=1
  start();
  report("import ok", mlirLogicalResultIsFailure(hpModuleImportFunction(
                          dest, src, str("f"), str("g"))));
  // CHECK: import ok: null=0 diags=0
  mlirModuleDestroy(src);
  mlirModuleDestroy(dest);
}

static void placementRules(MlirContext ctx) {
  MlirAttribute noAttr = {NULL};
  MlirAttribute r = hpDTensorReplicateAttrGet(ctx);
  MlirAttribute list = mlirArrayAttrGet(ctx, 1, &r);
  EXPECT_NULL_ATTR("fsdp null", hpPlacementsFsdpSplit(noAttr, 1, 0));
  // CHECK: fsdp null: null=1 diags=0
  EXPECT_NULL_ATTR("fsdp not a list", hpPlacementsFsdpSplit(r, 1, 0));
  // CHECK: diag: hpPlacementsFsdpSplit: placements must be a non-empty array of placements, got #dtensor.replicate
  // CHECK-NEXT: fsdp not a list: null=1 diags=1
  EXPECT_NULL_ATTR("fsdp rank", hpPlacementsFsdpSplit(list, -1, 0));
  // CHECK: diag: hpPlacementsFsdpSplit: rank must be non-negative, got -1
  // CHECK-NEXT: fsdp rank: null=1 diags=1
  EXPECT_NULL_ATTR("fsdp dim", hpPlacementsFsdpSplit(list, 1, 1));
  // CHECK: diag: hpPlacementsFsdpSplit: mesh dim 1 is not one of the 1 the placements cover
  // CHECK-NEXT: fsdp dim: null=1 diags=1
  EXPECT_NULL_ATTR("state shape",
                   hpPlacementsOfOptimizerState(list, 2, NULL, 0, NULL));
  // CHECK: diag: hpPlacementsOfOptimizerState: a shape must have a non-negative rank and, unless empty, its sizes
  // CHECK-NEXT: state shape: null=1 diags=1
  EXPECT_NULL_ATTR("inputs NULL", hpPlacementsFromInputs(ctx, 1, NULL, 1, 1, -1));
  // CHECK: diag: hpPlacementsFromInputs: inputs must be NULL with a count of 0, or hold its count
  // CHECK-NEXT: inputs NULL: null=1 diags=1
  EXPECT_NULL_ATTR("inputs fixed", hpPlacementsFromInputs(ctx, 1, &list, 1, 1, 1));
  // CHECK: diag: hpPlacementsFromInputs: needs rank >= 0, meshRank >= 1 and -1 <= fixedDim < meshRank; got rank 1, meshRank 1, fixedDim 1
  // CHECK-NEXT: inputs fixed: null=1 diags=1
  EXPECT_NULL_ATTR("inputs mesh", hpPlacementsFromInputs(ctx, 1, &list, 1, 2, -1));
  // CHECK: diag: hpPlacementsFromInputs: input 0 has 1 placements for a mesh of 2 dims
  // CHECK-NEXT: inputs mesh: null=1 diags=1
  EXPECT_NULL_ATTR("inputs null", hpPlacementsFromInputs(ctx, 1, &noAttr, 1, 1, -1));
  // CHECK: diag: hpPlacementsFromInputs: input 0 is null
  // CHECK-NEXT: inputs null: null=1 diags=1
}

int main(void) {
  hpRegisterAllDialects((MlirDialectRegistry){NULL});
  MlirContext ctx = makeContext();
  MlirLocation loc = mlirLocationUnknownGet(ctx);
  placements(ctx);
  types(ctx);
  meshes(ctx, loc);
  localRegions(ctx, loc);
  globalRegions(ctx, loc);
  localCalls(ctx, loc);
  yields(ctx, loc);
  parsing(ctx);
  imports(ctx);
  placementRules(ctx);
  mlirContextDestroy(ctx);
  printf("done\n");
  // CHECK: done
  return 0;
}
