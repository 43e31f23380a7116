//===- DTensorOps.cpp - dtensor operations --------------------------------===//

#include "Contract.h"

#include "hp/Dialect/DTensor/IR/DTensor.h"
#include "hp/Dialect/DTensor/Layout/Layout.h"
#include "hp/Support/DeviceList.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace hp::dtensor;
using namespace hp::dtensor::detail;

#define GET_OP_CLASSES
#include "hp/Dialect/DTensor/IR/DTensorOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

MeshInfo hp::dtensor::getMeshInfo(Operation *symbolOp) {
  MeshInfo info;
  if (auto mesh = dyn_cast_or_null<MeshOp>(symbolOp)) {
    info.op = mesh;
    info.shape.assign(mesh.getShape().begin(), mesh.getShape().end());
    info.names = mesh.getAxisNames();
  } else if (auto grid = dyn_cast_or_null<shard::GridOp>(symbolOp)) {
    if (llvm::any_of(grid.getShape(), ShapedType::isDynamic))
      return info;
    info.op = grid;
    info.shape.assign(grid.getShape().begin(), grid.getShape().end());
    // A grid converted from a dtensor.mesh keeps its names as an attribute.
    ArrayAttr names =
        DTensorDialect::AxisNamesAttrHelper(grid->getContext()).getAttr(grid);
    for (int64_t i = 0, e = grid.getRank(); i < e; ++i) {
      auto name = names && i < static_cast<int64_t>(names.size())
                      ? dyn_cast<StringAttr>(names[i])
                      : StringAttr();
      info.names.push_back(name ? name.str() : "d" + std::to_string(i));
    }
  }
  return info;
}

/// "'@mesh' does not name a dtensor.mesh or a static shard.grid", with the
/// closest mesh or grid of the symbol table `scope` as a suggestion.
static void emitUnknownMesh(InFlightDiagnostic &&diag, Operation *scope,
                            FlatSymbolRefAttr mesh) {
  diag << "'" << mesh
       << "' does not name a dtensor.mesh or a static "
          "shard.grid";
  if (!scope || scope->getNumRegions() != 1 || scope->getRegion(0).empty())
    return;
  SmallVector<StringRef> names;
  for (Operation &o : scope->getRegion(0).front())
    if (isa<MeshOp, shard::GridOp>(o))
      if (StringAttr name = SymbolTable::getSymbolName(&o))
        names.push_back(name.getValue());
  if (StringRef closest = closestName(mesh.getValue(), names); !closest.empty())
    diag << "; did you mean '@" << closest << "'?";
}

MeshInfo hp::dtensor::lookupMesh(Operation *op, FlatSymbolRefAttr mesh,
                                 SymbolTableCollection &symbolTable) {
  MeshInfo info =
      getMeshInfo(symbolTable.lookupNearestSymbolFrom(op, mesh.getAttr()));
  if (!info)
    emitUnknownMesh(op->emitOpError(), SymbolTable::getNearestSymbolTable(op),
                    mesh);
  return info;
}

/// Checks that `type` refers to an existing mesh with one placement per mesh
/// dim; returns the mesh or null after emitting an error.
static MeshInfo verifyDTensorOnMesh(Operation *op, DTensorType type,
                                    StringRef what,
                                    SymbolTableCollection &symbolTable) {
  MeshInfo mesh = lookupMesh(op, type.getMesh(), symbolTable);
  if (!mesh)
    return {};
  if (failed(verifyPlacements([&] { return op->emitOpError(); }, what,
                              type.getPlacements(), mesh.getRank(),
                              type.getRank())) ||
      failed(verifyStridedShards([&] { return op->emitOpError(); }, what,
                                 type.getPlacements(), mesh.getShape(),
                                 type.getShape())))
    return {};
  return mesh;
}

/// Shared by from_local and to_local: the plain side must be exactly the
/// local type of the DTensor side.
static LogicalResult verifyLocalPair(Operation *op, DTensorType dtensor,
                                     Type local,
                                     SymbolTableCollection &symbolTable) {
  MeshInfo mesh = verifyDTensorOnMesh(op, dtensor, "dtensor type", symbolTable);
  if (!mesh)
    return failure();
  RankedTensorType expected = getLocalType(dtensor, mesh);
  if (local != expected)
    return op->emitOpError()
           << "local type " << local << " does not match the local type "
           << expected << " of " << dtensor;
  return success();
}

//===----------------------------------------------------------------------===//
// MeshOp
//===----------------------------------------------------------------------===//

