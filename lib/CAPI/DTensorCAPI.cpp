//===- DTensorCAPI.cpp - C API of hp's dialects ---------------------------===//
//
// C callers cannot catch exceptions or see asserts, so every function checks
// its arguments (hp-c/DTensor.h states the preconditions) and reports a
// broken one as an error diagnostic on the context instead of crashing.
//
//===----------------------------------------------------------------------===//

#include "hp-c/DTensor.h"

#include "hp/Dialect/DTensor/IR/DTensor.h"
#include "hp/Dialect/DTensor/Utils/Layout.h"
#include "hp/Dialect/NCCL/IR/NCCL.h"
#include "hp/InitAllDialects.h"
#include "hp/InitAllPasses.h"
#include "hp/Support/NestingDepth.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace hp::dtensor;

// The C enum is cast to the C++ one: keep the values in step.
static_assert(HPReduceSum == static_cast<int>(ReduceOp::Sum) &&
                  HPReduceAvg == static_cast<int>(ReduceOp::Avg) &&
                  HPReduceMax == static_cast<int>(ReduceOp::Max) &&
                  HPReduceMin == static_cast<int>(ReduceOp::Min) &&
                  HPReduceProd == static_cast<int>(ReduceOp::Prod),
              "HPReduceOp and hp::dtensor::ReduceOp disagree");

//===----------------------------------------------------------------------===//
// Argument checks
//===----------------------------------------------------------------------===//

/// An error naming the C function `fn`, for a broken precondition.
static InFlightDiagnostic misuse(Location loc, StringRef fn) {
  return emitError(loc) << fn << ": ";
}
static InFlightDiagnostic misuse(MLIRContext *ctx, StringRef fn) {
  return misuse(UnknownLoc::get(ctx), fn);
}

/// Whether `count` entries may be read at `data`.
static bool checkArray(Location loc, StringRef fn, StringRef what,
                       intptr_t count, const void *data) {
  if (count < 0) {
    misuse(loc, fn) << what << " count must be non-negative, got " << count;
    return false;
  }
  if (count > 0 && !data) {
    misuse(loc, fn) << what << " is NULL but its count is " << count;
    return false;
  }
  return true;
}

/// Whether `s` may be read; an empty string is refused unless `allowEmpty`.
static bool checkString(Location loc, StringRef fn, const Twine &what,
                        MlirStringRef s, bool allowEmpty) {
  if (!s.data && s.length) {
    misuse(loc, fn) << what << " is a NULL string of length " << s.length;
    return false;
  }
  if (!allowEmpty && !s.length) {
    misuse(loc, fn) << what << " must not be empty";
    return false;
  }
  return true;
}

/// Unwraps `count` handles at `data` into `out`, refusing a null entry.
template <typename CType, typename T>
static bool unwrapList(Location loc, StringRef fn, StringRef what,
                       intptr_t count, const CType *data,
                       SmallVectorImpl<T> &out) {
  if (!checkArray(loc, fn, what, count, data))
    return false;
  for (intptr_t i = 0; i < count; ++i) {
    T handle = unwrap(data[i]);
    if (!handle) {
      misuse(loc, fn) << what << " entry #" << i << " is null";
      return false;
    }
    out.push_back(handle);
  }
  return true;
}

/// The product of `shape`'s sizes if each is >= 1 and the product fits
/// kMaxDevices (the bounds the mesh op verifies); otherwise an error.
static std::optional<int64_t> checkMeshShape(Location loc, StringRef fn,
                                             ArrayRef<int64_t> shape) {
  int64_t numDevices = 1;
  for (auto [i, size] : llvm::enumerate(shape)) {
    if (size < 1) {
      misuse(loc, fn) << "mesh dim " << i << " has size " << size
                      << "; sizes must be >= 1";
      return std::nullopt;
    }
    if (llvm::MulOverflow(numDevices, size, numDevices) ||
        numDevices > kMaxDevices) {
      misuse(loc, fn) << "mesh has more than " << kMaxDevices << " devices";
      return std::nullopt;
    }
  }
  return numDevices;
}

