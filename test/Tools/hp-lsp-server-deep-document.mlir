// A document that nests deeper than 512 brackets would overflow the
// parser's stack: hp-lsp-server publishes one error at the offending bracket
// instead, whether the document is opened that way or edited into it (or
// sent whole in a change without being opened), and
// clears it once the document is shallow again.
// RUN: %python %S/Inputs/lsp-robustness.py hp-lsp-server document %S/Inputs/nested-regions.py | FileCheck %s
// CHECK: start: initialize answered
// CHECK-NEXT: open deep: 257:25: /tmp/hp-deep.mlir:257:25: input nests deeper than 512 brackets (regions, lists, attributes or types); hp refuses it rather than overflow the parser's stack
// CHECK-NEXT: open deep: 1 diagnostics
// CHECK-NEXT: change to shallow: 0 diagnostics
// CHECK-NEXT: edit to deep: 257:25: /tmp/hp-deep.mlir:257:25: input nests deeper than 512 brackets
// CHECK-NEXT: edit to deep: 1 diagnostics
// A full-text change to a document never opened is checked as if opened; an
// incremental one (here 3000 regions deep) is dropped: the server lives on.
// CHECK-NEXT: change unopened to deep: 257:25: /tmp/hp-unopened.mlir:257:25: input nests deeper than 512 brackets
// CHECK-NEXT: change unopened to deep: 1 diagnostics
// CHECK-NEXT: edit unopened: initialize answered
// CHECK-NEXT: after documents: initialize answered
// CHECK-NEXT: exit code 0