int64_t MeshOp::getNumDevices() {
  int64_t n = 1;
  for (int64_t s : getShape())
    n *= s;
  return n;
}

SmallVector<std::string> MeshOp::getAxisNames() {
  SmallVector<std::string> names;
  if (auto given = getNames()) {
    for (Attribute a : *given)
      names.push_back(cast<StringAttr>(a).str());
    return names;
  }
  for (int64_t i = 0, e = getRank(); i < e; ++i)
    names.push_back("d" + std::to_string(i));
  return names;
}

int64_t MeshOp::getDeviceRank(int64_t linearIndex) {
  if (auto devices = getDevices())
    return (*devices)[linearIndex];
  return linearIndex;
}

LogicalResult MeshOp::verify() {
  ArrayRef<int64_t> shape = getShape();
  if (std::optional<std::string> error = hp::meshShapeError(shape))
    return emitOpError(*error);
  int64_t numDevices = hp::numMeshDevices(shape);
  auto emitError = [&] { return emitOpError(); };
  if (auto names = getNames();
      names &&
      failed(hp::verifyAxisNames(emitError, "mesh", *names, shape.size())))
    return failure();
  if (auto devices = getDevices();
      devices &&
      failed(hp::verifyDeviceList(emitError, "mesh", *devices, numDevices)))
    return failure();
  // The first mesh of a module also checks the DTensor types that no dtensor
  // op verifies: function signatures, block arguments, other ops' values.
  for (Operation &op : (*this)->getBlock()->getOperations())
    if (isa<MeshOp>(op))
      return &op == getOperation()
                 ? verifyDTensorTypesOutsideDTensorOps((*this)->getParentOp())
                 : success();
  return success();
}

