//===- hp-runner.cpp - JIT-run hp programs on one or many ranks -----------===//
//
// mlir-runner for hp: the same -e / --entry-point-result / --shared-libs
// interface, plus
//  * dtensor-level (or any non-LLVM) input is lowered with hp-lower-to-cpu,
//    and compiled to one object, once, before any rank starts: a compile
//    error is printed once, with its source line, and no rank is launched;
//    every rank links the one object (ProgramObject.h), which is kept in a
//    cache per node (hp/Support/ObjectCache.h);
//  * hp's runtime (communicator cache + NCCL-over-MPI host library) and
//    MLIR's runner utilities are preloaded, so vector.print and
//    printMemref* work as under mlir-runner;
//  * `-np N` runs the program under mpirun with N ranks;
//  * `--check-bounds` adds upstream's runtime verification before lowering;
//  * a fault in the program is reported with its rank and signal.
//
//===----------------------------------------------------------------------===//

#include "ProgramFaults.h"
#include "ProgramObject.h"

#include "hp/InitAllDialects.h"
#include "hp/InitAllPasses.h"
#include "hp/Pipelines/Pipelines.h"
#include "hp/Runtime/Runtime.h"
#include "hp/Support/LaunchFlags.h"
#include "hp/Support/NestingDepth.h"
#include "hp/Support/ObjectCache.h"
#include "hp/Version.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/JitRunner.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <optional>
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

/// Where the probe child writes the names of the registered options.
int optionsFd = -1;

/// Hidden: makes the process print (to optionsFd) the names of the
/// registered options, each after `V ` if it requires a value and `F `
/// otherwise, then end. hp-runner passes it to JitRunnerMain in a child
/// process: JitRunner's options exist only while JitRunnerMain runs, and are
/// registered by the time its command line is parsed.
llvm::cl::opt<bool>
    listOptions("hp-runner-list-options", llvm::cl::Hidden,
                llvm::cl::desc("(internal) list the registered options"),
                llvm::cl::callback([](const bool &) {
                  std::string names;
                  for (const auto &entry : llvm::cl::getRegisteredOptions())
                    names += (entry.second->getValueExpectedFlag() ==
                                      llvm::cl::ValueRequired
                                  ? "V "
                                  : "F ") +
                             entry.first.str() + "\n";
                  llvm::StringRef rest = names;
                  while (!rest.empty()) {
                    ssize_t n = ::write(optionsFd, rest.data(), rest.size());
                    if (n <= 0)
                      _exit(1);
                    rest = rest.drop_front(n);
                  }
                  _exit(0);
                }));

/// The options hp-runner's ranks accept (hp-runner's, LLVM's and
/// JitRunner's, as registered with llvm::cl): all of them, and those that
/// require a value, which may then follow as a separate argument
/// (`-march x86-64`).
struct KnownOptions {
  llvm::StringSet<> all, withValue;
};

std::optional<KnownOptions> knownOptions(const char *argv0) {
  int fds[2];
  if (::pipe(fds) != 0)
    return std::nullopt;
  llvm::outs().flush();
  std::fflush(nullptr);
  pid_t child = ::fork();
  if (child == 0) {
    ::close(fds[0]);
    optionsFd = fds[1];
    std::string self = argv0, flag = "--hp-runner-list-options";
    char *argv[] = {self.data(), flag.data(), nullptr};
    DialectRegistry empty;
    JitRunnerMain(2, argv, empty);
    _exit(1);
  }
  ::close(fds[1]);
  std::string names;
  char buffer[4096];
  ssize_t n;
  while (child > 0 && ((n = ::read(fds[0], buffer, sizeof buffer)) > 0 ||
                       (n < 0 && errno == EINTR)))
    if (n > 0)
      names.append(buffer, n);
  ::close(fds[0]);
  int status = 0;
  if (child < 0 || ::waitpid(child, &status, 0) != child ||
      !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return std::nullopt;
  KnownOptions result;
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(names).split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef line : lines) {
    auto [kind, name] = line.split(' ');
    result.all.insert(name);
    if (kind == "V")
      result.withValue.insert(name);
  }
  return result;
}

/// The first option among `args` that no rank would accept (llvm::cl would
/// end every rank with "Unknown command line argument"), or null.
const std::string *unknownOption(const std::vector<std::string> &args,
                                 const KnownOptions &known) {
  for (size_t i = 0; i < args.size(); ++i) {
    llvm::StringRef name = args[i];
    if (name == "--")
      return nullptr; // the rest is positional
    if (name == "-" || !name.consume_front("-"))
      continue;
    name.consume_front("-");
    auto [base, value] = name.split('=');
    if (!known.all.contains(base))
      return &args[i];
    if (!name.contains('=') && known.withValue.contains(base))
      ++i;
  }
  return nullptr;
}

/// The indices of the positional arguments (input files; "-" is standard
/// input) among `args`, given the options that take a separate value.
std::vector<size_t> positionals(const std::vector<std::string> &args,
                                const llvm::StringSet<> &valueOptions) {
  std::vector<size_t> inputs;
  for (size_t i = 0; i < args.size(); ++i) {
    llvm::StringRef name = args[i];
    bool option = name.consume_front("-");
    name.consume_front("-");
    if (option && !name.contains('=') && valueOptions.contains(name)) {
      ++i;
      continue;
    }
    if (!args[i].empty() && (args[i][0] != '-' || args[i] == "-"))
      inputs.push_back(i);
  }
  return inputs;
}

