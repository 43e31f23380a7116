//===- DTensorAttrs.cpp - placement attributes ----------------------------===//

#include "hp/Dialect/DTensor/IR/DTensor.h"
#include "hp/Dialect/DTensor/Layout/Layout.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace hp::dtensor;

#include "hp/Dialect/DTensor/IR/DTensorAttrInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "hp/Dialect/DTensor/IR/DTensorAttrs.cpp.inc"

void DTensorDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "hp/Dialect/DTensor/IR/DTensorAttrs.cpp.inc"
      >();
}

LogicalResult ShardAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                int64_t dim) {
  if (dim < 0)
    return emitError() << "shard dim must be non-negative, got " << dim;
  return success();
}

LogicalResult
StridedShardAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         int64_t dim, int64_t splitFactor) {
  if (dim < 0)
    return emitError() << "strided_shard dim must be non-negative, got " << dim;
  if (splitFactor < 1)
    return emitError() << "strided_shard split factor must be at least 1, got "
                       << splitFactor;
  return success();
}

// #dtensor.sharding<@mesh, [shard<0>, replicate], global = [8, 16]>
Attribute ShardingAttr::parse(AsmParser &parser, Type) {
  FlatSymbolRefAttr mesh;
  ArrayAttr placements;
  SmallVector<int64_t> shape;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parseMeshSymbol(parser, mesh) ||
      parser.parseComma() || parsePlacementList(parser, placements) ||
      parser.parseComma() || parser.parseKeyword("global") ||
      parser.parseEqual() ||
      parser.parseCommaSeparatedList(
          AsmParser::Delimiter::Square,
          [&]() -> ParseResult {
            if (succeeded(parser.parseOptionalQuestion())) {
              shape.push_back(ShapedType::kDynamic);
              return success();
            }
            return parser.parseInteger(shape.emplace_back());
          }) ||
      parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    mesh, placements, shape);
}

void ShardingAttr::print(AsmPrinter &printer) const {
  printer << '<' << getMesh() << ", ";
  printPlacementList(printer, getPlacements());
  printer << ", global = [";
  llvm::interleaveComma(getGlobalShape(), printer, [&](int64_t d) {
    if (ShapedType::isDynamic(d))
      printer << '?';
    else
      printer << d;
  });
  printer << "]>";
}

LogicalResult ShardingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   FlatSymbolRefAttr mesh, ArrayAttr placements,
                                   ArrayRef<int64_t> globalShape) {
  if (!mesh)
    return emitError() << "sharding needs a mesh symbol";
  if (placements.empty())
    return emitError() << "sharding needs at least one placement";
  for (int64_t d : globalShape)
    if (d < 0 && !ShapedType::isDynamic(d))
      return emitError() << "sharding global sizes must be non-negative or "
                            "'?', got "
                         << d;
  return verifyPlacements(emitError, "sharding", placements, /*meshRank=*/-1,
                          globalShape.size());
}

//===----------------------------------------------------------------------===//
// StrategyAttr
//===----------------------------------------------------------------------===//

/// `[list, ...]` of placement lists.
static ParseResult parseListOfPlacementLists(AsmParser &parser,
                                             ArrayAttr &lists) {
  SmallVector<Attribute> entries;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        ArrayAttr list;
        if (parsePlacementList(parser, list))
          return failure();
        entries.push_back(list);
        return success();
      }))
    return failure();
  lists = ArrayAttr::get(parser.getContext(), entries);
  return success();
}

static void printListOfPlacementLists(AsmPrinter &printer, ArrayAttr lists) {
  printer << '[';
  llvm::interleaveComma(lists, printer, [&](Attribute list) {
    printPlacementList(printer, cast<ArrayAttr>(list));
  });
  printer << ']';
}

Attribute StrategyAttr::parse(AsmParser &parser, Type) {
  ArrayAttr operands, results;
  SmallVector<int64_t> loops;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() || parseListOfPlacementLists(parser, operands) ||
      parser.parseArrow() || parseListOfPlacementLists(parser, results) ||
      parser.parseComma() || parser.parseKeyword("loops") ||
      parser.parseEqual() ||
      parser.parseCommaSeparatedList(
          AsmParser::Delimiter::Square,
          [&] { return parser.parseInteger(loops.emplace_back()); }) ||
      parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    operands, results, loops);
}

void StrategyAttr::print(AsmPrinter &printer) const {
  printer << '<';
  printListOfPlacementLists(printer, getOperands());
  printer << " -> ";
  printListOfPlacementLists(printer, getResults());
  printer << ", loops = [";
  llvm::interleaveComma(getLoops(), printer);
  printer << "]>";
}