/// Checks `type` (or the DTensor types inside it) against their meshes,
/// looked up in `scope`; errors go to `op`.
static LogicalResult verifyTypeOnMesh(Operation *op, Operation *scope,
                                      Type type,
                                      SymbolTableCollection &symbols) {
  WalkResult result = type.walk([&](DTensorType dtensor) {
    MeshInfo mesh =
        getMeshInfo(symbols.lookupSymbolIn(scope, dtensor.getMesh().getAttr()));
    if (!mesh) {
      emitUnknownMesh(op->emitOpError(), scope, dtensor.getMesh());
      return WalkResult::interrupt();
    }
    if (failed(verifyPlacements([&] { return op->emitOpError(); },
                                "dtensor type", dtensor.getPlacements(),
                                mesh.getRank(), dtensor.getRank())) ||
        failed(verifyStridedShards([&] { return op->emitOpError(); },
                                   "dtensor type", dtensor.getPlacements(),
                                   mesh.getShape(), dtensor.getShape())))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

LogicalResult
hp::dtensor::verifyDTensorTypesOutsideDTensorOps(Operation *scope) {
  if (!scope)
    return success();
  SymbolTableCollection symbols;
  WalkResult result = scope->walk([&](Operation *op) {
    // dtensor ops verify their own types.
    if (op == scope ||
        (op->getDialect() && isa<DTensorDialect>(op->getDialect())))
      return WalkResult::advance();
    auto check = [&](Type t) {
      return succeeded(verifyTypeOnMesh(op, scope, t, symbols));
    };
    if (auto fn = dyn_cast<FunctionOpInterface>(op))
      if (!check(fn.getFunctionType()))
        return WalkResult::interrupt();
    for (Type t : op->getResultTypes())
      if (!check(t))
        return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (!check(arg.getType()))
            return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// FromLocalOp / ToLocalOp
//===----------------------------------------------------------------------===//

LogicalResult
FromLocalOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyLocalPair(*this, getType(), getInput().getType(), symbolTable);
}

OpFoldResult FromLocalOp::fold(FoldAdaptor) {
  // from_local(to_local(d)) == d: re-wrapping a rank's own shard is a no-op.
  if (auto toLocal = getInput().getDefiningOp<ToLocalOp>())
    if (toLocal.getInput().getType() == getType())
      return toLocal.getInput();
  return {};
}

LogicalResult ToLocalOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyLocalPair(*this, getInput().getType(), getType(), symbolTable);
}

OpFoldResult ToLocalOp::fold(FoldAdaptor) {
  if (auto fromLocal = getInput().getDefiningOp<FromLocalOp>())
    if (fromLocal.getInput().getType() == getType())
      return fromLocal.getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// RedistributeOp
//===----------------------------------------------------------------------===//

LogicalResult RedistributeOp::verify() {
  DTensorType from = getInput().getType(), to = getType();
  if (from.getMesh() != to.getMesh())
    return emitOpError() << "cannot move a dtensor from mesh " << from.getMesh()
                         << " to mesh " << to.getMesh();
  if (from.getShape() != to.getShape())
    return emitOpError("input and result must have the same global shape");
  if (from.getElementType() != to.getElementType())
    return emitOpError("input and result must have the same element type");
  if (from.getPlacements().size() != to.getPlacements().size())
    return emitOpError("input and result must have the same number of "
                       "placements");
  int64_t badDim;
  if (!isLegalRedistribute(from.getPlacements(), to.getPlacements(), &badDim))
    return emitOpError() << "cannot redistribute "
                         << placementListToString(from.getPlacements())
                         << " to " << placementListToString(to.getPlacements())
                         << ": mesh dim " << badDim
                         << " changes the reduction of a partial placement";
  return success();
}

LogicalResult
RedistributeOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return success(static_cast<bool>(
      verifyDTensorOnMesh(*this, getType(), "dtensor type", symbolTable)));
}

OpFoldResult RedistributeOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

namespace {
/// redistribute(redistribute(x)) -> redistribute(x) when the direct step is
/// legal: the value is the same global tensor, and the planner finds the
/// cheapest path for the combined step anyway.
struct ComposeRedistributes : OpRewritePattern<RedistributeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RedistributeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<RedistributeOp>();
    if (!inner)
      return failure();
    Value source = inner.getInput();
    auto sourceType = cast<DTensorType>(source.getType());
    if (!isLegalRedistribute(sourceType.getPlacements(),
                             op.getType().getPlacements()))
      return failure();
    if (sourceType == op.getType()) {
      rewriter.replaceOp(op, source);
      return success();
    }
    rewriter.replaceOpWithNewOp<RedistributeOp>(op, op.getType(), source);
    return success();
  }
};
} // namespace

void RedistributeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                 MLIRContext *context) {
  results.add<ComposeRedistributes>(context);
}

//===----------------------------------------------------------------------===//
// LocalRegionOp
//===----------------------------------------------------------------------===//

/// The dtensor.yield that ends the body of `op` (a local_region or
/// global_region), with one value per result; null after an error.
static YieldOp verifyBodyYield(Operation *op) {
  Block &block = op->getRegion(0).front();
  auto yield =
      dyn_cast_or_null<YieldOp>(block.empty() ? nullptr : &block.back());
  if (!yield) {
    op->emitOpError("body must end with dtensor.yield");
    return {};
  }
  if (yield.getValues().size() != op->getNumResults()) {
    yield.emitOpError() << "yields " << yield.getValues().size()
                        << " values, but the " << op->getName().stripDialect()
                        << " has " << op->getNumResults() << " results";
    return {};
  }
  return yield;
}

/// `: (operand types) -> (result types)`, resolving `operands`.
static ParseResult
parseCallTypes(OpAsmParser &parser,
               ArrayRef<OpAsmParser::UnresolvedOperand> operands,
               OperationState &result) {
  SMLoc typeLoc = parser.getCurrentLocation();
  FunctionType fnType;
  if (parser.parseColonType(fnType))
    return failure();
  if (fnType.getNumInputs() != operands.size())
    return parser.emitError(typeLoc)
           << "expected " << operands.size() << " operand types, got "
           << fnType.getNumInputs();
  if (parser.resolveOperands(operands, fnType.getInputs(), typeLoc,
                             result.operands))
    return failure();
  result.addTypes(fnType.getResults());
  return success();
}

/// The body of a local_region or global_region: one non-empty region whose
/// block declares its own arguments.
static ParseResult parseRegionBody(OpAsmParser &parser, OperationState &result,
                                   StringRef opName) {
  Region *body = result.addRegion();
  SMLoc bodyLoc = parser.getCurrentLocation();
  if (parser.parseRegion(*body, /*arguments=*/{}))
    return failure();
  if (body->empty())
    return parser.emitError(bodyLoc) << opName << " body must not be empty";
  return success();
}

ArrayAttr LocalRegionOp::getOutPlacementsFor(unsigned i) {
  return dyn_cast<ArrayAttr>(getOutPlacementsAttr()[i]);
}
ArrayAttr LocalRegionOp::getDeclaredInPlacements(unsigned i) {
  auto in = getInPlacementsAttr();
  if (!in)
    return {};
  return dyn_cast_or_null<ArrayAttr>(
      in.get(cast<StringAttr>(getArgNames()[i]).getValue()));
}

bool LocalRegionOp::wrapsOutputs() {
  return getOutPlacementsAttr() &&
         (isGlobalView() ||
          llvm::any_of(getArgs().getTypes(), llvm::IsaPred<DTensorType>));
}

bool LocalRegionOp::isGlobalView() {
  for (Operation *p = (*this)->getParentOp(); p; p = p->getParentOp()) {
    if (isa<GlobalRegionOp>(p))
      return true;
    if (isa<LocalRegionOp>(p))
      return false;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// LocalRegionOp verification
//===----------------------------------------------------------------------===//

/// The DTensor a plain global tensor is inside a global_region when laid out
/// with `placements`; other types unchanged.
static Type asDTensor(Type type, FlatSymbolRefAttr mesh, ArrayAttr placements) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !placements)
    return type;
  // verifyGlobalView reports a layout no DTensor can have; here it is only
  // not built.
  auto quiet = [&] {
    InFlightDiagnostic d = emitError(UnknownLoc::get(type.getContext()));
    d.abandon();
    return d;
  };
  if (failed(DTensorType::verify(quiet, tensor.getShape(),
                                 tensor.getElementType(), mesh, placements)))
    return type;
  return DTensorType::get(type.getContext(), tensor.getShape(),
                          tensor.getElementType(), mesh, placements);
}

static Contract contractOf(LocalRegionOp op) {
  Contract c{op,
             llvm::to_vector(op.getArgs().getTypes()),
             {},
             op.getInPlacementsAttr(),
             op.getOutPlacementsAttr(),
             op.getRedistributeInputs(),
             op.getMeshAttr(),
             op.getBodyBlock().getArgumentTypes(),
             {},
             llvm::to_vector(op.getResultTypes()),
             "block argument",
             "the body yields"};
  for (Attribute a : op.getArgNames())
    c.names.push_back(cast<StringAttr>(a).getValue());
  if (auto yield = dyn_cast_or_null<YieldOp>(
          op.getBodyBlock().empty() ? nullptr : &op.getBodyBlock().back()))
    c.yieldedTypes = yield.getValues().getTypes();
  if (op.isGlobalView()) {
    for (auto [i, type] : llvm::enumerate(c.argTypes))
      type = asDTensor(type, c.mesh, op.getDeclaredInPlacements(i));
    if (c.out && c.out.size() == c.resultTypes.size())
      for (auto [i, type] : llvm::enumerate(c.resultTypes))
        type = asDTensor(type, c.mesh, c.outFor(i));
  }
  return c;
}

/// Inside a global_region, a local_region's tensors are global values: each
/// needs the placements it is laid out with.
static LogicalResult verifyGlobalView(LocalRegionOp op) {
  // The layout a declaration gives a global tensor must be a DTensor's.
  auto verifyLayout = [&](Type type, ArrayAttr placements,
                          const Twine &what) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !placements)
      return success();
    return DTensorType::verify([&] { return op.emitOpError() << what << ": "; },
                               tensor.getShape(), tensor.getElementType(),
                               op.getMeshAttr(), placements);
  };
  for (auto [i, arg] : llvm::enumerate(op.getArgs())) {
    StringRef name = cast<StringAttr>(op.getArgNames()[i]).getValue();
    if (!isa<RankedTensorType>(arg.getType()))
      continue;
    if (!op.getDeclaredInPlacements(i))
      return op.emitOpError()
             << "inside a dtensor.global_region every tensor operand needs an "
                "in_placements list, but operand #"
             << i << " ('" << name << "') has none";
    if (failed(verifyLayout(arg.getType(), op.getDeclaredInPlacements(i),
                            "operand #" + Twine(i) + " ('" + name + "')")))
      return failure();
  }
  bool tensorResults =
      llvm::any_of(op.getResultTypes(), llvm::IsaPred<RankedTensorType>);
  if (tensorResults && !op.getOutPlacementsAttr())
    return op.emitOpError() << "inside a dtensor.global_region tensor results "
                               "need out_placements";
  ArrayAttr out = op.getOutPlacementsAttr();
  if (out && out.size() == op.getNumResults())
    for (auto [i, type] : llvm::enumerate(op.getResultTypes()))
      if (failed(verifyLayout(type, op.getOutPlacementsFor(i),
                              "result #" + Twine(i))))
        return failure();
  return success();
}

