//===- PassCounts.h - pass statistics without LLVM_ENABLE_STATS -*- C++ -*-===//
//
// Debian's LLVM is built without LLVM_ENABLE_STATS, which turns every
// Pass::Statistic into a no-op (whose layout differs from the one code built
// without NDEBUG sees): `--mlir-pass-statistics` prints an empty report. hp's
// passes report their counts here instead; hp-opt installs the
// instrumentation below when the flag is given and adds them to the report.
//
//===----------------------------------------------------------------------===//

#ifndef HP_SUPPORT_PASSCOUNTS_H
#define HP_SUPPORT_PASSCOUNTS_H

#include "mlir/Pass/PassInstrumentation.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>

namespace mlir {
class Pass;
} // namespace mlir

namespace hp {

/// Adds `value` to the count `name` of `pass`. Does nothing unless a
/// PassCounts instrumentation is alive.
void reportPassCount(const mlir::Pass &pass, llvm::StringRef name,
                     llvm::StringRef description, uint64_t value);

/// Collects the counts reported while it lives and prints them to `os`, in
/// the layout of MLIR's list-mode statistics report, when destroyed (after
/// the pass manager that owns it has printed its own report).
std::unique_ptr<mlir::PassInstrumentation>
createPassCountsInstrumentation(llvm::raw_ostream &os);

} // namespace hp

#endif // HP_SUPPORT_PASSCOUNTS_H
