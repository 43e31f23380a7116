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
#include "hp/Version.h"
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
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/MemoryBuffer.h"

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace mlir;

namespace {

std::string executablePath(const char *argv0) {
  static int anchor;
  return llvm::sys::fs::getMainExecutable(argv0, &anchor);
}

/// Options of JitRunner whose value may follow as a separate argument.
bool takesSeparateValue(llvm::StringRef arg) {
  return arg == "-e" || arg == "--e" || arg == "-entry-point-result" ||
         arg == "--entry-point-result" || arg == "-shared-libs" ||
         arg == "--shared-libs" || arg == "-o";
}

/// The positional arguments (input files) among `args`.
std::vector<std::string> positionals(const std::vector<std::string> &args) {
  std::vector<std::string> inputs;
  for (size_t i = 0; i < args.size(); ++i) {
    if (takesSeparateValue(args[i])) {
      ++i;
      continue;
    }
    if (!args[i].empty() && args[i][0] != '-')
      inputs.push_back(args[i]);
  }
  return inputs;
}

/// Refuses an input file that does not exist or holds nothing to run, so
/// that neither the runner nor mpirun waits on standard input instead.
void checkInput(const std::vector<std::string> &args) {
  for (const std::string &input : positionals(args)) {
    if (!llvm::sys::fs::exists(input)) {
      llvm::errs() << "hp-runner: no such input file '" << input << "'\n";
      std::exit(1);
    }
    auto buffer = llvm::MemoryBuffer::getFile(input);
    if (buffer && llvm::StringRef((*buffer)->getBuffer()).trim().empty()) {
      llvm::errs() << "hp-runner: the input '" << input
                   << "' is empty: there is no entry point to run\n";
      std::exit(1);
    }
  }
}

/// mpirun's pid while it runs, for the signal handler.
volatile sig_atomic_t mpirunPid = 0;

void forwardSignal(int sig) {
  if (mpirunPid > 0)
    kill(mpirunPid, sig);
}

/// `-np N` / `--np=N` -> run this command under mpirun and exit with its
/// status; returns only if absent. SIGINT, SIGTERM and SIGHUP reach mpirun,
/// which stops the ranks; hp-runner then exits with mpirun's status.
void relaunchUnderMPI(int argc, char **argv) {
  std::string ranks;
  bool ranksGiven = false;
  std::vector<std::string> rest;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg == "-np" || arg == "--np") {
      ranksGiven = true;
      ranks = i + 1 < argc ? argv[++i] : "";
    } else if (arg.consume_front("--np=") || arg.consume_front("-np=")) {
      ranksGiven = true;
      ranks = arg.str();
    } else {
      rest.push_back(argv[i]);
    }
  }
  if (!ranksGiven)
    return;
  unsigned long long count = 0;
  if (llvm::StringRef(ranks).getAsInteger(10, count) || count == 0 ||
      count > static_cast<unsigned long long>(INT32_MAX)) {
    llvm::errs() << "hp-runner: -np needs a positive number of ranks, got '"
                 << ranks << "'\n";
    std::exit(1);
  }
  checkInput(rest);
  // mpirun forwards standard input to rank 0 only: a module read from stdin
  // goes to a temporary file that every rank reads.
  std::string stdinCopy;
  if (positionals(rest).empty()) {
    llvm::SmallString<128> path;
    int fd;
    if (llvm::sys::fs::createTemporaryFile("hp-runner-input", "mlir", fd, path)) {
      llvm::errs() << "hp-runner: cannot create a file for standard input\n";
      std::exit(1);
    }
    std::string text((std::istreambuf_iterator<char>(std::cin)),
                     std::istreambuf_iterator<char>());
    llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
    out << text;
    out.close();
    stdinCopy = std::string(path);
    if (llvm::StringRef(text).trim().empty()) {
      llvm::sys::fs::remove(stdinCopy);
      llvm::errs() << "hp-runner: standard input is empty: there is no entry "
                      "point to run\n";
      std::exit(1);
    }
    // "-" names standard input for the runner; replace it, or append.
    auto dash = llvm::find(rest, "-");
    if (dash != rest.end())
      *dash = std::string(path);
    else
      rest.push_back(std::string(path));
  }
  // Flags for mpirun itself: --mpirun-args="--bind-to none ...".
  std::vector<std::string> mpirunArgs;
  std::vector<std::string> runnerArgs;
  for (const std::string &arg : rest) {
    llvm::StringRef value = arg;
    if (value.consume_front("--mpirun-args=")) {
      llvm::SmallVector<llvm::StringRef> words;
      value.split(words, ' ', -1, /*KeepEmpty=*/false);
      for (llvm::StringRef w : words)
        mpirunArgs.push_back(w.str());
    } else {
      runnerArgs.push_back(arg);
    }
  }
  std::vector<std::string> cmd = {"mpirun"};
  if (geteuid() == 0)
    cmd.push_back("--allow-run-as-root");
  cmd.push_back("--oversubscribe");
  // Each job gets its own session directory: concurrent jobs sharing one
  // TMPDIR race on Open MPI's common parent directory (one job removes it
  // while another creates its own inside).
  llvm::SmallString<128> sessionDir;
  if (!llvm::sys::fs::createUniqueDirectory("hp-runner-mpi", sessionDir))
    cmd.insert(cmd.end(), {"--mca", "orte_tmpdir_base", std::string(sessionDir)});
  cmd.insert(cmd.end(), mpirunArgs.begin(), mpirunArgs.end());
  cmd.insert(cmd.end(), {"-np", ranks, executablePath(argv[0])});
  cmd.insert(cmd.end(), runnerArgs.begin(), runnerArgs.end());
  auto mpirun = llvm::sys::findProgramByName("mpirun");
  if (!mpirun) {
    llvm::errs() << "hp-runner: cannot run mpirun for -np " << ranks
                 << " (is Open MPI installed?)\n";
    std::exit(1);
  }
  cmd.front() = *mpirun;
  std::vector<llvm::StringRef> args(cmd.begin(), cmd.end());
  std::string error;
  bool failed = false;
  llvm::sys::ProcessInfo info = llvm::sys::ExecuteNoWait(
      *mpirun, args, /*Env=*/std::nullopt, /*Redirects=*/{},
      /*MemoryLimit=*/0, &error, &failed);
  int rc = 1;
  if (failed) {
    llvm::errs() << "hp-runner: mpirun failed to start: " << error << "\n";
  } else {
    mpirunPid = info.Pid;
    for (int sig : {SIGINT, SIGTERM, SIGHUP})
      std::signal(sig, forwardSignal);
    llvm::sys::ProcessInfo done = llvm::sys::Wait(
        info, /*SecondsToWait=*/std::nullopt, &error);
    mpirunPid = 0;
    rc = done.ReturnCode < 0 ? 1 : done.ReturnCode;
    if (done.ReturnCode < 0)
      llvm::errs() << "hp-runner: mpirun failed: " << error << "\n";
  }
  if (!stdinCopy.empty())
    llvm::sys::fs::remove(stdinCopy);
  if (!sessionDir.empty())
    llvm::sys::fs::remove_directories(sessionDir);
  std::exit(rc);
}