LogicalResult LocalRegionOp::verify() {
  unsigned numArgs = getArgs().size();
  if (getArgNames().size() != numArgs)
    return emitOpError() << "has " << numArgs << " operands but "
                         << getArgNames().size() << " argument names";
  llvm::StringSet<> seen;
  for (Attribute a : getArgNames()) {
    StringRef name = cast<StringAttr>(a).getValue();
    if (name.empty())
      return emitOpError("argument names must not be empty");
    if (!seen.insert(name).second)
      return emitOpError() << "duplicate argument name '" << name << "'";
  }
  if (!verifyBodyYield(*this))
    return failure();
  if (isGlobalView() && failed(verifyGlobalView(*this)))
    return failure();
  return verifyContract(contractOf(*this));
}

LogicalResult
LocalRegionOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  return verifyContractOnMesh(contractOf(*this), symbolTable);
}

//===----------------------------------------------------------------------===//
// GlobalRegionOp and ConstrainOp
//===----------------------------------------------------------------------===//

Type GlobalRegionOp::getGlobalType(Type type) {
  if (auto d = dyn_cast<DTensorType>(type))
    return RankedTensorType::get(d.getShape(), d.getElementType());
  return type;
}

ParseResult GlobalRegionOp::parse(OpAsmParser &parser, OperationState &result) {
  FlatSymbolRefAttr mesh;
  SmallVector<OpAsmParser::UnresolvedOperand> operands;
  if (parser.parseKeyword("on") ||
      parser.parseAttribute(mesh, getMeshAttrName(result.name).str(),
                            result.attributes) ||
      parser.parseKeyword("args") ||
      parser.parseOperandList(operands, OpAsmParser::Delimiter::Paren) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes) ||
      parseCallTypes(parser, operands, result))
    return failure();
  return parseRegionBody(parser, result, "global_region");
}

