//===- hp-opt.cpp - the hp optimizer driver -------------------------------===//
//
// mlir-opt with every upstream dialect, extension and pass plus hp's, so that
// hp IR can be mixed with anything upstream produces or consumes.
//
//===----------------------------------------------------------------------===//

#include "hp/InitAllDialects.h"
#include "hp/InitAllPasses.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  hp::registerAllHPPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  hp::registerAllHPDialects(registry);
  // hp-lower-to-gpu serializes kernels (gpu-module-to-binary), which
  // translates them to LLVM IR inside the pass pipeline.
  mlir::registerAllToLLVMIRTranslations(registry);

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "hp optimizer driver\n", registry));
}