/// Every value given to option `name` among `args` (`-name v`, `-name=v`,
/// `--name=v`), in order.
std::vector<llvm::StringRef> givenValues(const std::vector<std::string> &args,
                                         llvm::StringRef name) {
  std::vector<llvm::StringRef> values;
  for (size_t i = 0; i < args.size(); ++i) {
    llvm::StringRef arg = args[i];
    if (!arg.consume_front("-"))
      continue;
    arg.consume_front("-");
    if (!arg.consume_front(name))
      continue;
    if (arg.empty() && i + 1 < args.size())
      values.push_back(args[++i]);
    else if (arg.consume_front("="))
      values.push_back(arg);
  }
  return values;
}

/// The value JitRunner will see for option `name` (the last one wins), or
/// `fallback`.
std::string optionValue(const std::vector<std::string> &args,
                        llvm::StringRef name, llvm::StringRef fallback) {
  std::vector<llvm::StringRef> values = givenValues(args, name);
  return (values.empty() ? fallback : values.back()).str();
}

/// hp-runner's own options, taken out of the command line before JitRunner
/// parses the rest.
struct RunnerOptions {
  std::optional<std::string> ranks; ///< -np N
  bool gpu = false;
  std::string chip = "sm_90";
  bool checkBounds = false;
  /// The input is the object the launching hp-runner compiled (internal:
  /// each rank of `-np` gets it).
  bool prelowered = false;
  bool compileReport = false;
  /// --compile-report=FILE: the same as a JSON object, for tools.
  std::optional<std::string> compileReportFile;
  /// --input-name: the name the input's source locations carry.
  std::optional<std::string> inputName;
  std::vector<std::string> mpirunArgs;
};
RunnerOptions runnerOptions;

constexpr llvm::StringLiteral kPreloweredFlag = "--hp-runner-prelowered";

/// Removes hp-runner's own options from `args` into runnerOptions.
bool takeRunnerOptions(std::vector<std::string> &args) {
  std::vector<std::string> rest;
  for (size_t i = 0; i < args.size(); ++i) {
    llvm::StringRef value = args[i];
    bool np = value == "-np" || value == "--np";
    if (np || value.consume_front("--np=") || value.consume_front("-np=")) {
      std::string ranks = !np                   ? value.str()
                          : i + 1 < args.size() ? args[++i]
                                                : "";
      if (runnerOptions.ranks) {
        llvm::errs() << "hp-runner: -np given twice ('" << *runnerOptions.ranks
                     << "' and '" << ranks << "'): give it once\n";
        return false;
      }
      runnerOptions.ranks = ranks;
    } else if (value.consume_front("--mpirun-args=")) {
      llvm::SmallVector<llvm::StringRef> words;
      value.split(words, ' ', -1, /*KeepEmpty=*/false);
      for (llvm::StringRef w : words) {
        if (hp::mpirunLaunchFlag(w)) {
          llvm::errs() << "hp-runner: --mpirun-args cannot set the number "
                          "of processes or where they run ('"
                       << w
                       << "'): hp-runner's -np N sets it, on this machine\n";
          return false;
        }
        runnerOptions.mpirunArgs.push_back(w.str());
      }
    } else if (value.consume_front("--target=")) {
      if (value != "cpu" && value != "gpu") {
        llvm::errs() << "hp-runner: --target must be cpu or gpu, not '" << value
                     << "'\n";
        return false;
      }
      runnerOptions.gpu = value == "gpu";
    } else if (value.consume_front("--gpu-chip=")) {
      runnerOptions.chip = value.str();
    } else if (value == "--check-bounds" || value == "-check-bounds") {
      runnerOptions.checkBounds = true;
    } else if (value == "--compile-report" || value == "-compile-report") {
      runnerOptions.compileReport = true;
    } else if (value.consume_front("--compile-report=")) {
      if (value.empty()) {
        llvm::errs() << "hp-runner: --compile-report= needs a file\n";
        return false;
      }
      runnerOptions.compileReportFile = value.str();
    } else if (value.consume_front("--input-name=")) {
      if (value.empty()) {
        llvm::errs() << "hp-runner: --input-name needs a name\n";
        return false;
      }
      runnerOptions.inputName = value.str();
    } else if (value == kPreloweredFlag) {
      runnerOptions.prelowered = true;
    } else {
      rest.push_back(args[i]);
    }
  }
  args = std::move(rest);
  return true;
}

bool isLLVMOnly(Operation *module) {
  bool llvmOnly = true;
  module->walk([&](Operation *op) {
    if (op != module && !isa<LLVM::LLVMDialect>(op->getDialect()))
      llvmOnly = false;
  });
  return llvmOnly;
}

/// Lowers `module` with hp's pipeline for the target; with --check-bounds,
/// memref and tensor ops first get upstream's runtime checks (cf.assert,
/// which the pipeline lowers to a message and an abort).
LogicalResult lowerToLLVM(ModuleOp module) {
  PassManager pm(module->getContext());
  if (runnerOptions.checkBounds)
    pm.addPass(createGenerateRuntimeVerificationPass());
  if (runnerOptions.gpu) {
    hp::LowerToGPUPipelineOptions options;
    options.chip = runnerOptions.chip;
    hp::buildLowerToGPUPipeline(pm, options);
  } else {
    hp::buildLowerToCPUPipeline(pm, hp::PartitionPipelineOptions());
  }
  return pm.run(module);
}

