//===- Contract.h - the contract local_region and local_call share -*- C++
//-*-===//
//
// Private to the dialect library: the view of a local_region or local_call
// that its contract rules read (ContractVerification.cpp), built by each op's
// verifier in DTensorOps.cpp, and the contract clauses' syntax
// (ContractSyntax.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef HP_LIB_DIALECT_DTENSOR_IR_CONTRACT_H
#define HP_LIB_DIALECT_DTENSOR_IR_CONTRACT_H

#include "hp/Dialect/DTensor/IR/DTensor.h"

#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"

#include <string>

namespace hp::dtensor::detail {

using namespace mlir;

/// Named operands, declared placements, and the local signature the
/// computation is entered and left by: a region's block arguments and yield,
/// or a local function's signature.
struct Contract {
  Operation *op;
  /// The operands' types as the contract sees them: a local_region inside a
  /// global_region takes plain global tensors, seen as DTensors with their
  /// declared placements.
  SmallVector<Type> argTypes;
  /// Per operand its name; empty for a callee argument without one.
  SmallVector<StringRef> names;
  DictionaryAttr in;
  ArrayAttr out;
  bool redistributeInputs;
  FlatSymbolRefAttr mesh;
  TypeRange localArgTypes;
  TypeRange yieldedTypes;
  /// The results' types, seen as DTensors likewise in a global_region.
  SmallVector<Type> resultTypes;
  /// "block argument" / "callee argument"; "the body yields" / "the callee
  /// returns".
  StringRef localArgWord, yieldWord;

  /// Output `i`'s out_placements entry, or null for `none`.
  ArrayAttr outFor(unsigned i) const { return dyn_cast<ArrayAttr>(out[i]); }
  ArrayAttr declaredIn(unsigned i) const {
    if (!in || names[i].empty())
      return {};
    return dyn_cast_or_null<ArrayAttr>(in.get(names[i]));
  }
  bool wraps() const {
    return out && llvm::any_of(argTypes, llvm::IsaPred<DTensorType>);
  }
  /// `#i ('name')`, for diagnostics.
  std::string label(unsigned i) const {
    std::string l = "#" + std::to_string(i);
    if (!names[i].empty())
      l += " ('" + names[i].str() + "')";
    return l;
  }
  InFlightDiagnostic error() const { return op->emitOpError(); }
};

/// The rules that need no symbol: declarations well formed, the local
/// argument and result types of non-DTensor values, the output forms.
LogicalResult verifyContract(const Contract &c);
/// The rules that need the mesh.
LogicalResult verifyContractOnMesh(const Contract &c,
                                   SymbolTableCollection &symbolTable);

/// The custom<> directives of local_region's and local_call's assembly
/// formats (ContractSyntax.cpp): `(%x as "name", ...)`, the value of
/// in_placements and the value of out_placements.
ParseResult
parseNamedArgs(OpAsmParser &parser,
               SmallVectorImpl<OpAsmParser::UnresolvedOperand> &operands,
               ArrayAttr &names);
void printNamedArgs(OpAsmPrinter &p, Operation *op, OperandRange operands,
                    ArrayAttr names);
ParseResult parseInPlacements(OpAsmParser &parser, DictionaryAttr &in);
void printInPlacements(OpAsmPrinter &p, Operation *op, DictionaryAttr in);
ParseResult parseOutPlacements(OpAsmParser &parser, ArrayAttr &out);
void printOutPlacements(OpAsmPrinter &p, Operation *op, ArrayAttr out);

/// The candidate closest to `key` by edit distance, if it is close enough to
/// be a likely typo (at most 2 edits, or a third of the key's length).
StringRef closestName(StringRef key, ArrayRef<StringRef> candidates);

} // namespace hp::dtensor::detail

#endif // HP_LIB_DIALECT_DTENSOR_IR_CONTRACT_H