void GlobalRegionOp::print(OpAsmPrinter &p) {
  p << " on " << getMeshAttr() << " args(" << getArgs() << ')';
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(), {getMeshAttrName()});
  p << " : ";
  p.printFunctionalType(getArgs().getTypes(), getResultTypes());
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/true,
                /*printBlockTerminators=*/true);
}

LogicalResult GlobalRegionOp::verify() {
  // Inside a global_region a builtin tensor is already a global value and
  // propagation rewrites the outer body op by op: a nested region has no
  // DTensor operands to partition.
  if (auto outer = (*this)->getParentOfType<GlobalRegionOp>())
    return emitOpError("cannot be nested in another dtensor.global_region ")
           << "(its body is already global view: write its ops in the outer "
              "body)";
  Block &block = getBodyBlock();
  if (block.getNumArguments() != getArgs().size())
    return emitOpError() << "body has " << block.getNumArguments()
                         << " arguments, but the region has "
                         << getArgs().size() << " operands";
  for (auto [i, arg, operand] :
       llvm::enumerate(block.getArguments(), getArgs())) {
    Type global = getGlobalType(operand.getType());
    if (arg.getType() != global)
      return emitOpError() << "body argument #" << i << " has type "
                           << arg.getType() << ", but operand #" << i
                           << " enters as its global type " << global;
  }
  YieldOp yield = verifyBodyYield(*this);
  if (!yield)
    return failure();
  for (auto [i, value, type] :
       llvm::enumerate(yield.getValues(), getResultTypes())) {
    Type global = getGlobalType(type);
    if (value.getType() != global)
      return yield.emitOpError() << "yields " << value.getType()
                                 << " as result #" << i << ", but the result "
                                 << type << " needs its global type " << global;
  }
  return success();
}