/// The input, read whole: a named file or standard input. Prints why not.
std::unique_ptr<llvm::MemoryBuffer> readInput(const std::string &input) {
  bool isStdin = input == "-";
  if (!isStdin && !llvm::sys::fs::exists(input)) {
    llvm::errs() << "hp-runner: no such input file '" << input << "'\n";
    return nullptr;
  }
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> buffer = openInputFile(input, &error);
  if (!buffer) {
    llvm::errs() << "hp-runner: " << error << "\n";
    return nullptr;
  }
  if (buffer->getBuffer().trim().empty()) {
    if (isStdin)
      llvm::errs() << "hp-runner: standard input is empty: there is no "
                      "entry point to run\n";
    else
      llvm::errs() << "hp-runner: the input '" << input
                   << "' is empty: there is no entry point to run\n";
    return nullptr;
  }
  if (!isBytecode(*buffer))
    if (std::optional<hp::NestingViolation> violation =
            hp::findExcessiveNesting(buffer->getBuffer())) {
      llvm::errs() << "hp-runner: "
                   << violation->message(buffer->getBufferIdentifier()) << "\n";
      return nullptr;
    }
  return buffer;
}

/// Refuses a module without the entry point JitRunner would call, once,
/// instead of a bare "entry point not found" from every rank.
LogicalResult checkEntryPoint(ModuleOp module, const std::string &name) {
  auto entry = dyn_cast_or_null<FunctionOpInterface>(
      SymbolTable::lookupSymbolIn(module, name));
  if (entry && !entry.isExternal())
    return success();
  llvm::errs() << "hp-runner: the input has no function @" << name
               << " with a body to run; name the entry point with -e\n";
  return failure();
}

/// Refuses an entry point JitRunner would refuse on every rank: one with
/// arguments, or whose results differ from --entry-point-result's. Checked
/// on the input, whose types the user wrote; an entry point that does not
/// exist is checked after lowering.
LogicalResult checkEntrySignature(ModuleOp module, llvm::StringRef name,
                                  llvm::StringRef result) {
  if (!llvm::is_contained({"void", "i32", "i64", "f32"}, result)) {
    llvm::errs() << "hp-runner: --entry-point-result must be void, i32, i64 "
                    "or f32, not '"
                 << result << "'\n";
    return failure();
  }
  auto entry = dyn_cast_or_null<FunctionOpInterface>(
      SymbolTable::lookupSymbolIn(module, name));
  if (!entry)
    return success();
  if (entry.getNumArguments() != 0)
    return entry.emitError() << "hp-runner: the entry point @" << name
                             << " takes arguments; it must take none";
  ArrayRef<Type> results = entry.getResultTypes();
  Builder builder(module.getContext());
  Type expected = llvm::StringSwitch<Type>(result)
                      .Case("i32", builder.getI32Type())
                      .Case("i64", builder.getI64Type())
                      .Case("f32", builder.getF32Type())
                      .Default(Type());
  if (expected ? results == ArrayRef<Type>(expected) : results.empty())
    return success();
  std::string types;
  llvm::raw_string_ostream os(types);
  llvm::interleaveComma(results, os);
  return entry.emitError() << "hp-runner: the entry point @" << name
                           << " returns (" << types
                           << ") but --entry-point-result=" << result
                           << " expects (" << (expected ? result : "") << ")";
}

/// Refuses, before any rank starts, an argument file in $HP_TENSOR_DIR that
/// is not a regular file (a directory, a FIFO that would block every rank
/// in open()), when the program reads arguments.
LogicalResult checkArgumentFiles(bool readsArguments) {
  const char *dir = std::getenv(HP_ENV_TENSOR_DIR);
  if (!dir || !*dir || !readsArguments)
    return success();
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    llvm::StringRef name = llvm::sys::path::filename(it->path());
    llvm::StringRef slot = name;
    if (!slot.consume_front(HP_ARGUMENT_PREFIX) ||
        !slot.consume_back(HP_TENSOR_SUFFIX) || slot.empty() ||
        !llvm::all_of(slot, llvm::isDigit))
      continue;
    llvm::sys::fs::file_status status;
    if (llvm::sys::fs::status(it->path(), status) ||
        llvm::sys::fs::is_regular_file(status))
      continue;
    llvm::errs() << "hp-runner: " << it->path() << " is "
                 << (llvm::sys::fs::is_directory(status) ? "a directory"
                                                         : "not a regular "
                                                           "file")
                 << ": argument " << slot
                 << " must be a regular file (" HP_ENV_TENSOR_DIR ")\n";
    return failure();
  }
  return success();
}

/// The runtime function through which a program reads its arguments.
constexpr llvm::StringLiteral kReadTensor = "hp_read_tensor";
static_assert(sizeof(&hp_read_tensor), "the name above is the ABI's");

/// The compiled program the ranks of -np load: where it is, and whether
/// hp-runner made it for this job alone (a cache entry outlives the job).
struct ObjectFile {
  std::string path;
  bool temporary = false;
};

/// The temporary object while it exists, for removeAtExit.
char objectAtExit[4096];

/// Removes the temporary object when the process ends with exit().
void removeAtExit() {
  if (objectAtExit[0])
    ::unlink(objectAtExit);
}

/// Removes a temporary object file now.
void removeObjectFile(const std::optional<ObjectFile> &file) {
  if (!file || !file->temporary)
    return;
  llvm::sys::fs::remove(file->path);
  llvm::sys::DontRemoveFileOnSignal(file->path);
  objectAtExit[0] = '\0';
}