LogicalResult StrategyAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   ArrayAttr operands, ArrayAttr results,
                                   ArrayRef<int64_t> loops) {
  if (loops.empty())
    return emitError() << "strategy needs one loop entry per mesh axis, got "
                          "none";
  for (auto [axis, loop] : llvm::enumerate(loops))
    if (loop < -1)
      return emitError() << "strategy loop on mesh axis " << axis
                         << " must be a loop index or -1 (none), got " << loop;
  for (auto [what, lists] :
       {std::pair<StringRef, ArrayAttr>{"operand", operands},
        std::pair<StringRef, ArrayAttr>{"result", results}})
    for (auto [i, entry] : llvm::enumerate(lists)) {
      auto list = dyn_cast<ArrayAttr>(entry);
      if (!list)
        return emitError() << "strategy " << what << " #" << i
                           << " must be a placement list, got " << entry;
      if (list.size() != loops.size())
        return emitError() << "strategy " << what << " #" << i << " has "
                           << list.size() << " placements for " << loops.size()
                           << " mesh axes";
      if (failed(verifyPlacements(emitError,
                                  ("strategy " + what + " #" + Twine(i)).str(),
                                  list, /*meshRank=*/-1, /*tensorRank=*/-1)))
        return failure();
    }
  return success();
}

//===----------------------------------------------------------------------===//
// Placement syntax without the `#dtensor.` prefix.
//===----------------------------------------------------------------------===//

ParseResult hp::dtensor::parseMeshSymbol(AsmParser &parser,
                                         FlatSymbolRefAttr &mesh) {
  SMLoc loc = parser.getCurrentLocation();
  Attribute attr;
  if (parser.parseAttribute(attr))
    return failure();
  mesh = dyn_cast<FlatSymbolRefAttr>(attr);
  if (!mesh)
    return parser.emitError(loc, "expected a flat mesh symbol like @mesh");
  return success();
}

void hp::dtensor::printPlacement(AsmPrinter &printer, Attribute placement) {
  // The dialect's own printer without its `#dtensor.` prefix; anything else
  // (generic IR that failed verification) prints in full.
  if (!isa<PlacementAttrInterface>(placement) ||
      failed(generatedAttributePrinter(placement, printer)))
    printer.printAttribute(placement);
}

void hp::dtensor::printPlacementList(AsmPrinter &printer, ArrayAttr list) {
  printer << '[';
  llvm::interleaveComma(list, printer,
                        [&](Attribute p) { printPlacement(printer, p); });
  printer << ']';
}

ParseResult hp::dtensor::parsePlacement(AsmParser &parser,
                                        Attribute &placement) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (failed(parser.parseOptionalKeyword(&keyword))) {
    // Fully spelled `#dtensor.shard<0>` is accepted too.
    if (parser.parseAttribute(placement))
      return failure();
    if (!isa<PlacementAttrInterface>(placement))
      return parser.emitError(loc, "expected a placement, got ") << placement;
    return success();
  }
  // The keyword is read already (a bare `1 : i64` must reach the branch
  // above), so the dialect's generated parser, which reads it, cannot be used.
  if (keyword == ShardAttr::getMnemonic())
    placement = ShardAttr::parse(parser, Type());
  else if (keyword == StridedShardAttr::getMnemonic())
    placement = StridedShardAttr::parse(parser, Type());
  else if (keyword == ReplicateAttr::getMnemonic())
    placement = ReplicateAttr::get(parser.getContext());
  else if (keyword == PartialAttr::getMnemonic())
    placement = PartialAttr::parse(parser, Type());
  else
    return parser.emitError(loc, "expected a placement (shard<d>, "
                                 "strided_shard<d, f>, replicate or "
                                 "partial<op>), got '")
           << keyword << "'";
  return success(placement != nullptr);
}

ParseResult hp::dtensor::parsePlacementList(AsmParser &parser,
                                            ArrayAttr &list) {
  SmallVector<Attribute> placements;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        Attribute p;
        if (parsePlacement(parser, p))
          return failure();
        placements.push_back(p);
        return success();
      }))
    return failure();
  list = parser.getBuilder().getArrayAttr(placements);
  return success();
}

std::string hp::dtensor::placementListToString(ArrayAttr list) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << '[';
  llvm::interleaveComma(list, os, [&](Attribute p) {
    // As printPlacement writes it: the attribute without `#dtensor.`.
    std::string text;
    llvm::raw_string_ostream(text) << p;
    StringRef shown(text);
    if (isa<PlacementAttrInterface>(p))
      shown.consume_front("#dtensor.");
    os << shown;
  });
  os << ']';
  return s;
}

