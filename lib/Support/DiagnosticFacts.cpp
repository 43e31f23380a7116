//===- DiagnosticFacts.cpp - what a diagnostic is about, for tools --------===//

#include "hp/Support/DiagnosticFacts.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

/// The metadata entry's keys: one dictionary per diagnostic.
static constexpr StringLiteral kKind = "hp.kind", kOp = "hp.op",
                               kParameter = "hp.parameter";

void hp::setDiagnosticFacts(Diagnostic &diag, const DiagnosticFacts &facts) {
  MLIRContext *ctx = diag.getLocation().getContext();
  SmallVector<NamedAttribute> entries;
  entries.emplace_back(StringAttr::get(ctx, kKind),
                       StringAttr::get(ctx, facts.kind));
  if (!facts.op.empty())
    entries.emplace_back(StringAttr::get(ctx, kOp),
                         StringAttr::get(ctx, facts.op));
  if (!facts.parameter.empty())
    entries.emplace_back(StringAttr::get(ctx, kParameter),
                         StringAttr::get(ctx, facts.parameter));
  diag.getMetadata().push_back(
      DiagnosticArgument(DictionaryAttr::get(ctx, entries)));
}

hp::DiagnosticFacts hp::getDiagnosticFacts(Diagnostic &diag) {
  DiagnosticFacts facts;
  for (DiagnosticArgument &arg : diag.getMetadata()) {
    if (arg.getKind() != DiagnosticArgument::DiagnosticArgumentKind::Attribute)
      continue;
    auto dict = dyn_cast<DictionaryAttr>(arg.getAsAttribute());
    auto kind = dict ? dict.getAs<StringAttr>(kKind) : StringAttr();
    if (!kind)
      continue;
    facts.kind = kind.getValue();
    if (auto op = dict.getAs<StringAttr>(kOp))
      facts.op = op.getValue();
    if (auto parameter = dict.getAs<StringAttr>(kParameter))
      facts.parameter = parameter.getValue();
  }
  return facts;
}
