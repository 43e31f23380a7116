//===- ContractVerification.cpp - local_region / local_call contracts -===//
//
// The rules of the named in/out placement contract (docs/DTensorDialect.md),
// shared by local_region and local_call: first those that need no symbol,
// then those that need the mesh.
//
//===----------------------------------------------------------------------===//

#include "Contract.h"

#include "hp/Dialect/DTensor/Layout/Layout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace hp::dtensor;
using namespace hp::dtensor::detail;

StringRef hp::dtensor::detail::closestName(StringRef key,
                                           ArrayRef<StringRef> candidates) {
  StringRef closest;
  unsigned best = ~0u;
  for (StringRef name : candidates) {
    if (name.empty() || name == key)
      continue;
    unsigned d = key.edit_distance(name, /*AllowReplacements=*/true,
                                   /*MaxEditDistance=*/best);
    if (d < best) {
      best = d;
      closest = name;
    }
  }
  return best <= std::max<size_t>(2, key.size() / 3) ? closest : StringRef();
}

/// in_placements entries (placement lists or none, which ODS checks) have
/// distinct non-empty names.
static LogicalResult verifyInDeclarations(const Contract &c) {
  if (!c.in)
    return success();
  StringRef previous;
  for (auto [i, entry] : llvm::enumerate(c.in)) {
    // The dictionary is sorted, so duplicates are neighbours.
    StringRef name = entry.getName().getValue();
    if (name.empty())
      return c.error() << "in_placements keys must not be empty";
    if (i > 0 && name == previous)
      return c.error() << "in_placements names '" << previous
                       << "' more than once";
    previous = name;
  }
  return success();
}

/// out_placements, whose entry kinds ODS checks, has one entry per output.
static LogicalResult verifyOutForm(const Contract &c) {
  if (!c.out)
    return success();
  unsigned numResults = c.resultTypes.size();
  // A computation with no outputs (checks only) has no placements to give.
  if (c.out.empty() && numResults != 0)
    return c.error() << "out_placements must not be empty";
  if (c.out.size() != numResults)
    return c.error() << "out_placements count " << c.out.size()
                     << " does not match output count " << numResults
                     << (c.out.size() == 1 && numResults > 1
                             ? " (a flat out_placements is a single "
                               "output's list)"
                             : "");
  return success();
}

/// Non-DTensor operands enter the computation unchanged.
static LogicalResult verifyPlainArgs(const Contract &c) {
  unsigned numArgs = c.argTypes.size();
  bool region = c.localArgWord == "block argument";
  if (c.localArgTypes.size() != numArgs)
    return c.error() << (region ? "body" : "callee") << " has "
                     << c.localArgTypes.size() << " arguments, but the "
                     << (region ? "region" : "call") << " has " << numArgs
                     << " operands";
  for (unsigned i = 0; i < numArgs; ++i) {
    Type operandType = c.argTypes[i];
    if (isa<DTensorType>(operandType))
      continue; // Needs the mesh: checked in verifyContractOnMesh.
    if (c.localArgTypes[i] != operandType)
      return c.error() << c.localArgWord << " " << c.label(i) << " has type "
                       << c.localArgTypes[i]
                       << ", but a non-DTensor operand enters the body "
                          "unchanged as "
                       << operandType;
  }
  return success();
}

/// Each result is the yielded value, unwrapped or wrapped as out_placements
/// says (the mesh-dependent part is in verifyContractOnMesh).
static LogicalResult verifyResultKinds(const Contract &c) {
  bool wraps = c.wraps();
  for (auto [i, yielded, resultType] :
       llvm::enumerate(c.yieldedTypes, c.resultTypes)) {
    auto fail = [&, i = i]() { return c.error() << "result #" << i << " "; };
    // Unwrapped outputs: no DTensor operand, no out_placements, a yielded
    // DTensor, or a `none` entry.
    bool passThrough = !wraps || isa<DTensorType>(yielded) || !c.outFor(i);
    if (wraps && !isa<DTensorType>(yielded) && !c.outFor(i) &&
        isa<TensorType>(yielded))
      return c.error() << "Tensor output requires non-None "
                          "out_placements entry (output #"
                       << i << " yields " << yielded << ")";
    if (passThrough) {
      if (resultType != yielded)
        return fail() << "has type " << resultType << ", but " << c.yieldWord
                      << " " << yielded << ", which is returned unwrapped";
      continue;
    }
    auto tensor = dyn_cast<RankedTensorType>(yielded);
    if (!tensor)
      return c.error() << "output #" << i << " yields " << yielded
                       << ", which is not a ranked tensor; its "
                          "out_placements entry must be none";
    auto dtensor = dyn_cast<DTensorType>(resultType);
    ArrayAttr placements = c.outFor(i);
    // The mesh is compared in verifyContractOnMesh, once it is known to exist.
    if (!dtensor || dtensor.getPlacements() != placements ||
        dtensor.getElementType() != tensor.getElementType() ||
        dtensor.getRank() != tensor.getRank())
      return fail() << "has type " << resultType << ", but wrapping " << yielded
                    << " needs a !dtensor.tensor of rank " << tensor.getRank()
                    << " and element type " << tensor.getElementType() << " on "
                    << c.mesh << " with placements "
                    << placementListToString(placements);
  }
  return success();
}

/// The rules that need no symbol: declarations well formed, the local
/// argument and result types of non-DTensor values, the output forms.
LogicalResult hp::dtensor::detail::verifyContract(const Contract &c) {
  return success(succeeded(verifyInDeclarations(c)) &&
                 succeeded(verifyOutForm(c)) && succeeded(verifyPlainArgs(c)) &&
                 succeeded(verifyResultKinds(c)));
}

