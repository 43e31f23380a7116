// An external tool: upstream func/arith plus every hp dialect and pass.
#include "hp/InitAllDialects.h"
#include "hp/InitAllPasses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  hp::registerAllHPPasses();
  mlir::DialectRegistry registry;
  registry.insert<mlir::func::FuncDialect, mlir::arith::ArithDialect>();
  hp::registerAllHPDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "a tool outside hp\n", registry));
}
