//===- MeshShape.cpp - the meshes hp takes --------------------------------===//

#include "hp/Support/MeshShape.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/MathExtras.h"

std::optional<std::string> hp::meshShapeError(llvm::ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "mesh shape must not be empty";
  int64_t numDevices = 1;
  for (auto [i, size] : llvm::enumerate(shape)) {
    if (size < 1)
      return "mesh dim " + std::to_string(i) + " has size " +
             std::to_string(size) + "; sizes must be >= 1";
    if (llvm::MulOverflow(numDevices, size, numDevices) ||
        numDevices > kMaxMeshDevices)
      return "mesh has more than " + std::to_string(kMaxMeshDevices) +
             " devices (NCCL ranks are 32-bit)";
  }
  return std::nullopt;
}

int64_t hp::numMeshDevices(llvm::ArrayRef<int64_t> shape) {
  int64_t numDevices = 1;
  for (int64_t size : shape)
    numDevices *= size;
  return numDevices;
}

std::optional<std::string>
hp::axisNamesError(llvm::StringRef what, llvm::ArrayRef<llvm::StringRef> names,
                   int64_t rank) {
  if (static_cast<int64_t>(names.size()) != rank)
    return (what + " has " + llvm::Twine(names.size()) + " names for " +
            llvm::Twine(rank) + " dimensions")
        .str();
  llvm::StringSet<> seen;
  for (llvm::StringRef name : names) {
    if (name.empty())
      return (what + " axis names must not be empty").str();
    if (!seen.insert(name).second)
      return (what + " axis name '" + name + "' is used more than once").str();
  }
  return std::nullopt;
}
