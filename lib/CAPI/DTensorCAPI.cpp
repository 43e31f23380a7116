//===- DTensorCAPI.cpp - C API of hp's dialects ---------------------------===//
//
// C callers cannot catch exceptions or see asserts, so every function checks
// its arguments (hp-c/DTensor.h states the preconditions) and reports a
// broken one as an error diagnostic on the context instead of crashing.
//
//===----------------------------------------------------------------------===//

#include "hp-c/DTensor.h"

#include "hp/Dialect/DTensor/IR/DTensor.h"
#include "hp/Dialect/DTensor/Layout/Layout.h"
#include "hp/Dialect/DTensor/Transforms/ImportFunction.h"
#include "hp/Dialect/NCCL/IR/NCCL.h"
#include "hp/InitAllDialects.h"
#include "hp/InitAllPasses.h"
#include "hp/Support/MeshShape.h"
#include "hp/Support/NestingDepth.h"
#include "hp/Support/SymbolName.h"

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

static bool isPlacementList(Attribute attr) {
  auto list = dyn_cast_or_null<ArrayAttr>(attr);
  return list && llvm::all_of(list, llvm::IsaPred<PlacementAttrInterface>);
}

namespace {
/// One call of a C API function: the location its errors are reported at
/// (an op builder's, where it builds the op) and the function they name.
/// Each check reports a broken argument and says whether it may be used.
class Call {
public:
  Call(Location loc, StringRef fn) : loc(loc), fn(fn) {}
  /// An op builder's call; false for a null location, where there is no
  /// context to report to (the builder returns a null op).
  Call(MlirLocation loc, StringRef fn)
      : loc(mlirLocationIsNull(loc) ? LocationAttr()
                                    : LocationAttr(unwrap(loc))),
        fn(fn) {}

  explicit operator bool() const { return static_cast<bool>(loc); }
  MLIRContext *getContext() const { return loc.getContext(); }

  /// An error naming the function, for a broken precondition.
  InFlightDiagnostic misuse() const { return ::misuse(loc, fn); }

  /// Whether `count` entries may be read at `data`.
  bool checkArray(StringRef what, intptr_t count, const void *data) const {
    if (count < 0) {
      misuse() << what << " count must be non-negative, got " << count;
      return false;
    }
    if (count > 0 && !data) {
      misuse() << what << " is NULL but its count is " << count;
      return false;
    }
    return true;
  }

  /// Whether `s` may be read; an empty string is refused unless
  /// `allowEmpty`.
  bool checkString(const Twine &what, MlirStringRef s, bool allowEmpty) const {
    if (!s.data && s.length) {
      misuse() << what << " is a NULL string of length " << s.length;
      return false;
    }
    if (!allowEmpty && !s.length) {
      misuse() << what << " must not be empty";
      return false;
    }
    return true;
  }

  /// A string that names a symbol users type (hp/Support/SymbolName.h).
  bool checkSymbol(const Twine &what, MlirStringRef s) const {
    if (!checkString(what, s, /*allowEmpty=*/false))
      return false;
    if (!hp::isPlainSymbolName(unwrap(s))) {
      misuse() << hp::notASymbolName(what.str(), unwrap(s));
      return false;
    }
    return true;
  }

  /// Unwraps `count` handles at `data` into `out`, refusing a null entry.
  /// Every entry of `list` is a placement; the ODS check that follows
  /// would not say which entry is not.
  bool checkPlacements(ArrayRef<Attribute> list) const {
    for (auto [i, a] : llvm::enumerate(list))
      if (!isa<PlacementAttrInterface>(a)) {
        misuse() << "placements entry #" << i << " is " << a
                 << ", not a placement";
        return false;
      }
    return true;
  }
  template <typename CType, typename T>
  bool unwrapList(StringRef what, intptr_t count, const CType *data,
                  SmallVectorImpl<T> &out) const {
    if (!checkArray(what, count, data))
      return false;
    for (intptr_t i = 0; i < count; ++i) {
      T handle = unwrap(data[i]);
      if (!handle) {
        misuse() << what << " entry #" << i << " is null";
        return false;
      }
      out.push_back(handle);
    }
    return true;
  }

