//===- hp-opt.cpp - the hp optimizer driver -------------------------------===//
//
// mlir-opt with every upstream dialect, extension and pass plus hp's, so that
// hp IR can be mixed with anything upstream produces or consumes.
//
//===----------------------------------------------------------------------===//

#include "hp/InitAllDialects.h"
#include "hp/InitAllPasses.h"
#include "hp/Support/NestingDepth.h"
#include "hp/Support/PassCounts.h"
#include "hp/Version.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

namespace hp::test {
/// test/lib: passes that exist only for hp's own tests.
void registerTestPasses();
} // namespace hp::test

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

// Without a bound, an endless input (`hp-opt /dev/zero`) is read until memory
// runs out. 1 GiB is far above any real module and still fits in memory.
static llvm::cl::opt<uint64_t> maxInputBytes(
    "max-input-bytes",
    llvm::cl::desc("Refuse an input larger than this many bytes (default 1 "
                   "GiB)"),
    llvm::cl::init(uint64_t(1) << 30));

static std::string tooLargeMessage(llvm::StringRef name, llvm::StringRef size) {
  return ("input '" + name + "' is " + size + " than the limit of " +
          llvm::Twine(maxInputBytes) + " bytes (--max-input-bytes)")
      .str();
}

/// Reads a pipe, a device or standard input in chunks, stopping as soon as
/// the input exceeds --max-input-bytes.
static std::unique_ptr<llvm::MemoryBuffer>
readStreamBounded(llvm::sys::fs::file_t file, llvm::StringRef name,
                  std::string &error) {
  std::string data;
  constexpr size_t kChunk = 1 << 16;
  while (true) {
    size_t old = data.size();
    data.resize(old + kChunk);
    llvm::Expected<size_t> read = llvm::sys::fs::readNativeFile(
        file, llvm::MutableArrayRef<char>(data.data() + old, kChunk));
    if (!read) {
      error = "cannot read input '" + name.str() +
              "': " + llvm::toString(read.takeError());
      return nullptr;
    }
    data.resize(old + *read);
    if (*read == 0)
      break;
    if (data.size() > maxInputBytes) {
      error = tooLargeMessage(name, "larger");
      return nullptr;
    }
  }
  return llvm::MemoryBuffer::getMemBufferCopy(data, name);
}

/// Opens the input like mlir::openInputFile, but refuses one larger than
/// --max-input-bytes before holding all of it in memory.
static std::unique_ptr<llvm::MemoryBuffer>
openBoundedInput(llvm::StringRef filename, std::string &error) {
  if (filename == "-")
    return readStreamBounded(llvm::sys::fs::getStdinHandle(), "<stdin>", error);
  llvm::sys::fs::file_status status;
  // A missing or unreadable file gets openInputFile's usual message.
  if (llvm::sys::fs::status(filename, status) ||
      llvm::sys::fs::is_regular_file(status)) {
    if (status.getSize() > maxInputBytes) {
      error = tooLargeMessage(
          filename, (llvm::Twine(status.getSize()) + " bytes, more").str());
      return nullptr;
    }
    return mlir::openInputFile(filename, &error);
  }
  llvm::Expected<llvm::sys::fs::file_t> file =
      llvm::sys::fs::openNativeFileForRead(filename);
  if (!file) {
    error = "cannot open input file '" + filename.str() +
            "': " + llvm::toString(file.takeError());
    return nullptr;
  }
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      readStreamBounded(*file, filename, error);
  llvm::sys::fs::closeFile(*file);
  return buffer;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  hp::addVersionPrinter();
  mlir::registerAllPasses();
  hp::registerAllHPPasses();
  hp::test::registerTestPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  hp::registerAllHPDialects(registry);
  // hp-lower-to-gpu serializes kernels (gpu-module-to-binary), which
  // translates them to LLVM IR inside the pass pipeline.
  mlir::registerAllToLLVMIRTranslations(registry);

  auto [inputFilename, outputFilename] =
      mlir::registerAndParseCLIOptions(argc, argv, kOverview, registry);
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects()) {
    llvm::outs() << "Available Dialects: ";
    llvm::interleave(registry.getDialectNames(), llvm::outs(), ",");
    llvm::outs() << "\n";
    return EXIT_SUCCESS;
  }
  if (config.shouldListPasses()) {
    mlir::printRegisteredPasses();
    return EXIT_SUCCESS;
  }
  // Debian's LLVM compiles pass statistics out; hp's passes report their
  // counts to this instrumentation, which extends MLIR's (empty) report.
  auto &options = llvm::cl::getRegisteredOptions();
  auto *statistics = static_cast<llvm::cl::opt<bool> *>(
      options.lookup("mlir-pass-statistics"));
  if (statistics && *statistics) {
    // The command-line pipeline is itself a setup callback: keep it.
    mlir::MlirOptMainConfig parsed = config;
    config.setPassPipelineSetupFn([parsed](mlir::PassManager &pm) {
      pm.addInstrumentation(hp::createPassCountsInstrumentation(llvm::errs()));
      return parsed.setupPassPipeline(pm);
    });
  }

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openBoundedInput(inputFilename, error);
  if (!input) {
    llvm::errs() << error << "\n";
    return EXIT_FAILURE;
  }
  // The parser recurses once per nested bracket and per operator of an
  // affine expression: refuse what would overflow its stack, naming where.
  // Split chunks are parsed apart, so they are scanned apart. Bytecode has
  // no text to scan: its regions are counted on a large stack.
  if (mlir::isBytecode(*input)) {
    mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
    context.allowUnregisteredDialects(config.shouldAllowUnregisteredDialects());
    if (std::optional<std::string> violation =
            hp::findExcessiveBytecodeNesting(*input, context)) {
      llvm::errs() << input->getBufferIdentifier() << ": " << *violation
                   << "\n";
      return EXIT_FAILURE;
    }
  } else {
    if (std::optional<hp::NestingViolation> violation =
            hp::findExcessiveNesting(input->getBuffer(), hp::kMaxNestingDepth,
                                     config.inputSplitMarker())) {
      llvm::errs() << violation->message(input->getBufferIdentifier()) << "\n";
      return EXIT_FAILURE;
    }
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &error);
  if (!output) {
    llvm::errs() << error << "\n";
    return EXIT_FAILURE;
  }
  if (mlir::failed(
          mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
    return EXIT_FAILURE;
  output->keep();
  return EXIT_SUCCESS;
}