bool isLLVMOnly(Operation *module) {
  bool llvmOnly = true;
  module->walk([&](Operation *op) {
    if (op != module && !isa<LLVM::LLVMDialect>(op->getDialect()))
      llvmOnly = false;
  });
  return llvmOnly;
}

/// hp-runner's own options, taken out of the command line before JitRunner
/// parses the rest.
struct RunnerOptions {
  bool gpu = false;
  std::string chip = "sm_90";
};
RunnerOptions runnerOptions;

/// Removes `--target=cpu|gpu` and `--gpu-chip=<sm_XY>` from `args`.
bool takeRunnerOptions(std::vector<char *> &args) {
  std::vector<char *> rest;
  for (char *arg : args) {
    llvm::StringRef value = arg;
    if (value.consume_front("--target=")) {
      if (value != "cpu" && value != "gpu") {
        llvm::errs() << "hp-runner: --target must be cpu or gpu, not '"
                     << value << "'\n";
        return false;
      }
      runnerOptions.gpu = value == "gpu";
    } else if (value.consume_front("--gpu-chip=")) {
      runnerOptions.chip = value.str();
    } else {
      rest.push_back(arg);
    }
  }
  args = std::move(rest);
  return true;
}

llvm::LogicalResult lowerToLLVM(Operation *module, JitRunnerOptions &) {
  if (isLLVMOnly(module))
    return llvm::success();
  PassManager pm(module->getContext());
  if (runnerOptions.gpu) {
    hp::LowerToGPUPipelineOptions options;
    options.chip = runnerOptions.chip;
    hp::buildLowerToGPUPipeline(pm, options);
  } else {
    hp::buildLowerToCPUPipeline(pm, hp::PartitionPipelineOptions());
  }
  return pm.run(module);
}

