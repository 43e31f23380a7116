//===- DTensorCAPI.cpp - C API of hp's dialects ---------------------------===//

#include "hp-c/DTensor.h"

#include "hp/Dialect/DTensor/IR/DTensor.h"
#include "hp/Dialect/NCCL/IR/NCCL.h"
#include "hp/InitAllDialects.h"
#include "hp/InitAllPasses.h"

#include "mlir/CAPI/IR.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/Builders.h"
#include "mlir/Parser/Parser.h"

using namespace mlir;
using namespace hp::dtensor;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(DTensor, dtensor, DTensorDialect)
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(NCCL, nccl, hp::nccl::NCCLDialect)

void hpRegisterAllDialects(MlirDialectRegistry registry) {
  hp::registerAllHPDialects(*unwrap(registry));
}

void hpRegisterAllPasses(void) { hp::registerAllHPPasses(); }

MlirAttribute hpDTensorShardAttrGet(MlirContext ctx, int64_t dim) {
  return wrap(ShardAttr::get(unwrap(ctx), dim));
}
bool hpAttributeIsADTensorShardAttr(MlirAttribute attr) {
  return isa<ShardAttr>(unwrap(attr));
}
int64_t hpDTensorShardAttrGetDim(MlirAttribute attr) {
  return cast<ShardAttr>(unwrap(attr)).getDim();
}

MlirAttribute hpDTensorStridedShardAttrGet(MlirContext ctx, int64_t dim,
                                           int64_t splitFactor) {
  MLIRContext *context = unwrap(ctx);
  return wrap(StridedShardAttr::getChecked(
      [&] { return emitError(UnknownLoc::get(context)); }, context, dim,
      splitFactor));
}
bool hpAttributeIsADTensorStridedShardAttr(MlirAttribute attr) {
  return isa<StridedShardAttr>(unwrap(attr));
}
int64_t hpDTensorStridedShardAttrGetDim(MlirAttribute attr) {
  return cast<StridedShardAttr>(unwrap(attr)).getDim();
}
int64_t hpDTensorStridedShardAttrGetSplitFactor(MlirAttribute attr) {
  return cast<StridedShardAttr>(unwrap(attr)).getSplitFactor();
}

MlirAttribute hpDTensorReplicateAttrGet(MlirContext ctx) {
  return wrap(ReplicateAttr::get(unwrap(ctx)));
}
bool hpAttributeIsADTensorReplicateAttr(MlirAttribute attr) {
  return isa<ReplicateAttr>(unwrap(attr));
}

MlirAttribute hpDTensorPartialAttrGet(MlirContext ctx, HPReduceOp op) {
  return wrap(PartialAttr::get(unwrap(ctx), static_cast<ReduceOp>(op)));
}
bool hpAttributeIsADTensorPartialAttr(MlirAttribute attr) {
  return isa<PartialAttr>(unwrap(attr));
}
HPReduceOp hpDTensorPartialAttrGetReduceOp(MlirAttribute attr) {
  return static_cast<HPReduceOp>(cast<PartialAttr>(unwrap(attr)).getReduceOp());
}

MlirType hpDTensorTypeGet(MlirContext ctx, intptr_t rank, const int64_t *shape,
                          MlirType elementType, MlirStringRef mesh,
                          intptr_t numPlacements,
                          const MlirAttribute *placements) {
  MLIRContext *context = unwrap(ctx);
  SmallVector<Attribute> list;
  for (intptr_t i = 0; i < numPlacements; ++i)
    list.push_back(unwrap(placements[i]));
  return wrap(DTensorType::getChecked(
      [&] { return emitError(UnknownLoc::get(context)); }, context,
      ArrayRef<int64_t>(shape, rank), unwrap(elementType),
      FlatSymbolRefAttr::get(context, unwrap(mesh)),
      ArrayAttr::get(context, list)));
}
bool hpTypeIsADTensorType(MlirType type) {
  return isa<DTensorType>(unwrap(type));
}
intptr_t hpDTensorTypeGetRank(MlirType type) {
  return cast<DTensorType>(unwrap(type)).getRank();
}
int64_t hpDTensorTypeGetDimSize(MlirType type, intptr_t dim) {
  return cast<DTensorType>(unwrap(type)).getShape()[dim];
}
MlirType hpDTensorTypeGetElementType(MlirType type) {
  return wrap(cast<DTensorType>(unwrap(type)).getElementType());
}
MlirStringRef hpDTensorTypeGetMesh(MlirType type) {
  return wrap(cast<DTensorType>(unwrap(type)).getMesh().getValue());
}
intptr_t hpDTensorTypeGetNumPlacements(MlirType type) {
  return cast<DTensorType>(unwrap(type)).getPlacements().size();
}
MlirAttribute hpDTensorTypeGetPlacement(MlirType type, intptr_t pos) {
  return wrap(cast<DTensorType>(unwrap(type)).getPlacements()[pos]);
}
MlirType hpDTensorTypeGetLocalType(MlirType type, intptr_t meshRank,
                                   const int64_t *meshShape) {
  auto dtensor = cast<DTensorType>(unwrap(type));
  if (static_cast<intptr_t>(dtensor.getPlacements().size()) != meshRank)
    return MlirType{nullptr};
  return wrap(getLocalType(dtensor.getShape(), dtensor.getElementType(),
                           ArrayRef<int64_t>(meshShape, meshRank),
                           dtensor.getPlacements()));
}

