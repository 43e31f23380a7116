/*===- Diagnostics.h - what hp's diagnostics are about ------------*- C -*-===*\
|*                                                                            *|
|* hp's user-facing warnings and remarks carry a kind (a stable name such as *|
|* "runs-replicated" or "gathers-whole"), the op they concern and the        *|
|* parameter they name, for tools that act on them without reading their    *|
|* text. Read them from a diagnostic handler.                                 *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef HP_C_DIAGNOSTICS_H
#define HP_C_DIAGNOSTICS_H

#include "mlir-c/Diagnostics.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The kind of `diagnostic`, the name of the op it concerns and the
/// parameter (`dtensor.arg_name`) it names; each an empty string where it
/// has none (every diagnostic not from hp's passes). The strings live as
/// long as the context.
MLIR_CAPI_EXPORTED MlirStringRef hpDiagnosticGetKind(MlirDiagnostic diagnostic);
MLIR_CAPI_EXPORTED MlirStringRef
hpDiagnosticGetOpName(MlirDiagnostic diagnostic);
MLIR_CAPI_EXPORTED MlirStringRef
hpDiagnosticGetParameter(MlirDiagnostic diagnostic);

#ifdef __cplusplus
}
#endif

#endif // HP_C_DIAGNOSTICS_H
