//===- HPPlugin.cpp - hp as a dialect and pass plugin for mlir-opt --------===//
//
//   mlir-opt --load-dialect-plugin=libHPPlugin.so \
//            --load-pass-plugin=libHPPlugin.so --hp-partition in.mlir
//
// The plugin links the shared libMLIR the tool uses, never static MLIR
// libraries, so that both see one set of MLIR type ids and registries.
//
//===----------------------------------------------------------------------===//

#include "hp/InitAllDialects.h"
#include "hp/InitAllPasses.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "HPDialects", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            hp::registerAllHPDialects(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "HPPasses", LLVM_VERSION_STRING,
          []() { hp::registerAllHPPasses(); }};
}
