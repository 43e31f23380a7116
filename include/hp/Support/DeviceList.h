//===- DeviceList.h - checks of a grid's axis names and devices -*- C++ -*-===//
//
// A mesh or grid may name its axes and list the rank of each of its
// positions. dtensor.mesh, the dtensor.axis_names / dtensor.devices
// attributes of a shard.grid and nccl.grid all state them; the rules are
// these, in one place (the names' rule itself in MeshShape.h, where callers
// without attributes check it too).
//
//===----------------------------------------------------------------------===//

#ifndef HP_SUPPORT_DEVICELIST_H
#define HP_SUPPORT_DEVICELIST_H

#include "hp/Support/MeshShape.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"

namespace hp {

/// Axis names: one non-empty string per axis of a `what` ("mesh", "grid")
/// of `rank` axes, none used twice.
inline mlir::LogicalResult
verifyAxisNames(llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
                llvm::StringRef what, mlir::ArrayAttr names, int64_t rank) {
  llvm::SmallVector<llvm::StringRef> strings;
  for (mlir::Attribute a : names) {
    auto name = llvm::dyn_cast<mlir::StringAttr>(a);
    if (!name)
      return emitError() << what << " axis names must be strings, got " << a;
    strings.push_back(name.getValue());
  }
  if (std::optional<std::string> error = axisNamesError(what, strings, rank))
    return emitError() << *error;
  return mlir::success();
}

/// A device list: the rank of each of the `numDevices` positions of a
/// `what` in row-major order, a permutation of a contiguous rank range
/// [b, b + numDevices) with b >= 0.
inline mlir::LogicalResult
verifyDeviceList(llvm::function_ref<mlir::InFlightDiagnostic()> emitError,
                 llvm::StringRef what, llvm::ArrayRef<int64_t> devices,
                 int64_t numDevices) {
  if (static_cast<int64_t>(devices.size()) != numDevices)
    return emitError() << "devices lists " << devices.size()
                       << " ranks, but the " << what << " has " << numDevices
                       << " devices";
  if (devices.empty())
    return mlir::success();
  int64_t base = *llvm::min_element(devices);
  if (base < 0)
    return emitError() << "devices must be non-negative ranks, got " << base;
  llvm::SmallSet<int64_t, 16> seen;
  for (int64_t rank : devices) {
    if (!seen.insert(rank).second)
      return emitError() << "devices lists rank " << rank << " more than once";
    if (rank - base >= numDevices)
      return emitError() << "devices must be a permutation of a contiguous "
                            "rank range starting at "
                         << base << ", but rank " << rank << " is out of it";
  }
  return mlir::success();
}

} // namespace hp

#endif // HP_SUPPORT_DEVICELIST_H
