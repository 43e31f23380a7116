//===- MeshShape.h - the meshes hp takes ------------------------*- C++ -*-===//
//
// One rule for a device mesh's shape and axis names, stated here and checked
// by the dtensor.mesh verifier (and the grids that name axes), the C API,
// the Python extension and through it hp.DeviceMesh. Free of MLIR so that
// the layout model can share its bound.
//
//===----------------------------------------------------------------------===//

#ifndef HP_SUPPORT_MESHSHAPE_H
#define HP_SUPPORT_MESHSHAPE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace hp {

/// At most 2^31 - 1 devices: NCCL ranks are 32-bit ints.
inline constexpr int64_t kMaxMeshDevices = std::numeric_limits<int32_t>::max();

/// Why `shape` is not a mesh shape, or nullopt: at least one dim, each of
/// size at least 1 (sizes divide tensor dims), at most kMaxMeshDevices
/// devices in all.
std::optional<std::string> meshShapeError(llvm::ArrayRef<int64_t> shape);

/// The devices of a mesh of `shape`, one that meshShapeError accepts (so
/// the product cannot overflow).
int64_t numMeshDevices(llvm::ArrayRef<int64_t> shape);

/// Why `names` are not the axis names of a `what` ("mesh", "grid") of `rank`
/// axes, or nullopt: one non-empty name per axis, none used twice.
std::optional<std::string> axisNamesError(llvm::StringRef what,
                                          llvm::ArrayRef<llvm::StringRef> names,
                                          int64_t rank);

} // namespace hp

#endif // HP_SUPPORT_MESHSHAPE_H
