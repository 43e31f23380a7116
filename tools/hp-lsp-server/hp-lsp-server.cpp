//===- hp-lsp-server.cpp - MLIR language server with hp's dialects --------===//
//
// Upstream's mlir-lsp-server with the dtensor and nccl dialects registered,
// so that editors show hp diagnostics (verifier errors, contract warnings),
// hovers and go-to-definition in .mlir files. docs/Editors.md says how to
// point VS Code's MLIR extension at it.
//
//===----------------------------------------------------------------------===//

#include "hp/InitAllDialects.h"
#include "hp/Version.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Tools/mlir-lsp-server/MlirLspServerMain.h"

int main(int argc, char **argv) {
  hp::addVersionPrinter();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  hp::registerAllHPDialects(registry);
  return mlir::failed(mlir::MlirLspServerMain(argc, argv, registry));
}