LogicalResult
hp::dtensor::verifyPlacements(function_ref<InFlightDiagnostic()> emitError,
                              StringRef what, ArrayAttr placements,
                              int64_t meshRank, int64_t tensorRank) {
  if (meshRank >= 0 && static_cast<int64_t>(placements.size()) != meshRank)
    return emitError() << what << " has " << placements.size()
                       << " placements, but the mesh has rank " << meshRank;
  for (Attribute attr : placements) {
    // Op attributes and DTensor types are checked by ODS; this also takes
    // lists straight from user attributes.
    auto p = dyn_cast<PlacementAttrInterface>(attr);
    if (!p)
      return emitError() << what << " has a non-placement entry " << attr;
    std::optional<int64_t> dim = p.getShardedDim();
    if (dim && tensorRank >= 0 && *dim >= tensorRank)
      return emitError() << what << ": "
                         << (p.isStridedShard() ? "strided_shard" : "shard")
                         << " dim " << *dim
                         << " is out of range for a tensor of rank "
                         << tensorRank;
  }
  return success();
}

SmallVector<int64_t> hp::dtensor::getShardedDims(ArrayAttr placements) {
  return llvm::map_to_vector(placements.getAsRange<PlacementAttrInterface>(),
                             [](PlacementAttrInterface p) {
                               return p.getShardedDim().value_or(kNotSharded);
                             });
}

SmallVector<SmallVector<int64_t, 4>, 4>
hp::dtensor::getSplitOrder(ArrayAttr placements, int64_t tensorRank) {
  SmallVector<bool> strided = llvm::map_to_vector(
      placements.getAsRange<PlacementAttrInterface>(),
      [](PlacementAttrInterface p) { return p.isStridedShard(); });
  return nestingOrder(getShardedDims(placements), strided, tensorRank);
}

LogicalResult
hp::dtensor::verifyStridedShards(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef what, ArrayAttr placements,
                                 ArrayRef<int64_t> meshShape,
                                 ArrayRef<int64_t> globalShape) {
  SmallVector<int64_t> shardDims = getShardedDims(placements);
  for (auto [m, p] :
       llvm::enumerate(placements.getAsRange<PlacementAttrInterface>())) {
    std::optional<int64_t> factor = p.getStridedSplitFactor();
    if (!factor)
      continue;
    // Upstream grids have no device limit: products saturate.
    auto times = [](int64_t a, int64_t b) {
      int64_t r;
      return llvm::MulOverflow(a, b, r) ? std::numeric_limits<int64_t>::max()
                                        : r;
    };
    int64_t d = shardDims[m], later = 1, all = meshShape[m];
    for (size_t k = m + 1; k < placements.size(); ++k)
      if (shardDims[k] == d)
        later = times(later, meshShape[k]);
    if (*factor != later)
      return emitError() << what << ": strided_shard<" << d << ", " << *factor
                         << "> on mesh dim " << m << " needs split factor "
                         << later
                         << ", the product of the sizes of the later mesh "
                            "dims that shard tensor dim "
                         << d << " (it splits inside them)";
    if (*factor == 1 || d >= static_cast<int64_t>(globalShape.size()))
      continue;
    for (size_t k = 0; k < m; ++k)
      if (shardDims[k] == d)
        all = times(all, meshShape[k]);
    all = times(all, later);
    if (ShapedType::isDynamic(globalShape[d]))
      return emitError() << what << ": tensor dim " << d
                         << " has a strided_shard, so its size must be "
                            "static";
    if (globalShape[d] % all != 0)
      return emitError() << what << ": tensor dim " << d << " of size "
                         << globalShape[d]
                         << " has a strided_shard but does not divide evenly "
                            "over the "
                         << all
                         << " devices that shard it (torch's definitions of "
                            "uneven strided shards disagree)";
  }
  return success();
}

bool hp::dtensor::isLegalRedistribute(ArrayAttr from, ArrayAttr to,
                                      int64_t *badMeshDim) {
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(from.getAsRange<PlacementAttrInterface>(),
                                 to.getAsRange<PlacementAttrInterface>()))) {
    std::optional<ReduceOp> opA = std::get<0>(pair).getPendingReduceOp();
    std::optional<ReduceOp> opB = std::get<1>(pair).getPendingReduceOp();
    if (opA && opB && *opA != *opB) {
      if (badMeshDim)
        *badMeshDim = i;
      return false;
    }
  }
  return true;
}

mlir::shard::ReductionKind hp::dtensor::toShardReduction(ReduceOp op) {
  using mlir::shard::ReductionKind;
  switch (op) {
  case ReduceOp::Sum:
    return ReductionKind::Sum;
  case ReduceOp::Avg:
    return ReductionKind::Average;
  case ReduceOp::Max:
    return ReductionKind::Max;
  case ReduceOp::Min:
    return ReductionKind::Min;
  case ReduceOp::Prod:
    return ReductionKind::Product;
  }
  llvm_unreachable("unknown reduce op");
}
