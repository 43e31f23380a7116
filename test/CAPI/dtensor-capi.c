//===- dtensor-capi.c - exercise hp's C API -------------------------------===//
// RUN: hp-capi-test 2>&1 | FileCheck %s
//===----------------------------------------------------------------------===//

#include "hp-c/DTensor.h"
#include "hp-c/PlacementRules.h"

#include "mlir-c/BuiltinAttributes.h"
#include "mlir-c/BuiltinTypes.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/RegisterEverything.h"

#include <stdio.h>
#include <string.h>

static void print(MlirStringRef s, void *unused) {
  (void)unused;
  fwrite(s.data, 1, s.length, stdout);
}

static MlirStringRef str(const char *s) { return mlirStringRefCreateFromCString(s); }

int main(void) {
  MlirContext ctx = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(registry);
  hpRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(ctx, registry);
  mlirDialectRegistryDestroy(registry);
  mlirContextLoadAllAvailableDialects(ctx);
  mlirRegisterAllPasses();
  hpRegisterAllPasses();

  /* Placements. */
  MlirAttribute s1 = hpDTensorShardAttrGet(ctx, 1);
  MlirAttribute r = hpDTensorReplicateAttrGet(ctx);
  MlirAttribute p = hpDTensorPartialAttrGet(ctx, HPReduceMax);
  mlirAttributePrint(s1, print, NULL);
  printf(" dim=%lld\n", (long long)hpDTensorShardAttrGetDim(s1));
  // CHECK: #dtensor.shard<1> dim=1
  mlirAttributePrint(p, print, NULL);
  printf(" isPartial=%d isShard=%d op=%d\n", hpAttributeIsADTensorPartialAttr(p),
         hpAttributeIsADTensorShardAttr(p), (int)hpDTensorPartialAttrGetReduceOp(p));
  // CHECK: #dtensor.partial<max> isPartial=1 isShard=0 op=2
  MlirStringRef avg = hpDTensorReduceOpGetName(HPReduceAvg);
  MlirStringRef noName = hpDTensorReduceOpGetName((HPReduceOp)7);
  printf("name=%.*s badLength=%zu fromName=%d unknown=%d\n", (int)avg.length,
         avg.data, noName.length,
         (int)hpDTensorReduceOpFromName(mlirStringRefCreateFromCString("prod")),
         (int)hpDTensorReduceOpFromName(mlirStringRefCreateFromCString("xor")));
  // CHECK: name=avg badLength=0 fromName=4 unknown=-1
  printf("replicate=%d\n", hpAttributeIsADTensorReplicateAttr(r));
  // CHECK: replicate=1
  MlirAttribute ss = hpDTensorStridedShardAttrGet(ctx, 0, 4);
  mlirAttributePrint(ss, print, NULL);
  printf(" isStrided=%d isShard=%d dim=%lld factor=%lld\n",
         hpAttributeIsADTensorStridedShardAttr(ss),
         hpAttributeIsADTensorShardAttr(ss),
         (long long)hpDTensorStridedShardAttrGetDim(ss),
         (long long)hpDTensorStridedShardAttrGetSplitFactor(ss));
  // CHECK: #dtensor.strided_shard<0, 4> isStrided=1 isShard=0 dim=0 factor=4
  fflush(stdout); /* the diagnostic below goes to stderr */
  printf("bad strided_shard is null: %d\n",
         mlirAttributeIsNull(hpDTensorStridedShardAttrGet(ctx, 0, 0)));
  // CHECK: strided_shard split factor must be at least 1, got 0
  // CHECK: bad strided_shard is null: 1

  /* Types. */
  int64_t shape[2] = {10, 8};
  MlirAttribute placements[2] = {hpDTensorShardAttrGet(ctx, 0), r};
  MlirType f32 = mlirF32TypeGet(ctx);
  MlirType dt = hpDTensorTypeGet(ctx, 2, shape, f32, str("mesh"), 2, placements);
  mlirTypePrint(dt, print, NULL);
  printf("\n");
  // CHECK: !dtensor.tensor<10x8xf32, @mesh, [shard<0>, replicate]>
  MlirStringRef mesh = hpDTensorTypeGetMesh(dt);
  printf("isa=%d rank=%ld dim0=%lld mesh=%.*s placements=%ld\n",
         hpTypeIsADTensorType(dt), (long)hpDTensorTypeGetRank(dt),
         (long long)hpDTensorTypeGetDimSize(dt, 0), (int)mesh.length, mesh.data,
         (long)hpDTensorTypeGetNumPlacements(dt));
  // CHECK: isa=1 rank=2 dim0=10 mesh=mesh placements=2
  int64_t meshShape[2] = {4, 2};
  mlirTypePrint(hpDTensorTypeGetLocalType(dt, 2, meshShape), print, NULL);
  printf("\n");
  /* 10 rows over 4: 3, 3, 3, 1 -> dynamic. */
  // CHECK: tensor<?x8xf32>
  fflush(stdout); /* the diagnostic below goes to stderr */
  MlirAttribute bad[1] = {hpDTensorShardAttrGet(ctx, 5)};
  printf("invalid type is null: %d\n",
         mlirTypeIsNull(hpDTensorTypeGet(ctx, 2, shape, f32, str("mesh"), 1, bad)));
  // CHECK: dtensor type: shard dim 5 is out of range for a tensor of rank 2
  // CHECK: invalid type is null: 1

  /* Build a module: a mesh, and a function holding a local_region. */
  MlirLocation loc = mlirLocationUnknownGet(ctx);
  MlirModule module = mlirModuleCreateEmpty(loc);
  MlirBlock top = mlirModuleGetBody(module);
  MlirStringRef names[2] = {str("dp"), str("tp")};
  int64_t mshape[2] = {2, 2};
  mlirBlockAppendOwnedOperation(top, hpDTensorMeshOpCreate(loc, str("mesh"), 2, mshape, names, NULL));

  int64_t gshape[1] = {8};
  MlirAttribute sr[2] = {hpDTensorShardAttrGet(ctx, 0), r};
  MlirType in = hpDTensorTypeGet(ctx, 1, gshape, f32, str("mesh"), 2, sr);
  MlirType fnType = mlirFunctionTypeGet(ctx, 1, &in, 1, &in);
  MlirNamedAttribute fnAttrs[2] = {
      mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("sym_name")),
                            mlirStringAttrGet(ctx, str("double"))),
      mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("function_type")),
                            mlirTypeAttrGet(fnType))};
  MlirRegion fnBody = mlirRegionCreate();
  MlirBlock entry = mlirBlockCreate(1, &in, &loc);
  mlirRegionAppendOwnedBlock(fnBody, entry);
  MlirOperationState fnState = mlirOperationStateGet(str("func.func"), loc);
  mlirOperationStateAddAttributes(&fnState, 2, fnAttrs);
  mlirOperationStateAddOwnedRegions(&fnState, 1, &fnBody);
  MlirOperation fn = mlirOperationCreate(&fnState);
  mlirBlockAppendOwnedOperation(top, fn);

  MlirValue x = mlirBlockGetArgument(entry, 0);
  MlirStringRef argName = str("x");
  MlirType local = hpDTensorTypeGetLocalType(in, 2, mshape);
  // One placement list per result.
  MlirAttribute list = mlirArrayAttrGet(ctx, 2, sr);
  MlirAttribute outs = mlirArrayAttrGet(ctx, 1, &list);
  MlirOperation region = hpDTensorLocalRegionOpCreate(
      loc, str("mesh"), 1, &x, &argName, &local, mlirAttributeGetNull(), outs,
      false, 1, &in);
  mlirBlockAppendOwnedOperation(entry, region);
  MlirBlock body = hpDTensorLocalRegionOpGetBody(region);
  MlirValue l = mlirBlockGetArgument(body, 0);
  MlirValue ll[2] = {l, l};
  MlirOperationState add = mlirOperationStateGet(str("arith.addf"), loc);
  mlirOperationStateAddOperands(&add, 2, ll);
  mlirOperationStateAddResults(&add, 1, &local);
  MlirOperation addOp = mlirOperationCreate(&add);
  mlirBlockAppendOwnedOperation(body, addOp);
  MlirValue sum = mlirOperationGetResult(addOp, 0);
  mlirBlockAppendOwnedOperation(body, hpDTensorYieldOpCreate(loc, 1, &sum));
  MlirValue out = mlirOperationGetResult(region, 0);
  MlirOperationState ret = mlirOperationStateGet(str("func.return"), loc);
  mlirOperationStateAddOperands(&ret, 1, &out);
  mlirBlockAppendOwnedOperation(entry, mlirOperationCreate(&ret));

  // The decorator form: a private local function whose argument is named
  // like a Python parameter, called by a local_call.
  MlirType localFnType = mlirFunctionTypeGet(ctx, 1, &local, 1, &local);
  MlirNamedAttribute localFnAttrs[3] = {
      mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("sym_name")),
                            mlirStringAttrGet(ctx, str("keep"))),
      mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("function_type")),
                            mlirTypeAttrGet(localFnType)),
      mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("sym_visibility")),
                            mlirStringAttrGet(ctx, str("private")))};
  MlirOperationState localFnState = mlirOperationStateGet(str("func.func"), loc);
  mlirOperationStateAddAttributes(&localFnState, 3, localFnAttrs);
  MlirRegion emptyBody = mlirRegionCreate();
  mlirOperationStateAddOwnedRegions(&localFnState, 1, &emptyBody);
  MlirOperation localFn = mlirOperationCreate(&localFnState);
  hpFuncSetArgName(localFn, 0, str("x"));
  mlirBlockAppendOwnedOperation(top, localFn);
  MlirOperation call = hpDTensorLocalCallOpCreate(
      loc, str("keep"), str("mesh"), 1, &x, mlirAttributeGetNull(), outs,
      false, false, 1, &in);
  mlirBlockInsertOwnedOperationBefore(entry, mlirBlockGetTerminator(entry), call);

  // A whole program: a global_region whose body sees x whole, pins it
  // replicated and doubles it.
  MlirNamedAttribute globalFnAttrs[2] = {
      mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("sym_name")),
                            mlirStringAttrGet(ctx, str("global"))),
      mlirNamedAttributeGet(mlirIdentifierGet(ctx, str("function_type")),
                            mlirTypeAttrGet(fnType))};
  MlirRegion globalFnBody = mlirRegionCreate();
  MlirBlock globalEntry = mlirBlockCreate(1, &in, &loc);
  mlirRegionAppendOwnedBlock(globalFnBody, globalEntry);
  MlirOperationState globalFnState = mlirOperationStateGet(str("func.func"), loc);
  mlirOperationStateAddAttributes(&globalFnState, 2, globalFnAttrs);
  mlirOperationStateAddOwnedRegions(&globalFnState, 1, &globalFnBody);
  mlirBlockAppendOwnedOperation(top, mlirOperationCreate(&globalFnState));
  MlirValue gx = mlirBlockGetArgument(globalEntry, 0);
  MlirOperation global =
      hpDTensorGlobalRegionOpCreate(loc, str("mesh"), 1, &gx, 1, &in);
  mlirBlockAppendOwnedOperation(globalEntry, global);
  MlirBlock globalBody = hpDTensorGlobalRegionOpGetBody(global);
  MlirValue whole = mlirBlockGetArgument(globalBody, 0);
  mlirTypePrint(mlirValueGetType(whole), print, NULL);
  printf("\n");
  // CHECK: tensor<8xf32>
  MlirAttribute rr[2] = {r, r};
  MlirOperation pin = hpDTensorConstrainOpCreate(loc, whole, 2, rr);
  mlirBlockAppendOwnedOperation(globalBody, pin);
  MlirValue pinned = mlirOperationGetResult(pin, 0);
  MlirValue pp[2] = {pinned, pinned};
  MlirOperationState gadd = mlirOperationStateGet(str("arith.addf"), loc);
  mlirOperationStateAddOperands(&gadd, 2, pp);
  MlirType wholeType = mlirValueGetType(whole);
  mlirOperationStateAddResults(&gadd, 1, &wholeType);
  MlirOperation gaddOp = mlirOperationCreate(&gadd);
  mlirBlockAppendOwnedOperation(globalBody, gaddOp);
  MlirValue gsum = mlirOperationGetResult(gaddOp, 0);
  mlirBlockAppendOwnedOperation(globalBody, hpDTensorYieldOpCreate(loc, 1, &gsum));
  MlirValue gout = mlirOperationGetResult(global, 0);
  MlirOperationState gret = mlirOperationStateGet(str("func.return"), loc);
  mlirOperationStateAddOperands(&gret, 1, &gout);
  mlirBlockAppendOwnedOperation(globalEntry, mlirOperationCreate(&gret));

  MlirOperation moduleOp = mlirModuleGetOperation(module);
  printf("verified: %d\n", mlirOperationVerify(moduleOp));
  // CHECK: verified: 1
  mlirOperationPrint(moduleOp, print, NULL);
  printf("\n");
  // CHECK: dtensor.mesh @mesh shape = [2, 2] names = ["dp", "tp"]
  // CHECK: dtensor.local_region on @mesh args(%{{.*}} as "x") out_placements = [shard<0>, replicate]
  // CHECK: ^bb0(%{{.*}}: tensor<4xf32>):
  // CHECK: dtensor.yield
  // CHECK: dtensor.local_call @keep(%{{.*}}) on @mesh out_placements = [shard<0>, replicate]
  // CHECK: func.func private @keep(tensor<4xf32> {dtensor.arg_name = "x"}) -> tensor<4xf32>
  // CHECK: dtensor.global_region on @mesh args(%{{.*}}) : (!dtensor.tensor<8xf32, @mesh, [shard<0>, replicate]>) -> !dtensor.tensor<8xf32, @mesh, [shard<0>, replicate]> {
  // CHECK: dtensor.constrain %{{.*}} [replicate, replicate] : tensor<8xf32>

  /* Placement rules (hp-c/PlacementRules.h), worked by hand. */
  {
    MlirAttribute rs[2] = {hpDTensorReplicateAttrGet(ctx),
                           hpDTensorShardAttrGet(ctx, 1)};
    MlirAttribute param = mlirArrayAttrGet(ctx, 2, rs);
    mlirAttributePrint(hpPlacementsFsdpSplit(param, 2, 0), print, NULL);
    printf("\n");
    // CHECK: [#dtensor.shard<0>, #dtensor.shard<1>]
    mlirAttributePrint(hpPlacementsFsdpSplit(param, 2, 1), print, NULL);
    printf("\n");
    // CHECK: [#dtensor.replicate, #dtensor.shard<1>]
    int64_t shape[2] = {8, 4};
    mlirAttributePrint(hpPlacementsOfOptimizerState(param, 2, shape, 2, shape),
                       print, NULL);
    printf("\n");
    // CHECK: [#dtensor.replicate, #dtensor.shard<1>]
    mlirAttributePrint(hpPlacementsOfOptimizerState(param, 2, shape, 0, NULL),
                       print, NULL);
    printf("\n");
    // CHECK: [#dtensor.replicate, #dtensor.replicate]
    MlirAttribute a[2] = {hpDTensorShardAttrGet(ctx, 0),
                          hpDTensorShardAttrGet(ctx, 1)};
    MlirAttribute b[2] = {hpDTensorShardAttrGet(ctx, 0),
                          hpDTensorReplicateAttrGet(ctx)};
    MlirAttribute inputs[2] = {mlirArrayAttrGet(ctx, 2, a),
                               mlirArrayAttrGet(ctx, 2, b)};
    mlirAttributePrint(hpPlacementsFromInputs(ctx, 2, inputs, 1, 2, -1), print,
                       NULL);
    printf("\n");
    // CHECK: [#dtensor.shard<0>, #dtensor.replicate]
  }

  /* Run the hp-partition pipeline. */
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  MlirLogicalResult parsed = mlirParsePassPipeline(opm, str("builtin.module(hp-partition)"), print, NULL);
  printf("pipeline parsed: %d\n", mlirLogicalResultIsSuccess(parsed));
  // CHECK: pipeline parsed: 1
  MlirLogicalResult ran = mlirPassManagerRunOnOp(pm, moduleOp);
  printf("pipeline ran: %d\n", mlirLogicalResultIsSuccess(ran));
  // CHECK: pipeline ran: 1
  mlirOperationPrint(moduleOp, print, NULL);
  printf("\n");
  // CHECK: shard.grid @mesh(shape = 2x2)
  // CHECK: func.func @double(%{{.*}}: tensor<4xf32> {dtensor.sharding = #dtensor.sharding<@mesh, [shard<0>, replicate], global = [8]>})
  // CHECK: arith.addf
  // The global program: propagation doubles each rank's block; the gather
  // the constraint asks for and the chunk back to a block cancel.
  // CHECK: func.func @global(%{{.*}}: tensor<4xf32>
  // CHECK-NOT: shard.all_gather
  // CHECK: arith.addf %{{.*}}, %{{.*}} : tensor<4xf32>
  // CHECK-NOT: dtensor.

  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  mlirContextDestroy(ctx);
  return 0;
}
