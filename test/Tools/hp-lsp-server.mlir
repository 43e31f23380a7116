// hp-lsp-server is upstream's MLIR language server with hp's dialects: an
// editor opening a .mlir file with dtensor IR gets hp's diagnostics.
// RUN: %python %S/Inputs/lsp-client.py hp-lsp-server %S/Inputs/lsp-document.mlir | FileCheck %s
// CHECK: server: mlir-lsp-server
// CHECK-DAG: 6: warning: in_placements names 'hiden', which no argument has (an optional argument that was not passed?); did you mean 'hidden'?
// CHECK-DAG: 6: error: 'dtensor.local_region' op block argument #0 ('hidden') has type 'tensor<4xf32>', but the operand's local type is 'tensor<2xf32>'