LogicalResult
GlobalRegionOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  MeshInfo mesh = lookupMesh(*this, getMeshAttr(), symbolTable);
  if (!mesh)
    return failure();
  auto onMesh = [&](Type type, StringRef what, size_t i) -> LogicalResult {
    auto d = dyn_cast<DTensorType>(type);
    if (!d)
      return success();
    if (d.getMesh() != getMeshAttr())
      return emitOpError() << what << " #" << i << " is on mesh " << d.getMesh()
                           << ", but the region is on " << getMeshAttr();
    // A shard.grid mesh has no op that checks the types on it.
    return success(static_cast<bool>(
        verifyDTensorOnMesh(*this, d, "dtensor type", symbolTable)));
  };
  for (auto [i, type] : llvm::enumerate(getArgs().getTypes()))
    if (failed(onMesh(type, "operand", i)))
      return failure();
  for (auto [i, type] : llvm::enumerate(getResultTypes()))
    if (failed(onMesh(type, "result", i)))
      return failure();
  // Constraints name placements of this region's mesh.
  WalkResult walk = getBody().walk([&](Operation *op) {
    if (isa<LocalRegionOp>(op))
      return WalkResult::skip();
    auto constrain = dyn_cast<ConstrainOp>(op);
    if (!constrain)
      return WalkResult::advance();
    auto err = [&] { return constrain.emitOpError(); };
    ArrayRef<int64_t> shape = constrain.getInput().getType().getShape();
    if (failed(verifyPlacements(err, "placement list",
                                constrain.getPlacements(), mesh.getRank(),
                                shape.size())) ||
        failed(verifyStridedShards(err, "placement list",
                                   constrain.getPlacements(), mesh.getShape(),
                                   shape)))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

ParseResult ConstrainOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand input;
  ArrayAttr placements;
  Type type;
  if (parser.parseOperand(input) || parsePlacementList(parser, placements) ||
      parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseColonType(type) ||
      parser.resolveOperand(input, type, result.operands))
    return failure();
  result.addAttribute(getPlacementsAttrName(result.name), placements);
  result.addTypes(type);
  return success();
}

void ConstrainOp::print(OpAsmPrinter &p) {
  p << ' ' << getInput() << ' ';
  printPlacementList(p, getPlacements());
  p.printOptionalAttrDict((*this)->getAttrs(), {getPlacementsAttrName()});
  p << " : " << getType();
}

LogicalResult ConstrainOp::verify() {
  if (!(*this)->getParentOfType<GlobalRegionOp>())
    return emitOpError("is only meaningful inside a dtensor.global_region");
  for (Operation *p = (*this)->getParentOp(); !isa<GlobalRegionOp>(p);
       p = p->getParentOp())
    if (isa<LocalRegionOp>(p))
      return emitOpError("pins a global value; inside a local_region values "
                         "are per-rank");
  return success();
}

//===----------------------------------------------------------------------===//
// LocalCallOp
//===----------------------------------------------------------------------===//

LogicalResult
LocalCallOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto callee =
      symbolTable.lookupNearestSymbolFrom<func::FuncOp>(*this, getCalleeAttr());
  if (!callee) {
    InFlightDiagnostic diag = emitOpError() << "'" << getCalleeAttr()
                                            << "' does not name a func.func";
    SmallVector<StringRef> names;
    if (Operation *scope = SymbolTable::getNearestSymbolTable(*this))
      scope->walk([&](func::FuncOp f) { names.push_back(f.getSymName()); });
    if (StringRef closest = closestName(getCallee(), names); !closest.empty())
      diag << "; did you mean '@" << closest << "'?";
    return diag;
  }
  FunctionType type = callee.getFunctionType();
  Contract c{*this,
             llvm::to_vector(getArgs().getTypes()),
             {},
             getInPlacementsAttr(),
             getOutPlacementsAttr(),
             getRedistributeInputs(),
             getMeshAttr(),
             type.getInputs(),
             type.getResults(),
             llvm::to_vector(getResultTypes()),
             "callee argument",
             "the callee returns"};
  llvm::StringSet<> seen;
  for (unsigned i = 0, e = type.getNumInputs(); i < e; ++i) {
    auto name = callee.getArgAttrOfType<StringAttr>(i, getArgNameAttrName());
    if (name && !seen.insert(name.getValue()).second)
      return emitOpError() << "duplicate argument name '" << name.getValue()
                           << "' in the callee's dtensor.arg_name attributes";
    c.names.push_back(name ? name.getValue() : StringRef());
  }
  if (type.getNumResults() != getNumResults())
    return emitOpError() << "the callee returns " << type.getNumResults()
                         << " values, but the local_call has "
                         << getNumResults() << " results";
  if (failed(verifyContract(c)))
    return failure();
  return verifyContractOnMesh(c, symbolTable);
}

CallInterfaceCallable LocalCallOp::getCallableForCallee() {
  return getCalleeAttr();
}

void LocalCallOp::setCalleeFromCallable(CallInterfaceCallable callee) {
  setCalleeAttr(cast<FlatSymbolRefAttr>(cast<SymbolRefAttr>(callee)));
}

Operation::operand_range LocalCallOp::getArgOperands() { return getArgs(); }

MutableOperandRange LocalCallOp::getArgOperandsMutable() {
  return getArgsMutable();
}