/// hp-runner's own options, printed before mlir-runner's under --help.
void printRunnerHelp() {
  llvm::outs()
      << "OVERVIEW: hp-runner: run hp programs on one or many ranks "
         "(mlir-runner with hp's runtime)\n\n"
         "USAGE: hp-runner [-np N] [options] <input.mlir>\n\n"
         "hp-runner options:\n"
         "  -np N                 run on N ranks: relaunch under mpirun, one "
         "process per rank\n"
         "  --mpirun-args=\"...\"   flags for mpirun itself (--tag-output "
         "prefixes each line with its rank)\n"
         "  --target=cpu|gpu      NCCL over MPI on host memory (default), or "
         "NCCL and CUDA kernels\n"
         "  --gpu-chip=sm_XY      GPU architecture for --target=gpu (default "
         "sm_90)\n"
         "  -e <name>             entry point (default main)\n"
         "  --entry-point-result=void|i32|i64|f32  its result (default void)\n"
         "Input at the dtensor level (or any non-LLVM dialect) is lowered with "
         "hp-lower-to-cpu (or -gpu).\n"
         "Environment: HP_TIMEOUT_S (seconds a collective may take, default "
         "60).\n\n"
         "The options of mlir-runner follow.\n\n";
}

} // namespace

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    if (llvm::StringRef(argv[i]) == "--help" ||
        llvm::StringRef(argv[i]) == "-help" || llvm::StringRef(argv[i]) == "-h")
      printRunnerHelp();
  relaunchUnderMPI(argc, argv);
  hp::addVersionPrinter();
  llvm::InitLLVM init(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::InitializeNativeTargetAsmParser();

  // Preload hp's runtime next to this binary and MLIR's runner utilities.
  std::string self = executablePath(argv[0]);
  llvm::SmallString<256> libDir(llvm::sys::path::parent_path(
      llvm::sys::path::parent_path(self)));
  llvm::sys::path::append(libDir, "lib");
  std::vector<char *> args(argv, argv + argc);
  if (!takeRunnerOptions(args))
    return 1;
  // On GPUs the real libnccl (linked by libhp_runtime_gpu) replaces hp's
  // NCCL-over-MPI library, and the mgpu* wrappers run the kernels.
  std::string dir(libDir);
  std::string preload =
      runnerOptions.gpu
          ? "--shared-libs=" + dir + "/libhp_cuda_runtime.so," + dir +
                "/libhp_runtime_gpu.so,"
          : "--shared-libs=" + dir + "/libhp_nccl_host.so," + dir +
                "/libhp_runtime_cpu.so,";
  preload += HP_MLIR_LIB_DIR "/libmlir_c_runner_utils.so," HP_MLIR_LIB_DIR
                             "/libmlir_runner_utils.so";
  if (runnerOptions.gpu && !llvm::sys::fs::exists(dir + "/libhp_runtime_gpu.so")) {
    llvm::errs() << "hp-runner: --target=gpu needs " << dir
                 << "/libhp_runtime_gpu.so, built only where the CUDA "
                    "toolkit and NCCL are installed\n";
    return 1;
  }
  args.push_back(preload.data());
  // An entry point of type () -> () is the common case; mlir-runner's
  // default (f32) makes every rank print an error instead.
  static char voidResult[] = "--entry-point-result=void";
  if (llvm::none_of(args, [](char *a) {
        return llvm::StringRef(a).contains("entry-point-result");
      }))
    args.push_back(voidResult);

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  hp::registerAllHPDialects(registry);

  std::vector<std::string> argStrings(args.begin() + 1, args.end());
  checkInput(argStrings);

  // A rank that leaves before its entry point returns makes the runtime
  // abort the whole job (instead of blocking in MPI_Finalize while the other
  // ranks wait for it in a collective).
  setenv("HP_RUNNER_ABORT_ON_EARLY_EXIT", "1", /*overwrite=*/1);
  JitRunnerConfig config;
  config.mlirTransformer = lowerToLLVM;
  int rc = JitRunnerMain(static_cast<int>(args.size()), args.data(), registry,
                         config);
  if (rc == 0)
    if (void *done = llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(
            "hpRuntimeEntryDone"))
      reinterpret_cast<void (*)()>(done)();
  return rc;
}
