//===- DiagnosticFacts.h - what a diagnostic is about, for tools -*- C++
//-*-===//
//
// hp's user-facing warnings and remarks carry, beside their text, what a
// tool needs to act on them without reading English: a kind (a stable
// name such as "runs-replicated"), the op it concerns and the parameter it
// names. They travel in the diagnostic's metadata, which MLIR does not
// print; hp's C API and Python read them (hpDiagnosticGetKind).
//
//===----------------------------------------------------------------------===//

#ifndef HP_SUPPORT_DIAGNOSTICFACTS_H
#define HP_SUPPORT_DIAGNOSTICFACTS_H

#include "mlir/IR/Diagnostics.h"

namespace hp {

/// The kinds hp's passes give their user-facing diagnostics.
namespace diagnostic_kind {
/// An op (or a whole global region) runs replicated: no rule splits it.
inline constexpr llvm::StringLiteral kRunsReplicated = "runs-replicated";
/// A redistribute gathers a whole tensor on every rank.
inline constexpr llvm::StringLiteral kGathersWhole = "gathers-whole";
} // namespace diagnostic_kind

struct DiagnosticFacts {
  llvm::StringRef kind;
  /// The name of the op the diagnostic concerns, or empty.
  llvm::StringRef op;
  /// The parameter (a `dtensor.arg_name`) it names, or empty.
  llvm::StringRef parameter;
};

/// Records `facts` on `diag` (kind non-empty).
void setDiagnosticFacts(mlir::Diagnostic &diag, const DiagnosticFacts &facts);
inline void setDiagnosticFacts(mlir::InFlightDiagnostic &diag,
                               const DiagnosticFacts &facts) {
  if (mlir::Diagnostic *d = diag.getUnderlyingDiagnostic())
    setDiagnosticFacts(*d, facts);
}

/// The facts setDiagnosticFacts recorded on `diag`; all empty if none.
DiagnosticFacts getDiagnosticFacts(mlir::Diagnostic &diag);

} // namespace hp

#endif // HP_SUPPORT_DIAGNOSTICFACTS_H
