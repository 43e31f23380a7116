//===- DiscardableAttrs.cpp - the dtensor.* attributes on other ops -------===//
//
// The dialect's contract with the IR around it: the `dtensor.*` attributes
// that frontends put on functions and their arguments and results
// (dtensor-globalize's input, hp.torch's names), and those that passes put
// on other dialects' ops. Each is checked here, by the dialect, wherever it
// appears; the passes that read one check only what depends on their own
// stage (that a mesh symbol exists, that an argument is a DTensor by then).
//
//===----------------------------------------------------------------------===//

#include "hp/Dialect/DTensor/IR/DTensor.h"
#include "hp/Support/DeviceList.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SmallSet.h"

using namespace mlir;
using namespace hp::dtensor;

namespace {

/// Whether `value` is a list of placements (the value of dtensor.placements
/// or dtensor.constrain).
bool isPlacementList(Attribute value) {
  auto list = dyn_cast<ArrayAttr>(value);
  return list && llvm::all_of(list, [](Attribute a) {
           return isa<PlacementAttrInterface>(a);
         });
}

/// dtensor.fsdp_axes on argument `index` of `fn` (`emit` prefixes the
/// argument and the attribute): a non-empty array<i64> of distinct mesh
/// axes on a named argument; once the argument is a DTensor, each axis one
/// of its mesh's that splits it.
LogicalResult verifyFsdpAxes(FunctionOpInterface fn, unsigned index,
                             Attribute value,
                             function_ref<InFlightDiagnostic()> emit) {
  auto axes = dyn_cast<DenseI64ArrayAttr>(value);
  if (!axes || axes.empty())
    return emit() << "must be a non-empty array<i64> of mesh axes, got "
                  << value;
  if (!fn.getArgAttrOfType<StringAttr>(
          index, DTensorDialect::ArgNameAttrHelper::getNameStr()))
    return emit() << "is only meaningful on a parameter (an argument with "
                     "a string 'dtensor.arg_name')";
  auto type = dyn_cast<DTensorType>(fn.getArgumentTypes()[index]);
  int64_t meshRank =
      type ? static_cast<int64_t>(type.getPlacements().size()) : INT64_MAX;
  llvm::SmallSet<int64_t, 4> seen;
  for (int64_t axis : axes.asArrayRef()) {
    if (axis < 0)
      return emit() << "names axis " << axis << ", which a mesh does not have";
    if (axis >= meshRank)
      return emit() << "names axis " << axis << ", which the " << meshRank
                    << "-D mesh " << type.getMesh() << " does not have";
    if (!seen.insert(axis).second)
      return emit() << "names axis " << axis << " twice";
    if (type && !isa<ShardAttr, StridedShardAttr>(type.getPlacements()[axis]))
      return emit() << "names axis " << axis << ", which does not split "
                    << "the argument (" << type << ")";
  }
  return success();
}

/// A dtensor.* attribute on argument or result `index` of `op`.
LogicalResult verifyValueAttribute(Operation *op, bool isArgument,
                                   unsigned index, NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  std::string what =
      (isArgument ? "argument #" : "result #") + std::to_string(index);
  auto fn = dyn_cast<FunctionOpInterface>(op);
  if (!fn)
    return op->emitOpError() << what << ": '" << name
                             << "' is only meaningful on a function's "
                                "arguments and results";
  auto emit = [&] {
    return op->emitOpError()
           << what << " of '" << SymbolTable::getSymbolName(op).getValue()
           << "': '" << name << "' ";
  };
  Type type =
      isArgument ? fn.getArgumentTypes()[index] : fn.getResultTypes()[index];
  if (name == DTensorDialect::PlacementsAttrHelper::getNameStr() ||
      name == DTensorDialect::ConstrainAttrHelper::getNameStr()) {
    if (name == DTensorDialect::ConstrainAttrHelper::getNameStr() && isArgument)
      return emit() << "applies to results only";
    if (!isPlacementList(attr.getValue()))
      return emit() << "must be an array of placements, got "
                    << attr.getValue();
    if (!isa<RankedTensorType>(type))
      return emit() << "needs a ranked tensor, not " << type;
    return success();
  }
  if (name == DTensorDialect::ArgNameAttrHelper::getNameStr()) {
    auto text = dyn_cast<StringAttr>(attr.getValue());
    if (!isArgument)
      return emit() << "names arguments only";
    if (!text || text.getValue().empty())
      return emit() << "must be a non-empty string, got " << attr.getValue();
    return success();
  }
  if (name == DTensorDialect::FsdpAxesAttrHelper::getNameStr()) {
    if (!isArgument)
      return emit() << "applies to arguments only";
    return verifyFsdpAxes(fn, index, attr.getValue(), emit);
  }
  if (name == DTensorDialect::ShardingAttrHelper::getNameStr()) {
    if (!isa<ShardingAttr>(attr.getValue()))
      return emit() << "must be a #dtensor.sharding, got " << attr.getValue();
    return success();
  }
  return emit() << "is not an attribute of the dtensor dialect (on "
                   "arguments and results: dtensor.placements, "
                   "dtensor.constrain, dtensor.arg_name, dtensor.fsdp_axes, "
                   "dtensor.sharding)";
}

} // namespace