  /// The product of `shape`'s sizes if it is a mesh shape (the rule of
  /// hp/Support/MeshShape.h, which the mesh op verifies); otherwise an error.
  std::optional<int64_t> checkMeshShape(ArrayRef<int64_t> shape) const {
    if (std::optional<std::string> error = hp::meshShapeError(shape)) {
      misuse() << *error;
      return std::nullopt;
    }
    return hp::numMeshDevices(shape);
  }

  /// `attr` as a T in `out`, left null for a null handle; false, with an
  /// error naming `what`, for another kind of attribute.
  template <typename T>
  bool checkKind(MlirAttribute attr, StringRef what, StringRef kind,
                 T &out) const {
    if (mlirAttributeIsNull(attr))
      return true;
    out = dyn_cast<T>(unwrap(attr));
    if (!out)
      misuse() << what << " must be " << kind << ", got " << unwrap(attr);
    return static_cast<bool>(out);
  }

  /// The contract attributes of local_region / local_call, each null or of
  /// the kind the op expects (out_placements per result: the flat form is
  /// the textual syntax's, not the op's); any other attribute kind is an
  /// error rather than dropped. The count is left to the op's verifier.
  bool checkContract(MlirAttribute in, MlirAttribute out,
                     DictionaryAttr &inAttr, ArrayAttr &outAttr) const;

  LocationAttr loc;
  StringRef fn;
};
} // namespace

