//===- hp-runner.cpp - JIT-run hp programs on one or many ranks -----------===//
//
// mlir-runner for hp: the same -e / --entry-point-result / --shared-libs
// interface, plus
//  * dtensor-level (or any non-LLVM) input is lowered with hp-lower-to-cpu;
//  * hp's runtime (communicator cache + NCCL-over-MPI host library) and
//    MLIR's runner utilities are preloaded, so vector.print and
//    printMemref* work as under mlir-runner;
//  * `-np N` relaunches the command under mpirun with N ranks.
//
//===----------------------------------------------------------------------===//

#include "hp/InitAllDialects.h"
#include "hp/InitAllPasses.h"
#include "hp/Pipelines/Pipelines.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/JitRunner.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <string>
#include <unistd.h>
#include <vector>

using namespace mlir;

namespace {

std::string executablePath(const char *argv0) {
  static int anchor;
  return llvm::sys::fs::getMainExecutable(argv0, &anchor);
}

/// `-np N` / `--np=N` -> relaunch under mpirun; returns only if absent.
void relaunchUnderMPI(int argc, char **argv) {
  std::string ranks;
  std::vector<std::string> rest;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if ((arg == "-np" || arg == "--np") && i + 1 < argc) {
      ranks = argv[++i];
    } else if (arg.consume_front("--np=") || arg.consume_front("-np=")) {
      ranks = arg.str();
    } else {
      rest.push_back(argv[i]);
    }
  }
  if (ranks.empty())
    return;
  std::vector<std::string> cmd = {"mpirun"};
  if (geteuid() == 0)
    cmd.push_back("--allow-run-as-root");
  cmd.insert(cmd.end(), {"--oversubscribe", "-np", ranks,
                         executablePath(argv[0])});
  cmd.insert(cmd.end(), rest.begin(), rest.end());
  std::vector<char *> args;
  for (std::string &s : cmd)
    args.push_back(s.data());
  args.push_back(nullptr);
  execvp("mpirun", args.data());
  llvm::errs() << "hp-runner: cannot run mpirun for -np " << ranks
               << " (is Open MPI installed?)\n";
  std::exit(1);
}

bool isLLVMOnly(Operation *module) {
  bool llvmOnly = true;
  module->walk([&](Operation *op) {
    if (op != module && !isa<LLVM::LLVMDialect>(op->getDialect()))
      llvmOnly = false;
  });
  return llvmOnly;
}

llvm::LogicalResult lowerToLLVM(Operation *module, JitRunnerOptions &) {
  if (isLLVMOnly(module))
    return llvm::success();
  PassManager pm(module->getContext());
  hp::buildLowerToCPUPipeline(pm, hp::PartitionPipelineOptions());
  return pm.run(module);
}

} // namespace

int main(int argc, char **argv) {
  relaunchUnderMPI(argc, argv);
  llvm::InitLLVM init(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::InitializeNativeTargetAsmParser();

  // Preload hp's runtime next to this binary and MLIR's runner utilities.
  std::string self = executablePath(argv[0]);
  llvm::SmallString<256> libDir(llvm::sys::path::parent_path(
      llvm::sys::path::parent_path(self)));
  llvm::sys::path::append(libDir, "lib");
  std::string preload = "--shared-libs=" + std::string(libDir) +
                        "/libhp_nccl_host.so," + std::string(libDir) +
                        "/libhp_runtime_cpu.so," HP_MLIR_LIB_DIR
                        "/libmlir_c_runner_utils.so," HP_MLIR_LIB_DIR
                        "/libmlir_runner_utils.so";
  std::vector<char *> args(argv, argv + argc);
  args.push_back(preload.data());

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  hp::registerAllHPDialects(registry);

  JitRunnerConfig config;
  config.mlirTransformer = lowerToLLVM;
  return JitRunnerMain(static_cast<int>(args.size()), args.data(), registry,
                       config);
}
