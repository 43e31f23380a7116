//===- HPCollectives.cpp - _hp's collective totals ------------------------===//
//
// What a partitioned module moves, counted in C++ (hp-c/Collectives.h): the
// Python package and the benchmarks hold no byte formulas of their own.
//
//===----------------------------------------------------------------------===//

#include "HPModule.h"

#include "hp-c/Collectives.h"

#include <nanobind/stl/map.h>

#include <cmath>
#include <map>

using namespace hpbind;

namespace {

std::string kindName(int kind) {
  MlirStringRef name =
      hpCollectiveKindGetName(static_cast<HPCollectiveKind>(kind));
  return std::string(name.data, name.length);
}

/// {"counts": {kind: n} (kinds that occur), "bytes": float or None}.
nb::dict collectiveTotals(const ModuleRef &module,
                          const std::string &function) {
  HPCollectiveTotals totals;
  if (!hpModuleGetCollectiveTotals(module->module, toRef(function), &totals))
    module->context->fail("cannot count the collectives");
  std::map<std::string, int64_t> counts;
  for (int k = 0; k < HP_NUM_COLLECTIVE_KINDS; ++k)
    if (totals.counts[k])
      counts[kindName(k)] = totals.counts[k];
  nb::dict out;
  out["counts"] = counts;
  out["bytes"] =
      totals.bytesKnown ? nb::object(nb::float_(totals.bytes)) : nb::none();
  return out;
}

double bytesSent(const std::string &kind, int64_t groupSize,
                 double operandBytes, double resultBytes) {
  int found = -1;
  for (int k = 0; k < HP_NUM_COLLECTIVE_KINDS; ++k)
    if (kindName(k) == kind)
      found = k;
  if (found < 0)
    throw nb::value_error(("unknown collective '" + kind + "'").c_str());
  if (groupSize < 1)
    throw nb::value_error(
        ("a group has at least one rank, got " + std::to_string(groupSize))
            .c_str());
  if (!std::isfinite(operandBytes) || operandBytes < 0 ||
      !std::isfinite(resultBytes) || resultBytes < 0)
    throw nb::value_error("byte counts must be finite and >= 0");
  return hpCollectiveBytesSent(static_cast<HPCollectiveKind>(found), groupSize,
                               operandBytes, resultBytes);
}

} // namespace

void hpbind::bindCollectives(nb::module_ &m) {
  m.def("collective_totals", &collectiveTotals, nb::arg("module"),
        nb::arg("function") = "",
        "What the shard collectives of `module` (after hp-partition) move: "
        "{'counts': {kind: n}, 'bytes': bytes one rank sends, or None where a "
        "shape is dynamic}, over func `function` (the whole module when "
        "empty); raises ValueError when `function` names no function.");
  m.def("collective_bytes_sent", &bytesSent, nb::arg("kind"),
        nb::arg("group_size"), nb::arg("operand_bytes"),
        nb::arg("result_bytes"),
        "Bytes one rank sends in one collective `kind` ('all_gather', ...) on "
        "`group_size` ranks, given its operand's and result's bytes on that "
        "rank (ring algorithms; hp-c/Collectives.h).");
}
