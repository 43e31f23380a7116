//===- hp-opt.cpp - the hp optimizer driver -------------------------------===//
//
// mlir-opt with every upstream dialect, extension and pass plus hp's, so that
// hp IR can be mixed with anything upstream produces or consumes.
//
//===----------------------------------------------------------------------===//

#include "hp/InitAllDialects.h"
#include "hp/Version.h"
#include "hp/InitAllPasses.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

static const char *kOverview =
    "hp optimizer driver: every upstream MLIR dialect and pass, plus hp's.\n"
    "\n"
    "  hp pipelines (docs/Passes.md):\n"
    "    --hp-partition        dtensor IR -> SPMD code on local tensors with "
    "shard collectives\n"
    "    --hp-lower-to-cpu     ... -> LLVM dialect calling NCCL (CPU ranks: "
    "hp-runner)\n"
    "    --hp-lower-to-gpu     ... -> LLVM dialect with NVVM kernels and NCCL "
    "calls\n"
    "    options: latency-bytes=N axis-weights=w0,w1,.. print-plans "
    "verify-plans keep-layout-attrs\n"
    "  hp passes: --dtensor-check-contracts --dtensor-expand-local-regions\n"
    "    --convert-dtensor-to-shard --convert-shard-to-nccl "
    "--copy-unproven-identity-casts\n"
    "    --nccl-contiguous-buffers --convert-nccl-to-llvm "
    "--dtensor-drop-layout-attrs\n"
    "    --convert-strided-copy-to-linalg --convert-memref-to-gpu\n"
    "  example: hp-opt --hp-partition=\"print-plans verify-plans\" "
    "examples/tp_mlp.mlir\n";

int main(int argc, char **argv) {
  hp::addVersionPrinter();
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
      mlir::MlirOptMain(argc, argv, kOverview, registry));
}