LogicalResult DTensorDialect::verifyRegionArgAttribute(Operation *op,
                                                       unsigned region,
                                                       unsigned index,
                                                       NamedAttribute attr) {
  return verifyValueAttribute(op, /*isArgument=*/true, index, attr);
}

LogicalResult DTensorDialect::verifyRegionResultAttribute(Operation *op,
                                                          unsigned region,
                                                          unsigned index,
                                                          NamedAttribute attr) {
  return verifyValueAttribute(op, /*isArgument=*/false, index, attr);
}

/// dtensor.mesh names the mesh of a function that dtensor-globalize
/// places; dtensor.axis_names and dtensor.devices describe a shard.grid
/// converted from a dtensor.mesh, by the mesh's rules; dtensor.p2p_group
/// names the group of a shard.send or shard.recv; dtensor.strategy is the
/// strategy chosen for an op of a global_region body.
LogicalResult DTensorDialect::verifyOperationAttribute(Operation *op,
                                                       NamedAttribute attr) {
  MLIRContext *ctx = op->getContext();
  StringRef name = attr.getName().getValue();
  bool isNames = attr.getName() == AxisNamesAttrHelper(ctx).getName();
  bool isDevices = attr.getName() == DevicesAttrHelper(ctx).getName();
  if (name == DTensorDialect::MeshAttrHelper::getNameStr()) {
    if (!isa<FunctionOpInterface>(op))
      return op->emitOpError()
             << "'" << name << "' is only meaningful on a function";
    if (!isa<FlatSymbolRefAttr>(attr.getValue()))
      return op->emitOpError()
             << "'" << name << "' must name a dtensor.mesh (@name)";
    return success();
  }
  if (attr.getName() == P2pGroupAttrHelper(ctx).getName()) {
    if (!isa<shard::SendOp, shard::RecvOp>(op))
      return op->emitOpError()
             << "'" << name << "' is only meaningful on a shard.send or "
             << "shard.recv";
    auto id = dyn_cast<IntegerAttr>(attr.getValue());
    if (!id || !id.getType().isSignlessInteger(64) || id.getInt() < 0)
      return op->emitOpError()
             << "'" << name << "' must be a non-negative i64 group id";
    return success();
  }
  if (attr.getName() == StrategyAttrHelper(ctx).getName()) {
    if (!isa<StrategyAttr>(attr.getValue()))
      return op->emitOpError()
             << "'" << name << "' must be a #dtensor.strategy, got "
             << attr.getValue();
    if (!isa_and_nonnull<GlobalRegionOp>(op->getParentOp()))
      return op->emitOpError()
             << "'" << name
             << "' is only meaningful on an op of a dtensor.global_region "
                "body";
    return success();
  }
  if (!isNames && !isDevices)
    return op->emitOpError()
           << "'" << name
           << "' is not an attribute of the dtensor dialect (on operations: "
              "dtensor.mesh, dtensor.axis_names, dtensor.devices, "
              "dtensor.p2p_group, dtensor.strategy)";
  auto grid = dyn_cast<shard::GridOp>(op);
  if (!grid)
    return op->emitOpError()
           << "'" << name << "' is only meaningful on a shard.grid";
  auto emitError = [&] { return op->emitOpError(); };
  if (isNames) {
    auto names = dyn_cast<ArrayAttr>(attr.getValue());
    if (!names)
      return emitError() << "'" << name << "' must be an array of strings";
    return hp::verifyAxisNames(emitError, "grid", names, grid.getRank());
  }
  auto devices = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
  if (!devices)
    return emitError() << "'" << name << "' must be a DenseI64ArrayAttr";
  if (llvm::any_of(grid.getShape(), ShapedType::isDynamic))
    return emitError() << "'" << name << "' needs a grid of static shape";
  return hp::verifyDeviceList(emitError, "grid", devices.asArrayRef(),
                              ShapedType::getNumElements(grid.getShape()));
}