/// Writes `object` to a new temporary file, removed if hp-runner is
/// interrupted or exits before it removes it itself.
std::optional<ObjectFile> writeObject(llvm::StringRef object) {
  llvm::SmallString<128> path;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("hp-runner-program", "o", fd, path)) {
    llvm::errs() << "hp-runner: cannot create a file for the compiled "
                    "program\n";
    return std::nullopt;
  }
  llvm::sys::RemoveFileOnSignal(path);
  if (path.size() < sizeof objectAtExit) {
    std::memcpy(objectAtExit, path.c_str(), path.size() + 1);
    static bool registered = std::atexit(removeAtExit) == 0;
    (void)registered;
  }
  llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
  out << object;
  out.close();
  if (out.has_error()) {
    out.clear_error();
    llvm::sys::fs::remove(path);
    objectAtExit[0] = '\0';
    llvm::errs() << "hp-runner: cannot write the compiled program to " << path
                 << "\n";
    return std::nullopt;
  }
  return ObjectFile{std::string(path), true};
}

/// Every value of option `name` among `args` (`--name=a,b`, `-name a`), its
/// commas splitting values as llvm::cl's CommaSeparated lists do.
std::vector<std::string> optionValues(const std::vector<std::string> &args,
                                      llvm::StringRef name) {
  std::vector<std::string> values;
  for (llvm::StringRef value : givenValues(args, name)) {
    llvm::SmallVector<llvm::StringRef> parts;
    value.split(parts, ',', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef part : parts)
      values.push_back(part.str());
  }
  return values;
}

bool hasFlag(const std::vector<std::string> &args, llvm::StringRef name) {
  return llvm::any_of(args, [&](llvm::StringRef arg) {
    if (!arg.consume_front("-"))
      return false;
    arg.consume_front("-");
    return arg == name;
  });
}

/// mlir-runner's -O0 to -O3 (the lowest given wins, as there), if any.
std::optional<unsigned> optLevel(const std::vector<std::string> &args) {
  for (unsigned level = 0; level < 4; ++level)
    if (hasFlag(args, "O" + std::to_string(level)))
      return level;
  return std::nullopt;
}

/// mlir-runner's options that hp-runner's launcher reads itself; the others
/// (LLVM's code generation flags) it hands to llvm::cl.
bool isRunnerOption(llvm::StringRef name) {
  return llvm::is_contained({"e", "entry-point-result", "shared-libs",
                             "dump-object-file", "object-filename", "O0", "O1",
                             "O2", "O3", "march", "mattr", "host-supports-jit",
                             "no-implicit-module"},
                            name);
}

/// Options that say where the object goes, not what it is: left out of the
/// cache key.
bool isOutputOption(llvm::StringRef arg) {
  arg.consume_front("-");
  arg.consume_front("-");
  return arg == "dump-object-file" || arg.starts_with("object-filename");
}

/// Applies the LLVM options among `args` (not mlir-runner's own, not the
/// input) in this process, where code is generated.
bool applyLLVMOptions(const std::vector<std::string> &args,
                      const llvm::StringSet<> &valueOptions,
                      const char *argv0) {
  std::vector<std::string> llvmArgs = {argv0};
  for (size_t i = 0; i < args.size(); ++i) {
    llvm::StringRef name = args[i];
    if (name == "--")
      break;
    if (name == "-" || !name.consume_front("-"))
      continue;
    name.consume_front("-");
    llvm::StringRef base = name.split('=').first;
    bool separateValue = !name.contains('=') && valueOptions.contains(base);
    if (!isRunnerOption(base)) {
      llvmArgs.push_back(args[i]);
      if (separateValue && i + 1 < args.size())
        llvmArgs.push_back(args[i + 1]);
    }
    if (separateValue)
      ++i;
  }
  if (llvmArgs.size() == 1)
    return true;
  std::vector<const char *> argv;
  for (const std::string &arg : llvmArgs)
    argv.push_back(arg.c_str());
  std::string error;
  llvm::raw_string_ostream os(error);
  if (llvm::cl::ParseCommandLineOptions(static_cast<int>(argv.size()),
                                        argv.data(), "", &os))
    return true;
  llvm::errs() << "hp-runner: " << llvm::StringRef(error).trim() << "\n";
  return false;
}

/// The libraries every rank loads: hp's runtime for the target and MLIR's
/// runner utilities (so that vector.print and printMemref* work as under
/// mlir-runner), or an error if the target's runtime is not built. On GPUs
/// the real libnccl (linked by libhp_runtime_gpu) replaces hp's
/// NCCL-over-MPI library, and the mgpu* wrappers run the kernels.
std::optional<std::vector<std::string>> runtimeLibraries(const char *argv0) {
  std::string self = executablePath(argv0);
  llvm::SmallString<256> libDir(
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(self)));
  llvm::sys::path::append(libDir, "lib");
  std::string dir(libDir);
  if (runnerOptions.gpu &&
      !llvm::sys::fs::exists(dir + "/libhp_runtime_gpu.so")) {
    llvm::errs() << "hp-runner: --target=gpu needs " << dir
                 << "/libhp_runtime_gpu.so, built only where the CUDA "
                    "toolkit and NCCL are installed\n";
    return std::nullopt;
  }
  // Both targets: the host runtime (tensor files, sessions, the watchdog).
  std::vector<std::string> libs = {dir + "/libhp_runtime_host.so"};
  if (runnerOptions.gpu)
    libs.insert(libs.end(), {dir + "/libhp_cuda_runtime.so",
                             dir + "/libhp_runtime_gpu.so"});
  else
    libs.insert(libs.end(),
                {dir + "/libhp_nccl_host.so", dir + "/libhp_runtime_cpu.so"});
  libs.insert(libs.end(), {HP_MLIR_LIB_DIR "/libmlir_c_runner_utils.so",
                           HP_MLIR_LIB_DIR "/libmlir_runner_utils.so"});
  return libs;
}

