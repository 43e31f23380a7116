// An external tool: every upstream dialect, extension and pass plus hp's,
// so that every hp pipeline (bufferization included) runs in it.
#include "hp/InitAllDialects.h"
#include "hp/InitAllPasses.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  hp::registerAllHPPasses();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  hp::registerAllHPDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "a tool outside hp\n", registry));
}