bool Call::checkContract(MlirAttribute in, MlirAttribute out,
                         DictionaryAttr &inAttr, ArrayAttr &outAttr) const {
  if (!checkKind(in, "inPlacements", "a dictionary attribute", inAttr))
    return false;
  for (NamedAttribute entry :
       inAttr ? inAttr.getValue() : ArrayRef<NamedAttribute>()) {
    if (isa<UnitAttr>(entry.getValue()) || isPlacementList(entry.getValue()))
      continue;
    misuse() << "inPlacements entry '" << entry.getName().getValue()
             << "' must be an array of placements or a unit "
                "attribute (none), got "
             << entry.getValue();
    return false;
  }
  if (!checkKind(out, "outPlacements", "an array attribute", outAttr))
    return false;
  for (auto [i, entry] :
       llvm::enumerate(outAttr ? outAttr.getValue() : ArrayRef<Attribute>())) {
    if (isa_and_present<UnitAttr>(entry) || isPlacementList(entry))
      continue;
    InFlightDiagnostic diag = misuse();
    diag << "outPlacements entry #" << i
         << " must be an array of placements or a unit attribute (none), one "
            "per result, got ";
    if (entry)
      diag << entry;
    else
      diag << "null";
    return false;
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
HPReduceOp hpDTensorReduceOpFromName(MlirStringRef name) {
  std::optional<ReduceOp> op = symbolizeReduceOp(unwrap(name));
  return op ? static_cast<HPReduceOp>(*op) : HPReduceInvalid;
}
MlirStringRef hpDTensorReduceOpGetName(HPReduceOp op) {
  int value = static_cast<int>(op);
  std::optional<ReduceOp> known;
  if (value >= 0)
    known = symbolizeReduceOp(static_cast<uint32_t>(value));
  return wrap(known ? stringifyReduceOp(*known) : StringRef());
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
  Call call(UnknownLoc::get(context), __func__);
  SmallVector<Attribute> list;
  if (!call.checkArray("shape", rank, shape) ||
      !call.unwrapList("placements", numPlacements, placements, list) ||
      !call.checkPlacements(list) || !call.checkSymbol("mesh", mesh))
    return {nullptr};
  if (mlirTypeIsNull(elementType)) {
    call.misuse() << "the element type is null";
    return {nullptr};
  }
  return wrap(DTensorType::getChecked(
      [&] { return emitError(call.loc); }, context,
      ArrayRef<int64_t>(shape, rank), unwrap(elementType),
      FlatSymbolRefAttr::get(context, unwrap(mesh)),
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
  Call call(UnknownLoc::get(dtensor.getContext()), __func__);
  if (!call.checkArray("meshShape", meshRank, meshShape))
    return {nullptr};
  intptr_t numPlacements = dtensor.getPlacements().size();
  if (numPlacements != meshRank) {
    call.misuse() << "a mesh of rank " << meshRank << " for a type with "
                  << numPlacements << " placements";
    return {nullptr};
  }
  // Sizes < 1 would divide by zero in the chunk arithmetic.
  ArrayRef<int64_t> mesh(meshShape, meshRank);
  if (!call.checkMeshShape(mesh) ||
      failed(verifyStridedShards([&] { return emitError(call.loc); }, call.fn,
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
  Call call(loc, __func__);
  if (!call || !call.checkSymbol("name", name) ||
      !call.checkArray("shape", rank, shape))
    return {nullptr};
  // The device count bounds how much of `devices` is read.
  std::optional<int64_t> numDevices =
      call.checkMeshShape(ArrayRef<int64_t>(shape, rank));
  if (!numDevices)
    return {nullptr};
  OpBuilder b(call.getContext());
  ArrayAttr nameAttr;
  if (names) {
    SmallVector<StringRef> list;
    for (intptr_t i = 0; i < rank; ++i) {
      if (!call.checkString("names entry #" + Twine(i), names[i],
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
      MeshOp::create(b, call.loc, b.getStringAttr(unwrap(name)),
                     b.getDenseI64ArrayAttr(ArrayRef<int64_t>(shape, rank)),
                     nameAttr, deviceAttr);
  // Refuse a mesh that would not parse back. Its verifier looks at its
  // block, so it runs inside a scratch module.
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(call.loc);
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
  Call call(loc, __func__);
  SmallVector<Value> operands;
  SmallVector<Type> argTypes, results;
  DictionaryAttr in;
  ArrayAttr out;
  if (!call || !call.checkSymbol("mesh", mesh) ||
      !call.unwrapList("args", numArgs, args, operands) ||
      !call.checkArray("argNames", numArgs, argNames) ||
      !call.unwrapList("blockArgTypes", numArgs, blockArgTypes, argTypes) ||
      !call.checkContract(inPlacements, outPlacements, in, out) ||
      !call.unwrapList("resultTypes", numResults, resultTypes, results))
    return {nullptr};
  SmallVector<StringRef> names;
  for (intptr_t i = 0; i < numArgs; ++i) {
    if (!call.checkString("argNames entry #" + Twine(i), argNames[i],
                          /*allowEmpty=*/true))
      return {nullptr};
    names.push_back(unwrap(argNames[i]));
  }
  MLIRContext *ctx = call.getContext();
  OpBuilder b(ctx);
  auto op = LocalRegionOp::create(
      b, call.loc, results, operands, FlatSymbolRefAttr::get(ctx, unwrap(mesh)),
      b.getStrArrayAttr(names), in, out,
      redistributeInputs ? b.getUnitAttr() : UnitAttr());
  SmallVector<Location> argLocs(numArgs, call.loc);
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
  Call call(loc, __func__);
  SmallVector<Value> operands;
  SmallVector<Type> results;
  DictionaryAttr in;
  ArrayAttr out;
  if (!call || !call.checkSymbol("callee", callee) ||
      !call.checkSymbol("mesh", mesh) ||
      !call.unwrapList("args", numArgs, args, operands) ||
      !call.checkContract(inPlacements, outPlacements, in, out) ||
      !call.unwrapList("resultTypes", numResults, resultTypes, results))
    return {nullptr};
  MLIRContext *ctx = call.getContext();
  OpBuilder b(ctx);
  auto op = LocalCallOp::create(
      b, call.loc, results, FlatSymbolRefAttr::get(ctx, unwrap(callee)),
      operands, FlatSymbolRefAttr::get(ctx, unwrap(mesh)), in, out,
      redistributeInputs ? b.getUnitAttr() : UnitAttr(),
      unchecked ? b.getUnitAttr() : UnitAttr(), /*arg_attrs=*/ArrayAttr(),
      /*res_attrs=*/ArrayAttr());
  return wrap(op.getOperation());
}

/// The function `func` whose argument (or result) `index` may be given an
/// attribute by the C function `fnName`; null, with a diagnostic (none for a
/// null handle), if it may not.
static FunctionOpInterface functionSlot(MlirOperation func, intptr_t index,
                                        bool result, StringRef fnName) {
  if (mlirOperationIsNull(func))
    return nullptr;
  Operation *op = unwrap(func);
  Call call(op->getLoc(), fnName);
  auto fn = dyn_cast<FunctionOpInterface>(op);
  if (!fn) {
    call.misuse() << "'" << op->getName() << "' is not a function";
    return nullptr;
  }
  // The counts come from the function type (ODS name `function_type`),
  // which a generically built op may lack; func.func casts it to a
  // FunctionType.
  auto type = dyn_cast_or_null<TypeAttr>(op->getAttr("function_type"));
  if (!type || !type.getValue() ||
      (isa<func::FuncOp>(op) && !isa<FunctionType>(type.getValue()))) {
    call.misuse() << "the function has no function type";
    return nullptr;
  }
  intptr_t count = result ? fn.getNumResults() : fn.getNumArguments();
  if (index < 0 || index >= count) {
    call.misuse() << (result ? "result " : "argument ") << index
                  << " is out of range; the function has " << count;
    return nullptr;
  }
  return fn;
}

bool hpFuncSetArgName(MlirOperation func, intptr_t index, MlirStringRef name) {
  FunctionOpInterface fn = functionSlot(func, index, false, __func__);
  if (!fn || !Call(fn.getLoc(), __func__)
                  .checkString("name", name, /*allowEmpty=*/false))
    return false;
  fn.setArgAttr(index, LocalCallOp::getArgNameAttrName(),
                StringAttr::get(fn.getContext(), unwrap(name)));
  return true;
}

bool hpFuncSetMesh(MlirOperation func, MlirStringRef mesh) {
  if (mlirOperationIsNull(func))
    return false;
  Operation *op = unwrap(func);
  Call call(op->getLoc(), __func__);
  if (!isa<FunctionOpInterface>(op)) {
    call.misuse() << "'" << op->getName() << "' is not a function";
    return false;
  }
  if (!call.checkSymbol("mesh", mesh))
    return false;
  op->setAttr(DTensorDialect::MeshAttrHelper::getNameStr(),
              FlatSymbolRefAttr::get(op->getContext(), unwrap(mesh)));
  return true;
}

/// Sets `name` on argument or result `index` of `func` to the placement list
/// `placements`.
static bool setPlacementList(MlirOperation func, intptr_t index, bool result,
                             StringRef name, MlirAttribute placements,
                             StringRef fnName) {
  FunctionOpInterface fn = functionSlot(func, index, result, fnName);
  if (!fn)
    return false;
  Call call(fn.getLoc(), fnName);
  auto list = mlirAttributeIsNull(placements)
                  ? ArrayAttr()
                  : dyn_cast<ArrayAttr>(unwrap(placements));
  if (!list) {
    call.misuse() << "placements must be an array of placements";
    return false;
  }
  if (!call.checkPlacements(list.getValue()))
    return false;
  if (result)
    fn.setResultAttr(index, name, list);
  else
    fn.setArgAttr(index, name, list);
  return true;
}

bool hpFuncSetArgPlacements(MlirOperation func, intptr_t index,
                            MlirAttribute placements) {
  return setPlacementList(func, index, /*result=*/false,
                          DTensorDialect::PlacementsAttrHelper::getNameStr(),
                          placements, __func__);
}

bool hpFuncSetResultPlacements(MlirOperation func, intptr_t index,
                               MlirAttribute placements) {
  return setPlacementList(func, index, /*result=*/true,
                          DTensorDialect::PlacementsAttrHelper::getNameStr(),
                          placements, __func__);
}

bool hpFuncSetResultConstrain(MlirOperation func, intptr_t index,
                              MlirAttribute placements) {
  return setPlacementList(func, index, /*result=*/true,
                          DTensorDialect::ConstrainAttrHelper::getNameStr(),
                          placements, __func__);
}

bool hpFuncSetArgFsdpAxes(MlirOperation func, intptr_t index, intptr_t count,
                          const int64_t *axes) {
  FunctionOpInterface fn = functionSlot(func, index, false, __func__);
  if (!fn || !Call(fn.getLoc(), __func__).checkArray("axes", count, axes))
    return false;
  fn.setArgAttr(
      index, DTensorDialect::FsdpAxesAttrHelper::getNameStr(),
      DenseI64ArrayAttr::get(fn.getContext(), ArrayRef<int64_t>(axes, count)));
  return true;
}

MlirModule hpModuleCreateParseNamed(MlirContext ctx, MlirStringRef text,
                                    MlirStringRef filename) {
  if (mlirContextIsNull(ctx))
    return {nullptr};
  MLIRContext *context = unwrap(ctx);
  Call call(UnknownLoc::get(context), __func__);
  if (!call.checkString("text", text, /*allowEmpty=*/true) ||
      !call.checkString("filename", filename, /*allowEmpty=*/true))
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

MlirOperation hpDTensorGlobalRegionOpCreate(
    MlirLocation loc, MlirStringRef mesh, intptr_t numArgs,
    const MlirValue *args, intptr_t numResults, const MlirType *resultTypes) {
  Call call(loc, __func__);
  SmallVector<Value> operands;
  SmallVector<Type> results;
  if (!call || !call.checkSymbol("mesh", mesh) ||
      !call.unwrapList("args", numArgs, args, operands) ||
      !call.unwrapList("resultTypes", numResults, resultTypes, results))
    return {nullptr};
  MLIRContext *ctx = call.getContext();
  OpBuilder b(ctx);
  auto op = GlobalRegionOp::create(b, call.loc, results, operands,
                                   FlatSymbolRefAttr::get(ctx, unwrap(mesh)));
  SmallVector<Type> argTypes = llvm::map_to_vector(operands, [](Value v) {
    return GlobalRegionOp::getGlobalType(v.getType());
  });
  SmallVector<Location> argLocs(numArgs, call.loc);
  b.createBlock(&op.getBody(), {}, argTypes, argLocs);
  return wrap(op.getOperation());
}

MlirBlock hpDTensorGlobalRegionOpGetBody(MlirOperation op) {
  return regionBody<GlobalRegionOp>(op, __func__, "global_region");
}

MlirOperation hpDTensorConstrainOpCreate(MlirLocation loc, MlirValue input,
                                         intptr_t numPlacements,
                                         const MlirAttribute *placements) {
  Call call(loc, __func__);
  SmallVector<Attribute> list;
  if (!call)
    return {nullptr};
  if (mlirValueIsNull(input)) {
    call.misuse() << "input is null";
    return {nullptr};
  }
  if (!isa<RankedTensorType>(unwrap(input).getType())) {
    call.misuse() << "input has type " << unwrap(input).getType()
                  << ", not a ranked tensor";
    return {nullptr};
  }
  if (!call.unwrapList("placements", numPlacements, placements, list) ||
      !call.checkPlacements(list))
    return {nullptr};
  OpBuilder b(call.getContext());
  Value value = unwrap(input);
  return wrap(ConstrainOp::create(b, call.loc, value.getType(), value,
                                  b.getArrayAttr(list))
                  .getOperation());
}

MlirOperation hpDTensorYieldOpCreate(MlirLocation loc, intptr_t numValues,
                                     const MlirValue *values) {
  Call call(loc, __func__);
  SmallVector<Value> list;
  if (!call || !call.unwrapList("values", numValues, values, list))
    return {nullptr};
  OpBuilder b(call.getContext());
  return wrap(YieldOp::create(b, call.loc, list).getOperation());
}

MlirLogicalResult hpModuleImportFunction(MlirModule dest, MlirModule source,
                                         MlirStringRef name,
                                         MlirStringRef newName) {
  if (mlirModuleIsNull(dest))
    return mlirLogicalResultFailure(); // no context to report to
  ModuleOp d = unwrap(dest);
  Call call(d.getLoc(), __func__);
  if (mlirModuleIsNull(source)) {
    call.misuse() << "source is a null module";
    return mlirLogicalResultFailure();
  }
  ModuleOp s = unwrap(source);
  if (s.getContext() != d.getContext()) {
    call.misuse() << "source and dest belong to different contexts";
    return mlirLogicalResultFailure();
  }
  if (!call.checkString("name", name, /*allowEmpty=*/false) ||
      !call.checkSymbol("newName", newName))
    return mlirLogicalResultFailure();
  return wrap(hp::dtensor::importFunction(d, s, unwrap(name), unwrap(newName)));
}