/// Writes through to `out` and keeps a copy of what it wrote.
class TeeOstream : public llvm::raw_ostream {
public:
  explicit TeeOstream(llvm::raw_ostream &out) : out(out) { SetUnbuffered(); }
  const std::string &copy() const { return written; }

private:
  void write_impl(const char *ptr, size_t size) override {
    out.write(ptr, size);
    written.append(ptr, size);
  }
  uint64_t current_pos() const override { return written.size(); }

  llvm::raw_ostream &out;
  std::string written;
};

/// The program every rank runs, compiled once by the launching hp-runner.
struct CompiledProgram {
  std::unique_ptr<llvm::MemoryBuffer> object;
  /// The object's file, for the ranks of -np: a temporary of this job's.
  std::optional<ObjectFile> file;
  std::string resultKind;
  /// The input's name as given ("-": standard input).
  std::string input;
  /// --shared-libs from the command line, then hp's runtime.
  std::vector<std::string> libraries;
};

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// The file of the loaded library (or executable) that holds `address`.
std::string libraryOf(const void *address) {
  Dl_info info;
  if (::dladdr(address, &info) && info.dli_fname)
    return info.dli_fname;
  return "(unknown library)";
}

/// The key of the object that `input` compiles to under `args`.
std::string cacheKey(const llvm::MemoryBuffer &input,
                     const std::vector<std::string> &args, size_t inputIndex,
                     const std::vector<std::string> &libs, const char *argv0) {
  hp::ObjectCacheKeyParts parts;
  parts.input = input.getBuffer();
  parts.inputName = input.getBufferIdentifier();
  for (size_t i = 0; i < args.size(); ++i) {
    if (isOutputOption(args[i]))
      i += args[i] == "-object-filename" || args[i] == "--object-filename";
    else if (i != inputIndex)
      parts.options.push_back(args[i]);
  }
  if (runnerOptions.checkBounds)
    parts.options.push_back("--check-bounds");
  parts.target = runnerOptions.gpu ? "gpu" : "cpu";
  parts.chip = runnerOptions.gpu ? runnerOptions.chip : "";
  parts.triple = llvm::sys::getProcessTriple();
  parts.cpuName = llvm::sys::getHostCPUName().str();
  std::vector<std::string> features;
  for (const auto &feature : llvm::sys::getHostCPUFeatures())
    features.push_back((feature.getValue() ? "+" : "-") +
                       feature.getKey().str());
  llvm::sort(features);
  parts.cpuFeatures = llvm::join(features, ",");
  for (const std::string &lib : libs)
    parts.libraries.push_back(hp::fileIdentity(lib));
  // LLVM and MLIR are shared libraries of the system: a package upgrade
  // changes the lowering and the code without touching hp-runner.
  parts.compiler =
      "hp " HP_VERSION " (git " HP_GIT_REVISION "), LLVM " LLVM_VERSION_STRING
      ", " +
      hp::fileIdentity(executablePath(argv0)) + ", " +
      hp::fileIdentity(libraryOf(
          reinterpret_cast<const void *>(&llvm::sys::getHostCPUName))) +
      ", " +
      hp::fileIdentity(libraryOf(
          reinterpret_cast<const void *>(&mlir::translateModuleToLLVMIR)));
  return hp::objectCacheKey(parts);
}

/// How the launcher came by the object: printed (--compile-report) and
/// written as JSON (--compile-report=FILE). Stages are 0 on a hit.
struct CompileReport {
  llvm::StringRef cache; ///< hit, miss or off
  uint64_t bytes = 0;
  double parseSeconds = 0, lowerSeconds = 0, codegenSeconds = 0,
         totalSeconds = 0;
  std::string stored; ///< the cache entry, or why there is none
};

LogicalResult report(const CompileReport &r) {
  if (runnerOptions.compileReport) {
    llvm::errs() << "hp-runner: compile: cache " << r.cache << ", " << r.bytes
                 << " bytes";
    if (r.cache == "hit")
      llvm::errs() << " in " << llvm::format("%.3f", r.totalSeconds) << " s";
    else
      llvm::errs() << ": parse " << llvm::format("%.3f", r.parseSeconds)
                   << " s, lower " << llvm::format("%.3f", r.lowerSeconds)
                   << " s, codegen " << llvm::format("%.3f", r.codegenSeconds)
                   << " s";
    llvm::errs() << " (" << r.stored << ")\n";
  }
  if (!runnerOptions.compileReportFile)
    return success();
  std::error_code ec;
  llvm::raw_fd_ostream out(*runnerOptions.compileReportFile, ec);
  if (!ec) {
    out << llvm::json::Value(
               llvm::json::Object{{"cache", r.cache},
                                  {"bytes", static_cast<int64_t>(r.bytes)},
                                  {"parse_s", r.parseSeconds},
                                  {"lower_s", r.lowerSeconds},
                                  {"codegen_s", r.codegenSeconds},
                                  {"total_s", r.totalSeconds},
                                  {"stored", r.stored}})
        << "\n";
    out.close();
    ec = out.error();
    out.clear_error();
  }
  if (ec) {
    llvm::errs() << "hp-runner: cannot write the compile report to "
                 << *runnerOptions.compileReportFile << ": " << ec.message()
                 << "\n";
    return failure();
  }
  return success();
}