/// Every entry of `list` is a placement; the ODS check that follows would
/// not say which entry is not.
static bool checkPlacements(Location loc, StringRef fn,
                            ArrayRef<Attribute> list) {
  for (auto [i, a] : llvm::enumerate(list))
    if (!isa<PlacementAttrInterface>(a)) {
      misuse(loc, fn) << "placements entry #" << i << " is " << a
                      << ", not a placement";
      return false;
    }
  return true;
}

static bool isPlacementList(Attribute attr) {
  auto list = dyn_cast_or_null<ArrayAttr>(attr);
  return list && llvm::all_of(list, llvm::IsaPred<PlacementAttrInterface>);
}

/// The contract attributes of local_region / local_call, each null or of the
/// kind the op expects; any other attribute kind is an error rather than
/// dropped. Which form fits the op (count, mixing) is left to its verifier.
static bool checkContract(Location loc, StringRef fn, MlirAttribute in,
                          MlirAttribute out, DictionaryAttr &inAttr,
                          ArrayAttr &outAttr) {
  if (!mlirAttributeIsNull(in)) {
    inAttr = dyn_cast<DictionaryAttr>(unwrap(in));
    if (!inAttr) {
      misuse(loc, fn) << "inPlacements must be a dictionary attribute, got "
                      << unwrap(in);
      return false;
    }
    for (NamedAttribute entry : inAttr) {
      if (isa<UnitAttr>(entry.getValue()) || isPlacementList(entry.getValue()))
        continue;
      misuse(loc, fn) << "inPlacements entry '" << entry.getName().getValue()
                      << "' must be an array of placements or a unit "
                         "attribute (none), got "
                      << entry.getValue();
      return false;
    }
  }
  if (!mlirAttributeIsNull(out)) {
    outAttr = dyn_cast<ArrayAttr>(unwrap(out));
    if (!outAttr) {
      misuse(loc, fn) << "outPlacements must be an array attribute, got "
                      << unwrap(out);
      return false;
    }
    for (auto [i, entry] : llvm::enumerate(outAttr)) {
      if (isa_and_present<PlacementAttrInterface, UnitAttr>(entry) ||
          isPlacementList(entry))
        continue;
      InFlightDiagnostic diag = misuse(loc, fn);
      diag << "outPlacements entry #" << i
           << " must be a placement, an array of placements or a unit "
              "attribute (none), got ";
      if (entry)
        diag << entry;
      else
        diag << "null";
      return false;
    }
  }
  return true;
}

/// `attr` as a T, or null: silently for a null handle, with a diagnostic
/// naming `fn` and `kind` for another attribute.
template <typename T>
static T attrOfKind(MlirAttribute attr, StringRef fn, StringRef kind) {
  if (mlirAttributeIsNull(attr))
    return T();
  auto typed = dyn_cast<T>(unwrap(attr));
  if (!typed)
    misuse(unwrap(attr).getContext(), fn)
        << unwrap(attr) << " is not a #dtensor." << kind;
  return typed;
}