MlirOperation hpDTensorMeshOpCreate(MlirLocation loc, MlirStringRef name,
                                    intptr_t rank, const int64_t *shape,
                                    const MlirStringRef *names,
                                    const int64_t *devices) {
  Location location = unwrap(loc);
  OpBuilder b(location.getContext());
  ArrayAttr nameAttr;
  if (names) {
    SmallVector<StringRef> list;
    for (intptr_t i = 0; i < rank; ++i)
      list.push_back(unwrap(names[i]));
    nameAttr = b.getStrArrayAttr(list);
  }
  DenseI64ArrayAttr deviceAttr;
  if (devices) {
    int64_t n = 1;
    for (intptr_t i = 0; i < rank; ++i)
      n *= shape[i];
    deviceAttr = b.getDenseI64ArrayAttr(ArrayRef<int64_t>(devices, n));
  }
  auto op = MeshOp::create(b, location, b.getStringAttr(unwrap(name)),
                           b.getDenseI64ArrayAttr(ArrayRef<int64_t>(shape, rank)),
                           nameAttr, deviceAttr);
  return wrap(op.getOperation());
}
bool hpOperationIsADTensorMeshOp(MlirOperation op) {
  return isa<MeshOp>(unwrap(op));
}

/// A placement attribute a C caller may leave null (the op's default).
template <typename T> static T optionalAttr(MlirAttribute attr) {
  return mlirAttributeIsNull(attr) ? T() : dyn_cast<T>(unwrap(attr));
}

MlirOperation hpDTensorLocalRegionOpCreate(
    MlirLocation loc, MlirStringRef mesh, intptr_t numArgs,
    const MlirValue *args, const MlirStringRef *argNames,
    const MlirType *blockArgTypes, MlirAttribute inPlacements,
    MlirAttribute outPlacements, bool redistributeInputs, intptr_t numResults,
    const MlirType *resultTypes) {
  Location location = unwrap(loc);
  MLIRContext *ctx = location.getContext();
  OpBuilder b(ctx);
  SmallVector<Value> operands;
  SmallVector<StringRef> names;
  SmallVector<Type> argTypes;
  SmallVector<Location> argLocs;
  for (intptr_t i = 0; i < numArgs; ++i) {
    operands.push_back(unwrap(args[i]));
    names.push_back(unwrap(argNames[i]));
    argTypes.push_back(unwrap(blockArgTypes[i]));
    argLocs.push_back(location);
  }
  SmallVector<Type> results;
  for (intptr_t i = 0; i < numResults; ++i)
    results.push_back(unwrap(resultTypes[i]));
  auto op = LocalRegionOp::create(
      b, location, results, operands, FlatSymbolRefAttr::get(ctx, unwrap(mesh)),
      b.getStrArrayAttr(names),
      optionalAttr<DictionaryAttr>(inPlacements),
      optionalAttr<ArrayAttr>(outPlacements),
      redistributeInputs ? b.getUnitAttr() : UnitAttr());
  Block *body = b.createBlock(&op.getBody(), {}, argTypes, argLocs);
  (void)body;
  return wrap(op.getOperation());
}

MlirBlock hpDTensorLocalRegionOpGetBody(MlirOperation op) {
  return wrap(&cast<LocalRegionOp>(unwrap(op)).getBodyBlock());
}

MlirOperation hpDTensorLocalCallOpCreate(
    MlirLocation loc, MlirStringRef callee, MlirStringRef mesh,
    intptr_t numArgs, const MlirValue *args, MlirAttribute inPlacements,
    MlirAttribute outPlacements, bool redistributeInputs, bool unchecked,
    intptr_t numResults, const MlirType *resultTypes) {
  Location location = unwrap(loc);
  MLIRContext *ctx = location.getContext();
  OpBuilder b(ctx);
  SmallVector<Value> operands;
  for (intptr_t i = 0; i < numArgs; ++i)
    operands.push_back(unwrap(args[i]));
  SmallVector<Type> results;
  for (intptr_t i = 0; i < numResults; ++i)
    results.push_back(unwrap(resultTypes[i]));
  auto op = LocalCallOp::create(
      b, location, results, FlatSymbolRefAttr::get(ctx, unwrap(callee)),
      operands, FlatSymbolRefAttr::get(ctx, unwrap(mesh)),
      optionalAttr<DictionaryAttr>(inPlacements),
      optionalAttr<ArrayAttr>(outPlacements),
      redistributeInputs ? b.getUnitAttr() : UnitAttr(),
      unchecked ? b.getUnitAttr() : UnitAttr());
  return wrap(op.getOperation());
}

void hpFuncSetArgName(MlirOperation func, intptr_t index, MlirStringRef name) {
  auto fn = cast<FunctionOpInterface>(unwrap(func));
  fn.setArgAttr(index, LocalCallOp::getArgNameAttrName(),
                StringAttr::get(fn.getContext(), unwrap(name)));
}

MlirModule hpModuleCreateParseNamed(MlirContext ctx, MlirStringRef text,
                                    MlirStringRef filename) {
  ParserConfig config(unwrap(ctx));
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(unwrap(text), config, unwrap(filename));
  return MlirModule{module.release().getOperation()};
}

MlirOperation hpDTensorYieldOpCreate(MlirLocation loc, intptr_t numValues,
                                     const MlirValue *values) {
  Location location = unwrap(loc);
  OpBuilder b(location.getContext());
  SmallVector<Value> list;
  for (intptr_t i = 0; i < numValues; ++i)
    list.push_back(unwrap(values[i]));
  return wrap(YieldOp::create(b, location, list).getOperation());
}