/// Parses, lowers and compiles the input of `args` once, in this process,
/// with MLIR's source diagnostics (errors, warnings and remarks show their
/// line); or takes the object from the cache, where an earlier job of the
/// same input, options, host and build left it.
std::optional<CompiledProgram> compileOnce(const std::vector<std::string> &args,
                                           const DialectRegistry &registry,
                                           const char *argv0) {
  auto start = std::chrono::steady_clock::now();
  std::optional<KnownOptions> known = knownOptions(argv0);
  if (!known) {
    llvm::errs() << "hp-runner: cannot list mlir-runner's options to find "
                    "the input file\n";
    return std::nullopt;
  }
  if (const std::string *unknown = unknownOption(args, *known)) {
    llvm::errs() << "hp-runner: unknown option '" << *unknown
                 << "' (hp-runner --help lists the options)\n";
    return std::nullopt;
  }
  std::vector<size_t> inputs = positionals(args, known->withValue);
  if (inputs.size() > 1) {
    llvm::errs() << "hp-runner: one input file, got '" << args[inputs[0]]
                 << "' and '" << args[inputs[1]] << "'\n";
    return std::nullopt;
  }
  CompiledProgram program;
  program.resultKind = optionValue(args, "entry-point-result", "void");
  if (!llvm::is_contained({"void", "i32", "i64", "f32"}, program.resultKind)) {
    llvm::errs() << "hp-runner: --entry-point-result must be void, i32, i64 "
                    "or f32, not '"
                 << program.resultKind << "'\n";
    return std::nullopt;
  }
  program.libraries = optionValues(args, "shared-libs");
  std::optional<std::vector<std::string>> runtime = runtimeLibraries(argv0);
  if (!runtime)
    return std::nullopt;
  program.libraries.insert(program.libraries.end(), runtime->begin(),
                           runtime->end());
  if (!applyLLVMOptions(args, known->withValue, argv0))
    return std::nullopt;
  llvm::Expected<std::optional<hp::ObjectCacheSettings>> cache =
      hp::objectCacheSettings();
  if (!cache) {
    llvm::errs() << "hp-runner: " << llvm::toString(cache.takeError()) << "\n";
    return std::nullopt;
  }

  if (hasFlag(args, "no-implicit-module")) {
    llvm::errs() << "hp-runner: --no-implicit-module is mlir-runner's; "
                    "hp-runner takes any input as a module\n";
    return std::nullopt;
  }
  std::string input = inputs.empty() ? "-" : args[inputs[0]];
  program.input = input;
  std::unique_ptr<llvm::MemoryBuffer> buffer = readInput(input);
  if (!buffer)
    return std::nullopt;
  // A program written to a fresh temporary file each time (hp.torch's) is
  // named the same each time, so that its object is cached.
  if (runnerOptions.inputName)
    buffer = llvm::MemoryBuffer::getMemBufferCopy(buffer->getBuffer(),
                                                  *runnerOptions.inputName);
  if (*cache)
    if (llvm::Error error =
            hp::checkObjectCacheDirectory((*cache)->directory)) {
      llvm::errs() << "hp-runner: warning: compiling without the cache: "
                   << llvm::toString(std::move(error)) << "\n";
      *cache = std::nullopt;
    }
  std::string key;
  if (*cache) {
    key = cacheKey(*buffer, args, inputs.empty() ? args.size() : inputs[0],
                   program.libraries, argv0);
    if (std::optional<hp::CachedObject> cached =
            hp::lookupObject((*cache)->directory, key)) {
      // An entry that is not a whole object of hp's is compiled again.
      if (std::optional<bool> reads =
              hp::runner::objectCalls(*cached->object, kReadTensor)) {
        // What the compile printed, printed again: a hit says what a miss
        // says.
        llvm::errs() << cached->diagnostics;
        if (failed(checkArgumentFiles(*reads)))
          return std::nullopt;
        CompileReport hit;
        hit.cache = "hit";
        hit.bytes = cached->object->getBufferSize();
        hit.totalSeconds = secondsSince(start);
        hit.stored = hp::objectCachePath((*cache)->directory, key);
        if (failed(report(hit)))
          return std::nullopt;
        program.object = std::move(cached->object);
        return program;
      }
    }
  }

  if (isBytecode(*buffer)) {
    MLIRContext scanContext(registry, MLIRContext::Threading::DISABLED);
    if (std::optional<std::string> violation =
            hp::findExcessiveBytecodeNesting(*buffer, scanContext)) {
      llvm::errs() << "hp-runner: " << buffer->getBufferIdentifier() << ": "
                   << *violation << "\n";
      return std::nullopt;
    }
  }
  MLIRContext context(registry);
  // The source line identifies the op; its generic form would repeat it.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  // What the compile prints (warnings, remarks) is kept with the object, and
  // a cache hit prints it again.
  TeeOstream printed(llvm::errs());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context, printed);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return std::nullopt;
  double parseSeconds = secondsSince(start);
  bool lower = !isLLVMOnly(*module);
  if (runnerOptions.checkBounds && !lower) {
    printed << "hp-runner: warning: --check-bounds has no effect on "
               "LLVM-dialect input: it checks memref and tensor ops "
               "before lowering\n";
  }
  std::string entry = optionValue(args, "e", "main");
  if (failed(checkEntrySignature(*module, entry, program.resultKind)) ||
      failed(checkArgumentFiles(
          SymbolTable::lookupSymbolIn(*module, kReadTensor) != nullptr)))
    return std::nullopt;
  auto lowerStart = std::chrono::steady_clock::now();
  if (lower && failed(lowerToLLVM(*module)))
    return std::nullopt;
  if (failed(checkEntryPoint(*module, entry)))
    return std::nullopt;
  double lowerSeconds = secondsSince(lowerStart);

  auto codegenStart = std::chrono::steady_clock::now();
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> object =
      hp::runner::compileProgram(*module, entry, program.resultKind,
                                 {optLevel(args),
                                  optionValue(args, "march", ""),
                                  optionValues(args, "mattr")});
  if (!object) {
    llvm::errs() << "hp-runner: cannot generate code for the program: "
                 << llvm::toString(object.takeError()) << "\n";
    return std::nullopt;
  }
  program.object = std::move(*object);
  double codegenSeconds = secondsSince(codegenStart);

  std::string stored = "not cached";
  if (*cache) {
    llvm::Expected<std::string> path = hp::storeObject(
        **cache, key, program.object->getBuffer(), printed.copy());
    if (path) {
      stored = *path;
    } else {
      llvm::errs() << "hp-runner: warning: the compiled program is not "
                      "cached: "
                   << llvm::toString(path.takeError()) << "\n";
    }
  }
  CompileReport compiled;
  compiled.cache = *cache ? "miss" : "off";
  compiled.bytes = program.object->getBufferSize();
  compiled.parseSeconds = parseSeconds;
  compiled.lowerSeconds = lowerSeconds;
  compiled.codegenSeconds = codegenSeconds;
  compiled.totalSeconds = parseSeconds + lowerSeconds + codegenSeconds;
  compiled.stored = stored;
  if (failed(report(compiled)))
    return std::nullopt;
  return program;
}