/// The placement rules that need the mesh and the global shape.
static LogicalResult verifyOnMesh(const Contract &c, const MeshInfo &mesh,
                                  const Twine &what, ArrayAttr placements,
                                  int64_t tensorRank,
                                  ArrayRef<int64_t> globalShape) {
  auto err = [&] { return c.error(); };
  std::string label = what.str();
  return success(succeeded(verifyPlacements(err, label, placements,
                                            mesh.getRank(), tensorRank)) &&
                 succeeded(verifyStridedShards(err, label, placements,
                                               mesh.getShape(), globalShape)));
}

/// Declarations are checked against the mesh, and against the operand's
/// rank when the name is bound. A key that names no argument is an optional
/// argument that was not passed, which is legal; a near miss of an argument
/// name is likelier a typo, so say so.
static LogicalResult verifyInDeclarationsOnMesh(const Contract &c,
                                                const MeshInfo &mesh) {
  if (!c.in)
    return success();
  for (NamedAttribute entry : c.in) {
    auto list = dyn_cast<ArrayAttr>(entry.getValue());
    if (!list)
      continue;
    int64_t tensorRank = -1;
    ArrayRef<int64_t> globalShape;
    for (auto [argType, name] : llvm::zip(c.argTypes, c.names))
      if (name == entry.getName().getValue()) {
        if (auto d = dyn_cast<DTensorType>(argType)) {
          tensorRank = d.getRank();
          globalShape = d.getShape();
        } else if (auto t = dyn_cast<RankedTensorType>(argType)) {
          tensorRank = t.getRank();
        }
      }
    if (failed(verifyOnMesh(
            c, mesh, "in_placements entry '" + entry.getName().getValue() + "'",
            list, tensorRank, globalShape)))
      return failure();
  }
  for (NamedAttribute entry : c.in) {
    StringRef key = entry.getName().getValue();
    bool bound = llvm::is_contained(c.names, key);
    StringRef closest = closestName(key, c.names);
    if (!bound && !closest.empty())
      c.op->emitWarning() << "in_placements names '" << key
                          << "', which no argument has (an optional "
                             "argument that was not passed?); did you mean '"
                          << closest << "'?";
  }
  return success();
}

/// A DTensor operand is on the contract's mesh and enters as the local type
/// of its placements, or of its declared ones.
static LogicalResult verifyOperandsOnMesh(const Contract &c,
                                          const MeshInfo &mesh) {
  for (auto [i, argType] : llvm::enumerate(c.argTypes)) {
    auto type = dyn_cast<DTensorType>(argType);
    if (!type)
      continue;
    if (type.getMesh() != c.mesh)
      return c.error() << "operand " << c.label(i) << " is on mesh "
                       << type.getMesh() << ", but the "
                       << (c.localArgWord == "block argument" ? "region"
                                                              : "call")
                       << " is on " << c.mesh;
    ArrayAttr placements = type.getPlacements();
    if (failed(verifyOnMesh(c, mesh, "operand " + c.label(i), placements,
                            type.getRank(), type.getShape())))
      return failure();
    if (ArrayAttr declared = c.declaredIn(i)) {
      if (declared != placements && !c.redistributeInputs)
        return c.error()
               << "operand " << c.label(i) << " has placements "
               << placementListToString(placements)
               << " but in_placements declares "
               << placementListToString(declared)
               << "; set redistribute_inputs to redistribute it at entry";
      if (!isLegalRedistribute(placements, declared))
        return c.error() << "cannot redistribute operand " << c.label(i)
                         << " from " << placementListToString(placements)
                         << " to " << placementListToString(declared)
                         << ": a partial placement cannot change its reduction";
      placements = declared;
    }
    RankedTensorType local = getLocalType(
        type.getShape(), type.getElementType(), mesh.getShape(), placements);
    if (c.localArgTypes[i] != local)
      return c.error() << c.localArgWord << " " << c.label(i) << " has type "
                       << c.localArgTypes[i]
                       << ", but the operand's local type is " << local;
  }
  return success();
}

/// A wrapped result is a DTensor on the contract's mesh whose local type is
/// the yielded one.
static LogicalResult verifyResultsOnMesh(const Contract &c,
                                         const MeshInfo &mesh) {
  if (!c.wraps())
    return success();
  for (auto [i, yielded, resultType] :
       llvm::enumerate(c.yieldedTypes, c.resultTypes)) {
    auto dtensor = dyn_cast<DTensorType>(resultType);
    ArrayAttr placements = c.outFor(i);
    if (isa<DTensorType>(yielded) || !placements || !dtensor)
      continue;
    if (dtensor.getMesh() != c.mesh)
      return c.error() << "result #" << i << " has type " << resultType
                       << ", but wrapping " << yielded
                       << " needs a !dtensor.tensor on the mesh " << c.mesh;
    if (failed(verifyOnMesh(c, mesh, "out_placements entry #" + Twine(i),
                            placements, dtensor.getRank(), dtensor.getShape())))
      return failure();
    RankedTensorType local = getLocalType(dtensor, mesh);
    if (local != yielded)
      return c.error() << "result #" << i << " " << resultType
                       << " has local type " << local << ", but " << c.yieldWord
                       << " " << yielded;
  }
  return success();
}

/// The rules that need the mesh.
LogicalResult
hp::dtensor::detail::verifyContractOnMesh(const Contract &c,
                                          SymbolTableCollection &symbolTable) {
  MeshInfo mesh = lookupMesh(c.op, c.mesh, symbolTable);
  if (!mesh)
    return failure();
  return success(succeeded(verifyInDeclarationsOnMesh(c, mesh)) &&
                 succeeded(verifyOperandsOnMesh(c, mesh)) &&
                 succeeded(verifyResultsOnMesh(c, mesh)));
}
