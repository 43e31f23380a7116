//===- CollectivesCAPI.cpp - C API of hp's collective totals --------------===//

#include "hp-c/Collectives.h"

#include "hp/Analysis/CollectiveTotals.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <cmath>

using namespace mlir;
using hp::dtensor::plan::Collective;

// The C enum is cast to the C++ one: keep the values in step.
static_assert(
    HPCollectiveAllGather == static_cast<int>(Collective::AllGather) &&
        HPCollectiveAllReduce == static_cast<int>(Collective::AllReduce) &&
        HPCollectiveReduceScatter ==
            static_cast<int>(Collective::ReduceScatter) &&
        HPCollectiveAllToAll == static_cast<int>(Collective::AllToAll) &&
        HPCollectiveShift == static_cast<int>(Collective::Shift) &&
        HPCollectiveSend == static_cast<int>(Collective::Send) &&
        HPCollectiveRecv == static_cast<int>(Collective::Recv) &&
        HPCollectiveBroadcast == static_cast<int>(Collective::Broadcast) &&
        HPCollectiveGather == static_cast<int>(Collective::Gather) &&
        HPCollectiveScatter == static_cast<int>(Collective::Scatter) &&
        HPCollectiveReduce == static_cast<int>(Collective::Reduce) &&
        HP_NUM_COLLECTIVE_KINDS == hp::dtensor::plan::kNumCollectives,
    "HPCollectiveKind and hp::dtensor::plan::Collective disagree");

/// Read as an int: a C caller may pass any value, which C++ must not hold
/// in the enum before it is checked.
static bool isKind(int kind) {
  return kind >= 0 && kind < HP_NUM_COLLECTIVE_KINDS;
}

MlirStringRef hpCollectiveKindGetName(HPCollectiveKind kind) {
  if (!isKind(static_cast<int>(kind)))
    return mlirStringRefCreate("", 0);
  return wrap(hp::dtensor::plan::collectiveName(static_cast<Collective>(kind)));
}

double hpCollectiveBytesSent(HPCollectiveKind kind, int64_t groupSize,
                             double operandBytes, double resultBytes) {
  auto isCount = [](double b) { return std::isfinite(b) && b >= 0; };
  if (!isKind(static_cast<int>(kind)) || groupSize < 1 ||
      !isCount(operandBytes) || !isCount(resultBytes))
    return -1;
  return hp::dtensor::plan::bytesSent(static_cast<Collective>(kind), groupSize,
                                      operandBytes, resultBytes);
}

bool hpModuleGetCollectiveTotals(MlirModule module, MlirStringRef function,
                                 HPCollectiveTotals *totals) {
  if (mlirModuleIsNull(module))
    return false; // no context to report to
  ModuleOp m = unwrap(module);
  auto misuse = [&] {
    return emitError(m.getLoc()) << "hpModuleGetCollectiveTotals: ";
  };
  if (!totals) {
    misuse() << "totals is NULL";
    return false;
  }
  if (!function.data && function.length) {
    misuse() << "function is a NULL string of length " << function.length;
    return false;
  }
  Operation *root = m;
  if (function.length) {
    StringRef name = unwrap(function);
    auto fn = dyn_cast_or_null<FunctionOpInterface>(
        SymbolTable::lookupSymbolIn(m, name));
    if (!fn) {
      misuse() << "no function @" << name << " in the module";
      return false;
    }
    root = fn;
  }
  hp::CollectiveTotals found = hp::collectiveTotals(root);
  for (int k = 0; k < HP_NUM_COLLECTIVE_KINDS; ++k)
    totals->counts[k] = found.counts[k];
  totals->bytesKnown = found.bytes.has_value();
  totals->bytes = found.bytes.value_or(0);
  return true;
}
