//===- Globalize.cpp - placement-annotated functions to global regions ----===//
//
// A frontend (hp.torch, or anyone's importer) produces a function on plain
// tensors and says where its values live with attributes, as Shardy's
// `sdy.sharding` and GSPMD's `mhlo.sharding` do. This pass turns such a
// function into hp's global view: DTensor arguments and results, the body in
// one dtensor.global_region, and each annotated inner value pinned with
// dtensor.constrain, so that dtensor-propagate places everything else.
//
//===----------------------------------------------------------------------===//

#include "hp/Dialect/DTensor/Transforms/Passes.h"

#include "mlir/IR/SymbolTable.h"

namespace hp::dtensor {
#define GEN_PASS_DEF_DTENSORGLOBALIZE
#include "hp/Dialect/DTensor/Transforms/Passes.h.inc"
} // namespace hp::dtensor

using namespace mlir;
using namespace hp::dtensor;

namespace {

constexpr StringLiteral kMeshAttr =
    DTensorDialect::MeshAttrHelper::getNameStr();
constexpr StringLiteral kPlacementsAttr =
    DTensorDialect::PlacementsAttrHelper::getNameStr();
constexpr StringLiteral kConstrainAttr =
    DTensorDialect::ConstrainAttrHelper::getNameStr();

/// The placement list `attr` for a tensor of type `type` on `mesh`, checked
/// against the mesh and the type; null after an error on `fn`. (That it is
/// a list of placements on a ranked tensor is the dialect's rule, which the
/// verified input holds.)
ArrayAttr checkedPlacements(func::FuncOp fn, Attribute attr, Type type,
                            const MeshInfo &mesh, const Twine &what) {
  auto list = cast<ArrayAttr>(attr);
  auto tensor = cast<RankedTensorType>(type);
  if (!isMovableElementType(tensor.getElementType())) {
    fn.emitError() << what << " has element type " << tensor.getElementType()
                   << ", which a DTensor cannot hold";
    return {};
  }
  if (!tensor.hasStaticShape()) {
    fn.emitError() << what << " has the dynamic shape " << tensor
                   << ": placements need a static shape";
    return {};
  }
  if (failed(verifyPlacements([&] { return fn.emitError() << what << ": "; },
                              "placements", list, mesh.getShape().size(),
                              tensor.getRank())))
    return {};
  return list;
}

/// All-replicate placements on `mesh`.
ArrayAttr replicated(MLIRContext *ctx, const MeshInfo &mesh) {
  SmallVector<Attribute> r(mesh.getShape().size(), ReplicateAttr::get(ctx));
  return ArrayAttr::get(ctx, r);
}

/// Whether an unannotated value of `type` becomes a (replicated) DTensor;
/// anything else (a dynamic shape included) passes through unchanged, as
/// global_region allows.
bool isPlaceable(Type type) { return isPlaceableTensorType(type); }

/// The DTensor type of the tensor type `type` on `mesh`.
Type dtensorOf(Type type, FlatSymbolRefAttr mesh, ArrayAttr placements) {
  auto t = cast<RankedTensorType>(type);
  return DTensorType::get(type.getContext(), t.getShape(), t.getElementType(),
                          mesh, placements);
}

/// The global view of a function's signature, and what its body returns.
struct GlobalSignature {
  SmallVector<Type> argTypes;
  SmallVector<Type> resultTypes;
  /// The values the global_region yields (the results that stay).
  SmallVector<Value> yielded;
  /// dtensor.constrain pins: a value and its placements, in result order.
  SmallVector<std::pair<Value, ArrayAttr>> pins;
};

struct DTensorGlobalizePass
    : hp::dtensor::impl::DTensorGlobalizeBase<DTensorGlobalizePass> {
  void runOnOperation() override {
    SymbolTableCollection symbols;
    SmallVector<func::FuncOp> fns;
    getOperation()->walk([&](func::FuncOp fn) {
      if (fn->hasAttr(kMeshAttr))
        fns.push_back(fn);
    });
    for (func::FuncOp fn : fns)
      if (failed(globalize(fn, symbols)))
        return signalPassFailure();
  }

  LogicalResult globalize(func::FuncOp fn, SymbolTableCollection &symbols);
  /// The function's return, if `fn` can be rewritten; else an error.
  FailureOr<func::ReturnOp> checkRewritable(func::FuncOp fn);
};

FailureOr<func::ReturnOp>
DTensorGlobalizePass::checkRewritable(func::FuncOp fn) {
  if (fn.isExternal())
    return fn.emitError() << "'" << kMeshAttr
                          << "' on a declaration: there is no body to place";
  // Callers pass plain tensors; after the rewrite they would not match.
  if (!SymbolTable::symbolKnownUseEmpty(fn, getOperation()))
    return fn.emitError() << "a function with '" << kMeshAttr
                          << "' must not be called in the module: its "
                             "signature becomes DTensors";
  if (!fn.getBody().hasOneBlock())
    return fn.emitError() << "a function with '" << kMeshAttr
                          << "' must have one block";
  auto ret = dyn_cast<func::ReturnOp>(fn.getBody().front().getTerminator());
  if (!ret)
    return fn.emitError() << "the body must end with func.return";
  return ret;
}

/// Arguments: a tensor becomes a DTensor (replicated unless annotated);
/// anything else passes through unchanged.
LogicalResult globalArguments(func::FuncOp fn, FlatSymbolRefAttr meshRef,
                              const MeshInfo &mesh, GlobalSignature &sig) {
  for (auto [i, type] : llvm::enumerate(fn.getArgumentTypes())) {
    Attribute attr = fn.getArgAttr(i, kPlacementsAttr);
    if (!attr && !isPlaceable(type)) {
      sig.argTypes.push_back(type);
      continue;
    }
    ArrayAttr placements =
        attr ? checkedPlacements(fn, attr, type, mesh, "argument #" + Twine(i))
             : replicated(fn.getContext(), mesh);
    if (!placements)
      return failure();
    sig.argTypes.push_back(dtensorOf(type, meshRef, placements));
  }
  return success();
}

/// Results: an output (a DTensor, replicated unless annotated, or a
/// non-tensor as it is) or, with dtensor.constrain, a pin on an inner value
/// that leaves the signature.
LogicalResult globalResults(func::FuncOp fn, func::ReturnOp ret,
                            FlatSymbolRefAttr meshRef, const MeshInfo &mesh,
                            GlobalSignature &sig) {
  for (auto [i, type] : llvm::enumerate(fn.getResultTypes())) {
    Attribute place = fn.getResultAttr(i, kPlacementsAttr);
    Attribute pin = fn.getResultAttr(i, kConstrainAttr);
    std::string what = "result #" + std::to_string(i);
    if (place && pin)
      return fn.emitError() << what << " has both '" << kPlacementsAttr
                            << "' and '" << kConstrainAttr << "'";
    if (pin) {
      ArrayAttr placements = checkedPlacements(fn, pin, type, mesh, what);
      if (!placements)
        return failure();
      sig.pins.push_back({ret.getOperand(i), placements});
      continue;
    }
    sig.yielded.push_back(ret.getOperand(i));
    if (!place && !isPlaceable(type)) {
      sig.resultTypes.push_back(type);
      continue;
    }
    ArrayAttr placements = place
                               ? checkedPlacements(fn, place, type, mesh, what)
                               : replicated(fn.getContext(), mesh);
    if (!placements)
      return failure();
    sig.resultTypes.push_back(dtensorOf(type, meshRef, placements));
  }
  return success();
}

/// Pins: each pinned value's uses read the constrained value instead, in
/// the order given (the last pin on a value is what its uses see).
void insertPins(func::ReturnOp ret, GlobalSignature &sig) {
  OpBuilder b(ret.getContext());
  for (auto [value, placements] : sig.pins) {
    b.setInsertionPointAfterValue(value);
    auto c = ConstrainOp::create(b, value.getLoc(), value.getType(), value,
                                 placements);
    value.replaceUsesWithIf(c.getResult(), [&](OpOperand &use) {
      return use.getOwner() != c && use.getOwner() != ret;
    });
    // A later pin on the same value chains after this one.
    for (auto &later : sig.pins)
      if (later.first == value)
        later.first = c.getResult();
    for (Value &y : sig.yielded)
      if (y == value)
        y = c.getResult();
  }
}

/// The old body becomes the global_region's body; a new entry block calls
/// it and returns its results.
void moveBodyIntoGlobalRegion(func::FuncOp fn, func::ReturnOp ret,
                              FlatSymbolRefAttr meshRef,
                              const GlobalSignature &sig) {
  OpBuilder b(fn.getContext());
  Block *body = &fn.getBody().front();
  auto *entry = new Block();
  Location loc = fn.getLoc();
  for (Type t : sig.argTypes)
    entry->addArgument(t, loc);
  b.setInsertionPointToStart(entry);
  auto region = GlobalRegionOp::create(b, loc, sig.resultTypes,
                                       entry->getArguments(), meshRef);
  b.setInsertionPoint(ret);
  YieldOp::create(b, ret.getLoc(), sig.yielded);
  ret.erase();
  body->moveBefore(&region.getBody(), region.getBody().end());
  fn.getBody().push_back(entry);
  b.setInsertionPointToEnd(entry);
  func::ReturnOp::create(b, loc, region.getResults());
}

/// The new signature, without the pins' results and the annotations.
void setGlobalSignature(func::FuncOp fn, const GlobalSignature &sig) {
  MLIRContext *ctx = fn.getContext();
  SmallVector<DictionaryAttr> resultAttrs;
  for (unsigned i = 0, e = fn.getNumResults(); i < e; ++i)
    if (!fn.getResultAttr(i, kConstrainAttr))
      resultAttrs.push_back(fn.getResultAttrDict(i));
  fn.setType(FunctionType::get(ctx, sig.argTypes, sig.resultTypes));
  fn.setAllResultAttrs(resultAttrs);
  for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
    fn.removeArgAttr(i, StringAttr::get(ctx, kPlacementsAttr));
  for (unsigned i = 0, e = fn.getNumResults(); i < e; ++i)
    fn.removeResultAttr(i, StringAttr::get(ctx, kPlacementsAttr));
  fn->removeAttr(kMeshAttr);
}

LogicalResult DTensorGlobalizePass::globalize(func::FuncOp fn,
                                              SymbolTableCollection &symbols) {
  auto meshRef = dyn_cast<FlatSymbolRefAttr>(fn->getAttr(kMeshAttr));
  if (!meshRef)
    return fn.emitError() << "'" << kMeshAttr
                          << "' must name a dtensor.mesh (@name)";
  MeshInfo mesh = lookupMesh(fn, meshRef, symbols);
  if (!mesh)
    return failure();
  FailureOr<func::ReturnOp> ret = checkRewritable(fn);
  if (failed(ret))
    return failure();
  GlobalSignature sig;
  if (failed(globalArguments(fn, meshRef, mesh, sig)) ||
      failed(globalResults(fn, *ret, meshRef, mesh, sig)))
    return failure();
  insertPins(*ret, sig);
  moveBodyIntoGlobalRegion(fn, *ret, meshRef, sig);
  setGlobalSignature(fn, sig);
  return success();
}

} // namespace