/// mlir-runner's --dump-object-file: the object, written to
/// -object-filename or <input>.o.
LogicalResult dumpObject(const std::vector<std::string> &args,
                         const CompiledProgram &program) {
  if (!hasFlag(args, "dump-object-file"))
    return success();
  std::string path = optionValue(args, "object-filename", "");
  if (path.empty())
    path = program.input + ".o";
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec);
  if (!ec) {
    out << program.object->getBuffer();
    out.close();
    ec = out.error();
  }
  if (!ec)
    return success();
  llvm::errs() << "hp-runner: cannot write the object to " << path << ": "
               << ec.message() << "\n";
  return failure();
}

/// mpirun's pid while it runs, for the signal handler.
volatile sig_atomic_t mpirunPid = 0;

void forwardSignal(int sig) {
  if (mpirunPid > 0)
    kill(mpirunPid, sig);
}

/// The `-np` count, or an error naming what was given.
std::optional<std::string> checkedRanks() {
  const std::string &ranks = *runnerOptions.ranks;
  unsigned long long count = 0;
  if (llvm::StringRef(ranks).getAsInteger(10, count) || count == 0 ||
      count > static_cast<unsigned long long>(INT32_MAX)) {
    llvm::errs() << "hp-runner: -np needs a positive number of ranks, got '"
                 << ranks << "'\n";
    return std::nullopt;
  }
  return ranks;
}

/// Runs `program` under `mpirun -np ranks`, each rank loading its object
/// file, and returns mpirun's status. SIGINT, SIGTERM and SIGHUP reach
/// mpirun, which stops the ranks; hp-runner then exits with mpirun's
/// status. A temporary object file is removed as soon as mpirun ends,
/// before anything is printed (a closed pipe could end hp-runner there).
int runUnderMPI(const std::string &ranks, CompiledProgram &program,
                const char *argv0) {
  auto mpirun = llvm::sys::findProgramByName("mpirun");
  if (!mpirun) {
    llvm::errs() << "hp-runner: cannot run mpirun for -np " << ranks
                 << " (is Open MPI installed?)\n";
    return 1;
  }
  // Each job's ranks read a file of its own, not the cache's entry, which
  // another job's pruning may remove meanwhile.
  if (!(program.file = writeObject(program.object->getBuffer())))
    return 1;
  std::vector<std::string> cmd = {*mpirun};
  if (geteuid() == 0)
    cmd.push_back("--allow-run-as-root");
  cmd.push_back("--oversubscribe");
  // Each job gets its own session directory: concurrent jobs sharing one
  // TMPDIR race on Open MPI's common parent directory (one job removes it
  // while another creates its own inside).
  llvm::SmallString<128> sessionDir;
  if (!llvm::sys::fs::createUniqueDirectory("hp-runner-mpi", sessionDir))
    cmd.insert(cmd.end(),
               {"--mca", "orte_tmpdir_base", std::string(sessionDir)});
  cmd.insert(cmd.end(), runnerOptions.mpirunArgs.begin(),
             runnerOptions.mpirunArgs.end());
  cmd.insert(cmd.end(),
             {"-np", ranks, executablePath(argv0), kPreloweredFlag.str(),
              "--entry-point-result=" + program.resultKind,
              "--shared-libs=" + llvm::join(program.libraries, ","), "--",
              program.file->path});
  std::vector<llvm::StringRef> cmdRefs(cmd.begin(), cmd.end());
  std::string error;
  bool failed = false;
  llvm::sys::ProcessInfo info = llvm::sys::ExecuteNoWait(
      *mpirun, cmdRefs, /*Env=*/std::nullopt, /*Redirects=*/{},
      /*MemoryLimit=*/0, &error, &failed);
  int returnCode = -1;
  if (!failed) {
    mpirunPid = info.Pid;
    for (int sig : {SIGINT, SIGTERM, SIGHUP})
      std::signal(sig, forwardSignal);
    returnCode = llvm::sys::Wait(info, /*SecondsToWait=*/std::nullopt, &error)
                     .ReturnCode;
    mpirunPid = 0;
  }
  removeObjectFile(program.file);
  if (!sessionDir.empty())
    llvm::sys::fs::remove_directories(sessionDir);
  if (failed)
    llvm::errs() << "hp-runner: mpirun failed to start: " << error << "\n";
  else if (returnCode < 0)
    llvm::errs() << "hp-runner: mpirun failed: " << error << "\n";
  return returnCode < 0 ? 1 : returnCode;
}