/// `type` as a DTensorType, or null as for attrOfKind.
static DTensorType dtensorOf(MlirType type, StringRef fn) {
  if (mlirTypeIsNull(type))
    return {};
  auto dtensor = dyn_cast<DTensorType>(unwrap(type));
  if (!dtensor)
    misuse(unwrap(type).getContext(), fn)
        << unwrap(type) << " is not a !dtensor.tensor";
  return dtensor;
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(DTensor, dtensor, DTensorDialect)
MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(NCCL, nccl, hp::nccl::NCCLDialect)

void hpRegisterAllDialects(MlirDialectRegistry registry) {
  if (!mlirDialectRegistryIsNull(registry))
    hp::registerAllHPDialects(*unwrap(registry));
}

void hpRegisterAllPasses(void) { hp::registerAllHPPasses(); }

//===----------------------------------------------------------------------===//
// Placements
//===----------------------------------------------------------------------===//

MlirAttribute hpDTensorShardAttrGet(MlirContext ctx, int64_t dim) {
  if (mlirContextIsNull(ctx))
    return {nullptr};
  MLIRContext *context = unwrap(ctx);
  return wrap(ShardAttr::getChecked(
      [&] { return emitError(UnknownLoc::get(context)); }, context, dim));
}
bool hpAttributeIsADTensorShardAttr(MlirAttribute attr) {
  return isa_and_present<ShardAttr>(unwrap(attr));
}
int64_t hpDTensorShardAttrGetDim(MlirAttribute attr) {
  auto shard = attrOfKind<ShardAttr>(attr, __func__, "shard");
  return shard ? shard.getDim() : -1;
}

MlirAttribute hpDTensorStridedShardAttrGet(MlirContext ctx, int64_t dim,
                                           int64_t splitFactor) {
  if (mlirContextIsNull(ctx))
    return {nullptr};
  MLIRContext *context = unwrap(ctx);
  return wrap(StridedShardAttr::getChecked(
      [&] { return emitError(UnknownLoc::get(context)); }, context, dim,
      splitFactor));
}
bool hpAttributeIsADTensorStridedShardAttr(MlirAttribute attr) {
  return isa_and_present<StridedShardAttr>(unwrap(attr));
}
int64_t hpDTensorStridedShardAttrGetDim(MlirAttribute attr) {
  auto strided = attrOfKind<StridedShardAttr>(attr, __func__, "strided_shard");
  return strided ? strided.getDim() : -1;
}
int64_t hpDTensorStridedShardAttrGetSplitFactor(MlirAttribute attr) {
  auto strided = attrOfKind<StridedShardAttr>(attr, __func__, "strided_shard");
  return strided ? strided.getSplitFactor() : -1;
}

MlirAttribute hpDTensorReplicateAttrGet(MlirContext ctx) {
  if (mlirContextIsNull(ctx))
    return {nullptr};
  return wrap(ReplicateAttr::get(unwrap(ctx)));
}
bool hpAttributeIsADTensorReplicateAttr(MlirAttribute attr) {
  return isa_and_present<ReplicateAttr>(unwrap(attr));
}

MlirAttribute hpDTensorPartialAttrGet(MlirContext ctx, HPReduceOp op) {
  if (mlirContextIsNull(ctx))
    return {nullptr};
  // A C enum holds any int: an unknown value would print as an unparsable
  // partial<>.
  int value = static_cast<int>(op);
  std::optional<ReduceOp> reduceOp;
  if (value >= 0)
    reduceOp = symbolizeReduceOp(static_cast<uint32_t>(value));
  if (!reduceOp) {
    misuse(unwrap(ctx), __func__)
        << "unknown reduce op " << value << "; expected "
        << static_cast<int>(HPReduceSum) << " (sum) to "
        << static_cast<int>(HPReduceProd) << " (prod)";
    return {nullptr};
  }
  return wrap(PartialAttr::get(unwrap(ctx), *reduceOp));
}
bool hpAttributeIsADTensorPartialAttr(MlirAttribute attr) {
  return isa_and_present<PartialAttr>(unwrap(attr));
}
HPReduceOp hpDTensorPartialAttrGetReduceOp(MlirAttribute attr) {
  auto partial = attrOfKind<PartialAttr>(attr, __func__, "partial");
  return partial ? static_cast<HPReduceOp>(partial.getReduceOp())
                 : HPReduceInvalid;
}

//===----------------------------------------------------------------------===//
// !dtensor.tensor
//===----------------------------------------------------------------------===//

MlirType hpDTensorTypeGet(MlirContext ctx, intptr_t rank, const int64_t *shape,
                          MlirType elementType, MlirStringRef mesh,
                          intptr_t numPlacements,
                          const MlirAttribute *placements) {
  if (mlirContextIsNull(ctx))
    return {nullptr};
  MLIRContext *context = unwrap(ctx);
  Location loc = UnknownLoc::get(context);
  SmallVector<Attribute> list;
  if (!checkArray(loc, __func__, "shape", rank, shape) ||
      !unwrapList(loc, __func__, "placements", numPlacements, placements,
                  list) ||
      !checkPlacements(loc, __func__, list) ||
      !checkString(loc, __func__, "mesh", mesh, /*allowEmpty=*/false))
    return {nullptr};
  if (mlirTypeIsNull(elementType)) {
    misuse(loc, __func__) << "the element type is null";
    return {nullptr};
  }
  return wrap(DTensorType::getChecked(
      [&] { return emitError(loc); }, context, ArrayRef<int64_t>(shape, rank),
      unwrap(elementType), FlatSymbolRefAttr::get(context, unwrap(mesh)),
      ArrayAttr::get(context, list)));
}
bool hpTypeIsADTensorType(MlirType type) {
  return isa_and_present<DTensorType>(unwrap(type));
}
intptr_t hpDTensorTypeGetRank(MlirType type) {
  DTensorType dtensor = dtensorOf(type, __func__);
  return dtensor ? dtensor.getRank() : -1;
}
int64_t hpDTensorTypeGetDimSize(MlirType type, intptr_t dim) {
  DTensorType dtensor = dtensorOf(type, __func__);
  if (!dtensor)
    return -1;
  if (dim < 0 || dim >= dtensor.getRank()) {
    misuse(dtensor.getContext(), __func__)
        << "dim " << dim << " is out of range for a tensor of rank "
        << dtensor.getRank();
    return -1;
  }
  return dtensor.getShape()[dim];
}
MlirType hpDTensorTypeGetElementType(MlirType type) {
  DTensorType dtensor = dtensorOf(type, __func__);
  return dtensor ? wrap(dtensor.getElementType()) : MlirType{nullptr};
}
MlirStringRef hpDTensorTypeGetMesh(MlirType type) {
  DTensorType dtensor = dtensorOf(type, __func__);
  return dtensor ? wrap(dtensor.getMesh().getValue())
                 : mlirStringRefCreate(nullptr, 0);
}
intptr_t hpDTensorTypeGetNumPlacements(MlirType type) {
  DTensorType dtensor = dtensorOf(type, __func__);
  return dtensor ? static_cast<intptr_t>(dtensor.getPlacements().size()) : -1;
}
MlirAttribute hpDTensorTypeGetPlacement(MlirType type, intptr_t pos) {
  DTensorType dtensor = dtensorOf(type, __func__);
  if (!dtensor)
    return {nullptr};
  intptr_t size = dtensor.getPlacements().size();
  if (pos < 0 || pos >= size) {
    misuse(dtensor.getContext(), __func__)
        << "placement " << pos << " is out of range; the type has " << size;
    return {nullptr};
  }
  return wrap(dtensor.getPlacements()[pos]);
}
MlirType hpDTensorTypeGetLocalType(MlirType type, intptr_t meshRank,
                                   const int64_t *meshShape) {
  DTensorType dtensor = dtensorOf(type, __func__);
  if (!dtensor)
    return {nullptr};
  Location loc = UnknownLoc::get(dtensor.getContext());
  if (!checkArray(loc, __func__, "meshShape", meshRank, meshShape))
    return {nullptr};
  intptr_t numPlacements = dtensor.getPlacements().size();
  if (numPlacements != meshRank) {
    misuse(loc, __func__) << "a mesh of rank " << meshRank
                          << " for a type with " << numPlacements
                          << " placements";
    return {nullptr};
  }
  // Sizes < 1 would divide by zero in the chunk arithmetic.
  ArrayRef<int64_t> mesh(meshShape, meshRank);
  if (!checkMeshShape(loc, __func__, mesh) ||
      failed(verifyStridedShards([&] { return emitError(loc); }, __func__,
                                 dtensor.getPlacements(), mesh,
                                 dtensor.getShape())))
    return {nullptr};
  return wrap(getLocalType(dtensor.getShape(), dtensor.getElementType(), mesh,
                           dtensor.getPlacements()));
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

MlirOperation hpDTensorMeshOpCreate(MlirLocation loc, MlirStringRef name,
                                    intptr_t rank, const int64_t *shape,
                                    const MlirStringRef *names,
                                    const int64_t *devices) {
  if (mlirLocationIsNull(loc))
    return {nullptr};
  Location location = unwrap(loc);
  StringRef fn = __func__;
  if (!checkString(location, fn, "name", name, /*allowEmpty=*/false) ||
      !checkArray(location, fn, "shape", rank, shape))
    return {nullptr};
  if (rank == 0) {
    misuse(location, fn) << "a mesh needs at least one dim";
    return {nullptr};
  }
  // The device count bounds how much of `devices` is read.
  std::optional<int64_t> numDevices =
      checkMeshShape(location, fn, ArrayRef<int64_t>(shape, rank));
  if (!numDevices)
    return {nullptr};
  OpBuilder b(location.getContext());
  ArrayAttr nameAttr;
  if (names) {
    SmallVector<StringRef> list;
    for (intptr_t i = 0; i < rank; ++i) {
      if (!checkString(location, fn, "names entry #" + Twine(i), names[i],
                       /*allowEmpty=*/true))
        return {nullptr};
      list.push_back(unwrap(names[i]));
    }
    nameAttr = b.getStrArrayAttr(list);
  }
  DenseI64ArrayAttr deviceAttr;
  if (devices)
    deviceAttr =
        b.getDenseI64ArrayAttr(ArrayRef<int64_t>(devices, *numDevices));
  auto op =
      MeshOp::create(b, location, b.getStringAttr(unwrap(name)),
                     b.getDenseI64ArrayAttr(ArrayRef<int64_t>(shape, rank)),
                     nameAttr, deviceAttr);
  // Refuse a mesh that would not parse back. Its verifier looks at its
  // block, so it runs inside a scratch module.
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(location);
  scratch->push_back(op);
  LogicalResult verified = verify(op);
  op->remove();
  if (failed(verified)) {
    op->erase();
    return {nullptr};
  }
  return wrap(op.getOperation());
}
bool hpOperationIsADTensorMeshOp(MlirOperation op) {
  return !mlirOperationIsNull(op) && isa<MeshOp>(unwrap(op));
}

MlirOperation hpDTensorLocalRegionOpCreate(
    MlirLocation loc, MlirStringRef mesh, intptr_t numArgs,
    const MlirValue *args, const MlirStringRef *argNames,
    const MlirType *blockArgTypes, MlirAttribute inPlacements,
    MlirAttribute outPlacements, bool redistributeInputs, intptr_t numResults,
    const MlirType *resultTypes) {
  if (mlirLocationIsNull(loc))
    return {nullptr};
  Location location = unwrap(loc);
  StringRef fn = __func__;
  SmallVector<Value> operands;
  SmallVector<Type> argTypes, results;
  DictionaryAttr in;
  ArrayAttr out;
  if (!checkString(location, fn, "mesh", mesh, /*allowEmpty=*/false) ||
      !unwrapList(location, fn, "args", numArgs, args, operands) ||
      !checkArray(location, fn, "argNames", numArgs, argNames) ||
      !unwrapList(location, fn, "blockArgTypes", numArgs, blockArgTypes,
                  argTypes) ||
      !checkContract(location, fn, inPlacements, outPlacements, in, out) ||
      !unwrapList(location, fn, "resultTypes", numResults, resultTypes,
                  results))
    return {nullptr};
  SmallVector<StringRef> names;
  for (intptr_t i = 0; i < numArgs; ++i) {
    if (!checkString(location, fn, "argNames entry #" + Twine(i), argNames[i],
                     /*allowEmpty=*/true))
      return {nullptr};
    names.push_back(unwrap(argNames[i]));
  }
  MLIRContext *ctx = location.getContext();
  OpBuilder b(ctx);
  auto op = LocalRegionOp::create(
      b, location, results, operands, FlatSymbolRefAttr::get(ctx, unwrap(mesh)),
      b.getStrArrayAttr(names), in, out,
      redistributeInputs ? b.getUnitAttr() : UnitAttr());
  SmallVector<Location> argLocs(numArgs, location);
  b.createBlock(&op.getBody(), {}, argTypes, argLocs);
  return wrap(op.getOperation());
}

/// The body block of a region op of kind `OpTy` (`what` names it), with a
/// diagnostic for another op or one built without its block (through
/// mlirOperationCreate, say).
template <typename OpTy>
static MlirBlock regionBody(MlirOperation op, StringRef fn, StringRef what) {
  if (mlirOperationIsNull(op))
    return {nullptr};
  Operation *operation = unwrap(op);
  auto region = dyn_cast<OpTy>(operation);
  if (!region) {
    misuse(operation->getContext(), fn)
        << "'" << operation->getName() << "' is not a dtensor." << what;
    return {nullptr};
  }
  if (operation->getNumRegions() != 1 || region.getBody().empty()) {
    misuse(operation->getContext(), fn)
        << "the " << what << " has no body block";
    return {nullptr};
  }
  return wrap(&region.getBody().front());
}

MlirBlock hpDTensorLocalRegionOpGetBody(MlirOperation op) {
  return regionBody<LocalRegionOp>(op, __func__, "local_region");
}

MlirOperation hpDTensorLocalCallOpCreate(
    MlirLocation loc, MlirStringRef callee, MlirStringRef mesh,
    intptr_t numArgs, const MlirValue *args, MlirAttribute inPlacements,
    MlirAttribute outPlacements, bool redistributeInputs, bool unchecked,
    intptr_t numResults, const MlirType *resultTypes) {
  if (mlirLocationIsNull(loc))
    return {nullptr};
  Location location = unwrap(loc);
  StringRef fn = __func__;
  SmallVector<Value> operands;
  SmallVector<Type> results;
  DictionaryAttr in;
  ArrayAttr out;
  if (!checkString(location, fn, "callee", callee, /*allowEmpty=*/false) ||
      !checkString(location, fn, "mesh", mesh, /*allowEmpty=*/false) ||
      !unwrapList(location, fn, "args", numArgs, args, operands) ||
      !checkContract(location, fn, inPlacements, outPlacements, in, out) ||
      !unwrapList(location, fn, "resultTypes", numResults, resultTypes,
                  results))
    return {nullptr};
  MLIRContext *ctx = location.getContext();
  OpBuilder b(ctx);
  auto op = LocalCallOp::create(
      b, location, results, FlatSymbolRefAttr::get(ctx, unwrap(callee)),
      operands, FlatSymbolRefAttr::get(ctx, unwrap(mesh)), in, out,
      redistributeInputs ? b.getUnitAttr() : UnitAttr(),
      unchecked ? b.getUnitAttr() : UnitAttr(), /*arg_attrs=*/ArrayAttr(),
      /*res_attrs=*/ArrayAttr());
  return wrap(op.getOperation());
}

bool hpFuncSetArgName(MlirOperation func, intptr_t index, MlirStringRef name) {
  if (mlirOperationIsNull(func))
    return false;
  Operation *op = unwrap(func);
  Location loc = op->getLoc();
  auto fn = dyn_cast<FunctionOpInterface>(op);
  if (!fn) {
    misuse(loc, __func__) << "'" << op->getName() << "' is not a function";
    return false;
  }
  // The argument count comes from the function type (ODS name
  // `function_type`), which a generically built op may lack; func.func casts
  // it to a FunctionType.
  auto type = dyn_cast_or_null<TypeAttr>(op->getAttr("function_type"));
  if (!type || !type.getValue() ||
      (isa<func::FuncOp>(op) && !isa<FunctionType>(type.getValue()))) {
    misuse(loc, __func__) << "the function has no function type";
    return false;
  }
  intptr_t numArgs = fn.getNumArguments();
  if (index < 0 || index >= numArgs) {
    misuse(loc, __func__) << "argument " << index
                          << " is out of range; the function has " << numArgs;
    return false;
  }
  if (!checkString(loc, __func__, "name", name, /*allowEmpty=*/false))
    return false;
  fn.setArgAttr(index, LocalCallOp::getArgNameAttrName(),
                StringAttr::get(fn.getContext(), unwrap(name)));
  return true;
}

MlirModule hpModuleCreateParseNamed(MlirContext ctx, MlirStringRef text,
                                    MlirStringRef filename) {
  if (mlirContextIsNull(ctx))
    return {nullptr};
  MLIRContext *context = unwrap(ctx);
  Location unknown = UnknownLoc::get(context);
  if (!checkString(unknown, __func__, "text", text, /*allowEmpty=*/true) ||
      !checkString(unknown, __func__, "filename", filename,
                   /*allowEmpty=*/true))
    return {nullptr};
  StringRef source = unwrap(text), name = unwrap(filename);
  // The parser recurses per bracket: refuse deep text before it overflows
  // the stack.
  if (std::optional<hp::NestingViolation> deep =
          hp::findExcessiveNesting(source)) {
    // message() starts with "name:line:column: "; the location says that.
    std::string message = deep->message(name);
    std::string prefix =
        (name + ":" + Twine(deep->line) + ":" + Twine(deep->column) + ": ")
            .str();
    emitError(FileLineColLoc::get(context, name, deep->line, deep->column))
        << StringRef(message).drop_front(prefix.size());
    return {nullptr};
  }
  ParserConfig config(context);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, config, name);
  return MlirModule{module.release().getOperation()};
}

MlirOperation hpDTensorGlobalRegionOpCreate(MlirLocation loc,
                                            MlirStringRef mesh,
                                            intptr_t numArgs,
                                            const MlirValue *args,
                                            intptr_t numResults,
                                            const MlirType *resultTypes) {
  if (mlirLocationIsNull(loc))
    return {nullptr};
  Location location = unwrap(loc);
  StringRef fn = __func__;
  SmallVector<Value> operands;
  SmallVector<Type> results;
  if (!checkString(location, fn, "mesh", mesh, /*allowEmpty=*/false) ||
      !unwrapList(location, fn, "args", numArgs, args, operands) ||
      !unwrapList(location, fn, "resultTypes", numResults, resultTypes,
                  results))
    return {nullptr};
  MLIRContext *ctx = location.getContext();
  OpBuilder b(ctx);
  auto op = GlobalRegionOp::create(b, location, results, operands,
                                   FlatSymbolRefAttr::get(ctx, unwrap(mesh)));
  SmallVector<Type> argTypes = llvm::map_to_vector(
      operands, [](Value v) { return GlobalRegionOp::getGlobalType(v.getType()); });
  SmallVector<Location> argLocs(numArgs, location);
  b.createBlock(&op.getBody(), {}, argTypes, argLocs);
  return wrap(op.getOperation());
}

MlirBlock hpDTensorGlobalRegionOpGetBody(MlirOperation op) {
  return regionBody<GlobalRegionOp>(op, __func__, "global_region");
}

MlirOperation hpDTensorConstrainOpCreate(MlirLocation loc, MlirValue input,
                                         intptr_t numPlacements,
                                         const MlirAttribute *placements) {
  if (mlirLocationIsNull(loc))
    return {nullptr};
  Location location = unwrap(loc);
  StringRef fn = __func__;
  SmallVector<Attribute> list;
  if (mlirValueIsNull(input)) {
    misuse(location, fn) << "input is null";
    return {nullptr};
  }
  if (!isa<RankedTensorType>(unwrap(input).getType())) {
    misuse(location, fn) << "input has type " << unwrap(input).getType()
                         << ", not a ranked tensor";
    return {nullptr};
  }
  if (!unwrapList(location, fn, "placements", numPlacements, placements,
                  list) ||
      !checkPlacements(location, fn, list))
    return {nullptr};
  OpBuilder b(location.getContext());
  Value value = unwrap(input);
  return wrap(ConstrainOp::create(b, location, value.getType(), value,
                                  b.getArrayAttr(list))
                  .getOperation());
}

MlirOperation hpDTensorYieldOpCreate(MlirLocation loc, intptr_t numValues,
                                     const MlirValue *values) {
  if (mlirLocationIsNull(loc))
    return {nullptr};
  Location location = unwrap(loc);
  SmallVector<Value> list;
  if (!unwrapList(location, __func__, "values", numValues, values, list))
    return {nullptr};
  OpBuilder b(location.getContext());
  return wrap(YieldOp::create(b, location, list).getOperation());
}
