//===- ContractSyntax.cpp - the contract clauses' syntax ------------------===//
//
// The custom<> directives of local_region's and local_call's assembly
// formats: `args(%x as "name", ...)`, the value of `in_placements = {..}`
// and of `out_placements = [..]` (whose flat form is syntax only).
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
  return llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

ParseResult hp::dtensor::detail::parseNamedArgs(
    OpAsmParser &parser,
    SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands,
    ArrayAttr &names) {
  SmallVector<Attribute> nameAttrs;
  auto parseOne = [&]() -> ParseResult {
    std::string name;
    if (parser.parseOperand(operands.emplace_back()) ||
        parser.parseKeyword("as") || parser.parseString(&name))
      return failure();
    nameAttrs.push_back(parser.getBuilder().getStringAttr(name));
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Paren, parseOne))
    return failure();
  names = parser.getBuilder().getArrayAttr(nameAttrs);
  return success();
}

void hp::dtensor::detail::printNamedArgs(OpAsmPrinter &p, Operation *,
                                         OperandRange operands,
                                         ArrayAttr names) {
  p << '(';
  llvm::interleaveComma(llvm::zip(operands, names), p, [&](auto it) {
    p << std::get<0>(it) << " as ";
    p.printString(cast<StringAttr>(std::get<1>(it)).getValue());
  });
  p << ')';
}

/// A declaration: `none` (unit) or a placement list.
static ParseResult parseListOrNone(OpAsmParser &parser, Attribute &entry) {
  if (succeeded(parser.parseOptionalKeyword("none"))) {
    entry = parser.getBuilder().getUnitAttr();
    return success();
  }
  ArrayAttr list;
  if (parsePlacementList(parser, list))
    return failure();
  entry = list;
  return success();
}

/// What parseListOrNone reads; another attribute (in IR printed unverified)
/// prints as itself rather than as a valid-looking `none`.
static void printListOrNone(OpAsmPrinter &p, Attribute entry) {
  if (auto list = dyn_cast<ArrayAttr>(entry))
    printPlacementList(p, list);
  else if (isa<UnitAttr>(entry))
    p << "none";
  else
    p.printAttribute(entry);
}

ParseResult hp::dtensor::detail::parseInPlacements(OpAsmParser &parser,
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
    Attribute value;
    if (parser.parseEqual() || parseListOrNone(parser, value))
      return failure();
    entries.emplace_back(b.getStringAttr(key), value);
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Braces,
                                     parseEntry))
    return failure();
  dict = b.getDictionaryAttr(entries);
  return success();
}

void hp::dtensor::detail::printInPlacements(OpAsmPrinter &p, Operation *,
                                            DictionaryAttr in) {
  p << '{';
  llvm::interleaveComma(in, p, [&](NamedAttribute entry) {
    StringRef key = entry.getName().getValue();
    if (isBareName(key))
      p << key;
    else
      p.printString(key);
    p << " = ";
    printListOrNone(p, entry.getValue());
  });
  p << '}';
}

/// `[[..] | none, ...]` (per output) or `[placement, ...]` (flat: the one
/// output's list, stored as `[[placement, ...]]`).
ParseResult hp::dtensor::detail::parseOutPlacements(OpAsmParser &parser,
                                                    ArrayAttr &out) {
  Builder &b = parser.getBuilder();
  SmallVector<Attribute> entries;
  std::optional<bool> flat;
  auto parseEntry = [&]() -> ParseResult {
    SMLoc entryLoc = parser.getCurrentLocation();
    Attribute &entry = entries.emplace_back();
    bool isFlat = false;
    if (succeeded(parser.parseOptionalKeyword("none"))) {
      entry = b.getUnitAttr();
    } else if (succeeded(parser.parseOptionalLSquare())) {
      SmallVector<Attribute> list;
      auto parseOne = [&] {
        return parsePlacement(parser, list.emplace_back());
      };
      if (failed(parser.parseOptionalRSquare()) &&
          (parser.parseCommaSeparatedList(parseOne) || parser.parseRSquare()))
        return failure();
      entry = b.getArrayAttr(list);
    } else {
      if (parsePlacement(parser, entry))
        return failure();
      isFlat = true;
    }
    if (flat && *flat != isFlat)
      return parser.emitError(entryLoc)
             << "out_placements is either one placement list (a single "
                "output) or one placement list or none per output, not a mix";
    flat = isFlat;
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square,
                                     parseEntry))
    return failure();
  out = flat.value_or(false) ? b.getArrayAttr({b.getArrayAttr(entries)})
                             : b.getArrayAttr(entries);
  return success();
}

/// One output's list prints flat, as it is usually written.
void hp::dtensor::detail::printOutPlacements(OpAsmPrinter &p, Operation *,
                                             ArrayAttr out) {
  auto only = out.size() == 1 ? dyn_cast<ArrayAttr>(out[0]) : ArrayAttr();
  if (only && !only.empty()) {
    printPlacementList(p, only);
    return;
  }
  p << '[';
  llvm::interleaveComma(out, p,
                        [&](Attribute entry) { printListOrNone(p, entry); });
  p << ']';
}