/// A rank of -np: the program the launching hp-runner compiled, from the
/// arguments it gave (kPreloweredFlag, --entry-point-result, --shared-libs,
/// --, the object's file).
std::optional<CompiledProgram>
readCompiledProgram(const std::vector<std::string> &args) {
  if (args.size() < 2 || args[args.size() - 2] != "--") {
    llvm::errs() << "hp-runner: " << kPreloweredFlag
                 << " is hp-runner's own: a rank of -np takes the launcher's "
                    "arguments\n";
    return std::nullopt;
  }
  CompiledProgram program;
  program.resultKind = optionValue(args, "entry-point-result", "void");
  program.libraries = optionValues(args, "shared-libs");
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> object =
      llvm::MemoryBuffer::getFile(args.back(), /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!object) {
    llvm::errs() << "hp-runner: cannot read the compiled program "
                 << args.back() << ": " << object.getError().message() << "\n";
    return std::nullopt;
  }
  program.object = std::move(*object);
  return program;
}

/// Runs `program` as one rank. A temporary object file is removed as soon
/// as the rank has read it, so that no way the program ends (exit, a fault,
/// a timeout) leaves it behind.
int runRank(CompiledProgram &program) {
  // A rank that leaves before its entry point returns makes the runtime
  // abort the whole job (instead of blocking in MPI_Finalize while the other
  // ranks wait for it in a collective).
  setenv("HP_RUNNER_ABORT_ON_EARLY_EXIT", "1", /*overwrite=*/1);
  std::optional<ObjectFile> file = program.file;
  auto started = [&] {
    removeObjectFile(file);
    hp::runner::reportProgramFaults();
    // What the program printed before a fault or a failed check (whose
    // message goes to stdout) must not die in stdout's buffer with it.
    std::setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
  };
  int rc = hp::runner::runProgram(std::move(program.object), program.libraries,
                                  program.resultKind, started);
  removeObjectFile(file);
  if (rc == 0)
    if (void *done = llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(
            "hpRuntimeEntryDone"))
      reinterpret_cast<void (*)()>(done)();
  return rc;
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
         "  --check-bounds        check memref and tensor accesses at run "
         "time (upstream's runtime verification)\n"
         "  --compile-report      print whether the compiled program came "
         "from the cache, and the time of each stage\n"
         "  --compile-report=FILE write the same to FILE as a JSON object\n"
         "  --input-name=NAME     the name the input's source locations "
         "carry (default: its path)\n"
         "  -e <name>             entry point (default main)\n"
         "  --entry-point-result=void|i32|i64|f32  its result (default void)\n"
         "The input is lowered with hp-lower-to-cpu (or -gpu) if it is not "
         "LLVM dialect already, and compiled, once, before any rank starts;\n"
         "every rank loads the one object. Objects are cached per node.\n"
         "Environment: HP_TIMEOUT_S (seconds a collective may take, default "
         "60), HP_GRID_SHAPE_<grid> (AxB..., the shape of a grid with "
         "several dynamic axes),\n"
         "  HP_CHECK_COLLECTIVES=1 (CPU ranks: compare every NCCL call's "
         "kind, type, count, root and\n"
         "  reduce op across its communicator, and each group's sends with "
         "the peers' receives;\n"
         "  a mismatch ends the job with 'hp: rank R: collectives do not "
         "match across ranks:\n"
         "  rank A calls ... but rank B calls ...' or 'point-to-point calls "
         "do not match: ...'),\n"
         "  HP_CACHE=0 (compile without the cache), HP_CACHE_DIR (default "
         "~/.cache/hp/objects), HP_CACHE_MAX_MB (default 2048).\n\n"
         "The options of mlir-runner follow.\n\n";
}

bool isHelpOrVersion(llvm::StringRef arg) {
  return arg == "--help" || arg == "-help" || arg == "-h" ||
         arg == "--version" || arg == "-version";
}

} // namespace

int main(int argc, char **argv) {
  bool helpOrVersion = false;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    helpOrVersion |= isHelpOrVersion(arg);
    if (arg == "--help" || arg == "-help" || arg == "-h")
      printRunnerHelp();
  }
  hp::addVersionPrinter();
  llvm::InitLLVM init(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::InitializeNativeTargetAsmParser();

  // --help and --version are mlir-runner's to print.
  if (helpOrVersion) {
    DialectRegistry empty;
    return JitRunnerMain(argc, argv, empty);
  }
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!takeRunnerOptions(args))
    return 1;
  // mlir-runner's probe of the host, which lit configurations use.
  if (hasFlag(args, "host-supports-jit")) {
    auto jit = llvm::orc::LLJITBuilder().create();
    bool supported = bool(jit);
    if (!jit)
      llvm::consumeError(jit.takeError());
    llvm::outs() << (supported ? "true" : "false") << "\n";
    return supported ? 0 : 1;
  }
  if (runnerOptions.prelowered) {
    std::optional<CompiledProgram> program = readCompiledProgram(args);
    return program ? runRank(*program) : 1;
  }
  std::optional<std::string> ranks;
  if (runnerOptions.ranks && !(ranks = checkedRanks()))
    return 1;
  if (!runnerOptions.ranks && !runnerOptions.mpirunArgs.empty()) {
    llvm::errs() << "hp-runner: --mpirun-args needs -np N: without it the "
                    "program runs as one rank, without mpirun\n";
    return 1;
  }

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  hp::registerAllHPDialects(registry);

  std::optional<CompiledProgram> program = compileOnce(args, registry, argv[0]);
  if (!program || failed(dumpObject(args, *program)))
    return 1;
  if (!ranks)
    return runRank(*program);
  return runUnderMPI(*ranks, *program, argv[0]);
}
