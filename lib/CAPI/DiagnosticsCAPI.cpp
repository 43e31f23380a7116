//===- DiagnosticsCAPI.cpp - what hp's diagnostics are about --------------===//

#include "hp-c/Diagnostics.h"

#include "hp/Support/DiagnosticFacts.h"

#include "mlir/CAPI/Diagnostics.h"
#include "mlir/CAPI/Support.h"

MlirStringRef hpDiagnosticGetKind(MlirDiagnostic diagnostic) {
  return wrap(hp::getDiagnosticFacts(unwrap(diagnostic)).kind);
}

MlirStringRef hpDiagnosticGetOpName(MlirDiagnostic diagnostic) {
  return wrap(hp::getDiagnosticFacts(unwrap(diagnostic)).op);
}

MlirStringRef hpDiagnosticGetParameter(MlirDiagnostic diagnostic) {
  return wrap(hp::getDiagnosticFacts(unwrap(diagnostic)).parameter);
}
