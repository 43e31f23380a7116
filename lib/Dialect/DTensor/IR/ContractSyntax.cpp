//===- ContractSyntax.cpp - the contract clauses' syntax ------------------===//
//
// in_placements = {..}, out_placements = [..], redistribute_inputs and
// unchecked, as local_region and local_call print and parse them.
//
//===----------------------------------------------------------------------===//

#include "Contract.h"

#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace hp::dtensor;

/// Names that print bare in `in_placements`; others are quoted.
static bool isBareName(StringRef name) {
  if (name.empty() || !(llvm::isAlpha(name[0]) || name[0] == '_'))
    return false;
  return llvm::all_of(name, [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

/// `{name = [..] | none, ...}`, the value of in_placements.
static ParseResult parseInPlacements(OpAsmParser &parser,
                                     DictionaryAttr &dict) {
  Builder &b = parser.getBuilder();
  SmallVector<NamedAttribute> entries;
  auto parseEntry = [&]() -> ParseResult {
    std::string key;
    SMLoc keyLoc = parser.getCurrentLocation();
    if (parser.parseKeywordOrString(&key))
      return failure();
    if (key.empty())
      return parser.emitError(keyLoc, "in_placements keys must not be empty");
    if (llvm::any_of(entries, [&](const NamedAttribute &e) {
          return e.getName().getValue() == key;
        }))
      return parser.emitError(keyLoc)
             << "in_placements names '" << key << "' more than once";
    if (parser.parseEqual())
      return failure();
    Attribute value = b.getUnitAttr();
    if (failed(parser.parseOptionalKeyword("none"))) {
      ArrayAttr list;
      if (parsePlacementList(parser, list))
        return failure();
      value = list;
    }
    entries.emplace_back(b.getStringAttr(key), value);
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Braces,
                                     parseEntry))
    return failure();
  dict = b.getDictionaryAttr(entries);
  return success();
}

/// One out_placements entry: a placement (flat form), or a placement list
/// or `none` (per-output form).
static ParseResult parseOutEntry(OpAsmParser &parser, Attribute &entry) {
  if (succeeded(parser.parseOptionalKeyword("none"))) {
    entry = parser.getBuilder().getUnitAttr();
    return success();
  }
  if (failed(parser.parseOptionalLSquare()))
    return parsePlacement(parser, entry);
  SmallVector<Attribute> list;
  auto parseOne = [&] { return parsePlacement(parser, list.emplace_back()); };
  if (failed(parser.parseOptionalRSquare()) &&
      (parser.parseCommaSeparatedList(parseOne) || parser.parseRSquare()))
    return failure();
  entry = parser.getBuilder().getArrayAttr(list);
  return success();
}

/// `[placement, ...]` (flat) or `[[..] | none, ...]` (per output), the value
/// of out_placements.
static ParseResult parseOutPlacements(OpAsmParser &parser, ArrayAttr &out) {
  SmallVector<Attribute> entries;
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square, [&] {
        return parseOutEntry(parser, entries.emplace_back());
      }))
    return failure();
  out = parser.getBuilder().getArrayAttr(entries);
  return success();
}

/// in_placements = {..}, out_placements = [..], redistribute_inputs,
/// unchecked: the contract clauses of local_region and local_call.
ParseResult hp::dtensor::detail::parseContractClauses(
    OpAsmParser &parser, OperationState &result, StringAttr inName,
    StringAttr outName, StringAttr redistributeName, StringAttr uncheckedName) {
  UnitAttr unit = parser.getBuilder().getUnitAttr();
  if (succeeded(parser.parseOptionalKeyword("in_placements"))) {
    DictionaryAttr in;
    if (parser.parseEqual() || parseInPlacements(parser, in))
      return failure();
    result.addAttribute(inName, in);
  }
  if (succeeded(parser.parseOptionalKeyword("out_placements"))) {
    ArrayAttr out;
    if (parser.parseEqual() || parseOutPlacements(parser, out))
      return failure();
    result.addAttribute(outName, out);
  }
  if (succeeded(parser.parseOptionalKeyword("redistribute_inputs")))
    result.addAttribute(redistributeName, unit);
  if (succeeded(parser.parseOptionalKeyword("unchecked")))
    result.addAttribute(uncheckedName, unit);
  return success();
}

/// Prints what parseContractClauses reads.
void hp::dtensor::detail::printContractClauses(OpAsmPrinter &p,
                                               DictionaryAttr in, ArrayAttr out,
                                               bool redistributeInputs,
                                               bool unchecked) {
  auto printEntry = [&](Attribute entry) {
    if (isa<UnitAttr>(entry))
      p << "none";
    else if (auto list = dyn_cast<ArrayAttr>(entry))
      printPlacementList(p, list);
    else
      printPlacement(p, entry);
  };
  if (in) {
    p << " in_placements = {";
    llvm::interleaveComma(in, p, [&](NamedAttribute entry) {
      StringRef key = entry.getName().getValue();
      if (isBareName(key))
        p << key;
      else
        p.printString(key);
      p << " = ";
      printEntry(entry.getValue());
    });
    p << '}';
  }
  if (out) {
    p << " out_placements = [";
    llvm::interleaveComma(out, p, printEntry);
    p << ']';
  }
  if (redistributeInputs)
    p << " redistribute_inputs";
  if (unchecked)
    p << " unchecked";
}
