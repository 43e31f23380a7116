//===- ProgramObject.cpp - One object per job, loaded by every rank -------===//

#include "ProgramObject.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ExecutionEngine/JITEventListener.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/SectionMemoryManager.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

using namespace llvm;

namespace hp::runner {

namespace {

constexpr StringLiteral kEntry = "__hp_program_entry";
constexpr StringLiteral kInit = "__hp_program_init";
constexpr StringLiteral kFini = "__hp_program_fini";

Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

/// Whether `type` is what an entry point of `resultKind` returns.
bool returns(Type *type, StringRef resultKind) {
  if (resultKind == "void")
    return type->isVoidTy();
  if (resultKind == "i32")
    return type->isIntegerTy(32);
  if (resultKind == "i64")
    return type->isIntegerTy(64);
  return resultKind == "f32" && type->isFloatTy();
}

/// Adds kEntry, which calls `entry` (no arguments) and stores its result.
Error addEntryWrapper(Module &module, StringRef entry, StringRef resultKind) {
  Function *callee = module.getFunction(entry);
  if (!callee || callee->isDeclaration())
    return makeError("the lowered program has no function @" + entry);
  if (callee->arg_size() != 0)
    return makeError("the entry point @" + entry + " takes arguments");
  if (!returns(callee->getReturnType(), resultKind))
    return makeError(
        "the entry point @" + entry +
        " does not return what --entry-point-result=" + resultKind + " says");
  LLVMContext &ctx = module.getContext();
  auto *type = FunctionType::get(Type::getVoidTy(ctx),
                                 {PointerType::getUnqual(ctx)}, false);
  Function *wrapper =
      Function::Create(type, GlobalValue::ExternalLinkage, kEntry, module);
  IRBuilder<> builder(BasicBlock::Create(ctx, "", wrapper));
  Value *result = builder.CreateCall(callee, {});
  if (!result->getType()->isVoidTy())
    builder.CreateStore(result, wrapper->getArg(0));
  builder.CreateRetVoid();
  return Error::success();
}

/// Replaces `list` (llvm.global_ctors or llvm.global_dtors) by a function
/// `name` that calls its functions in the order a loader would (LangRef:
/// constructors by ascending priority, destructors by descending priority
/// and in reverse among equals): an object linked by the JIT has no loader
/// to run them.
void addCallsOf(Module &module, StringRef list, StringRef name,
                iterator_range<orc::CtorDtorIterator> functions,
                bool descending) {
  SmallVector<std::pair<unsigned, Function *>> calls;
  for (const orc::CtorDtorIterator::Element &element : functions)
    if (element.Func)
      calls.push_back({element.Priority, element.Func});
  llvm::stable_sort(
      calls, [](const auto &a, const auto &b) { return a.first < b.first; });
  if (descending)
    std::reverse(calls.begin(), calls.end());
  LLVMContext &ctx = module.getContext();
  Function *caller =
      Function::Create(FunctionType::get(Type::getVoidTy(ctx), false),
                       GlobalValue::ExternalLinkage, name, module);
  IRBuilder<> builder(BasicBlock::Create(ctx, "", caller));
  for (Function *function : make_second_range(calls))
    builder.CreateCall(function, {});
  builder.CreateRetVoid();
  if (GlobalVariable *global = module.getGlobalVariable(list))
    global->eraseFromParent();
}

/// The functions a rank calls, in the order it calls them.
struct ProgramFunctions {
  void (*init)();
  void (*entry)(void *result);
  void (*fini)();
};

} // namespace

Expected<std::unique_ptr<MemoryBuffer>>
compileProgram(mlir::ModuleOp module, StringRef entry, StringRef resultKind,
               const CodegenOptions &options) {
  Expected<orc::JITTargetMachineBuilder> builder =
      orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return builder.takeError();
  if (!options.arch.empty()) {
    Triple triple = builder->getTargetTriple();
    std::string error;
    if (!TargetRegistry::lookupTarget(options.arch, triple, error))
      return makeError("-march=" + options.arch + ": " + error);
    if (triple.getArch() != builder->getTargetTriple().getArch())
      return makeError("-march=" + options.arch +
                       " is not this host's architecture (" +
                       builder->getTargetTriple().getArchName() +
                       "): the ranks run the program here");
  }
  for (const std::string &attribute : options.attributes)
    builder->getFeatures().AddFeature(attribute);
  if (options.optLevel)
    builder->setCodeGenOptLevel(
        static_cast<CodeGenOptLevel>(*options.optLevel));
  Expected<std::unique_ptr<TargetMachine>> machine =
      builder->createTargetMachine();
  if (!machine)
    return machine.takeError();

  LLVMContext ctx;
  std::unique_ptr<Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, ctx, "hp-program");
  if (!llvmModule)
    return makeError("cannot translate the lowered program to LLVM IR");
  llvmModule->setDataLayout((*machine)->createDataLayout());
  llvmModule->setTargetTriple((*machine)->getTargetTriple());
  for (StringRef name : {kEntry, kInit, kFini})
    if (llvmModule->getNamedValue(name))
      return makeError("the program defines @" + name +
                       ", a name hp-runner reserves");
  if (Error error = addEntryWrapper(*llvmModule, entry, resultKind))
    return std::move(error);
  addCallsOf(*llvmModule, "llvm.global_ctors", kInit,
             orc::getConstructors(*llvmModule), /*descending=*/false);
  addCallsOf(*llvmModule, "llvm.global_dtors", kFini,
             orc::getDestructors(*llvmModule), /*descending=*/true);
  if (options.optLevel)
    if (Error error =
            mlir::makeOptimizingTransformer(*options.optLevel, /*sizeLevel=*/0,
                                            machine->get())(llvmModule.get()))
      return std::move(error);
  orc::SimpleCompiler compile(**machine);
  return compile(*llvmModule);
}

std::optional<bool> objectCalls(MemoryBufferRef object, StringRef symbol) {
  Expected<std::unique_ptr<object::ObjectFile>> file =
      object::ObjectFile::createObjectFile(object);
  if (!file) {
    consumeError(file.takeError());
    return std::nullopt;
  }
  bool hasEntry = false, calls = false;
  for (const object::SymbolRef &sym : (*file)->symbols()) {
    Expected<StringRef> name = sym.getName();
    Expected<uint32_t> flags = sym.getFlags();
    if (!name || !flags) {
      consumeError(name.takeError());
      consumeError(flags.takeError());
      return std::nullopt;
    }
    bool undefined = *flags & object::SymbolRef::SF_Undefined;
    hasEntry |= *name == kEntry && !undefined;
    calls |= *name == symbol && undefined;
  }
  // Not an object compileProgram made.
  if (!hasEntry)
    return std::nullopt;
  return calls;
}

int runProgram(std::unique_ptr<MemoryBuffer> object,
               ArrayRef<std::string> libraries, StringRef resultKind,
               function_ref<void()> started) {
  // Libraries with mlir-runner's init and destroy functions export their
  // symbols through them; the others are searched as the process is.
  StringMap<void *> exported;
  SmallVector<mlir::ExecutionEngine::LibraryDestroyFn> destroyFns;
  for (const std::string &path : libraries) {
    std::string error;
    sys::DynamicLibrary library =
        sys::DynamicLibrary::getPermanentLibrary(path.c_str(), &error);
    if (!library.isValid()) {
      errs() << "hp-runner: cannot load " << path << ": " << error << "\n";
      return 1;
    }
    void *init =
        library.getAddressOfSymbol(mlir::ExecutionEngine::kLibraryInitFnName);
    void *destroy = library.getAddressOfSymbol(
        mlir::ExecutionEngine::kLibraryDestroyFnName);
    if (!init || !destroy)
      continue;
    reinterpret_cast<mlir::ExecutionEngine::LibraryInitFn>(init)(exported);
    destroyFns.push_back(
        reinterpret_cast<mlir::ExecutionEngine::LibraryDestroyFn>(destroy));
  }

  // MLIR's ExecutionEngine links with RuntimeDyld; so does hp, so that an
  // object links here as it did there.
  Expected<std::unique_ptr<orc::LLJIT>> jit =
      orc::LLJITBuilder()
          .setObjectLinkingLayerCreator(
              [](orc::ExecutionSession &session)
                  -> Expected<std::unique_ptr<orc::ObjectLayer>> {
                auto layer = std::make_unique<orc::RTDyldObjectLinkingLayer>(
                    session, [](const MemoryBuffer &) {
                      return std::make_unique<SectionMemoryManager>();
                    });
                // gdb sees the program's functions, as under mlir-runner.
                layer->registerJITEventListener(
                    *JITEventListener::createGDBRegistrationListener());
                return layer;
              })
          .create();
  if (!jit) {
    errs() << "hp-runner: cannot start the JIT linker: "
           << toString(jit.takeError()) << "\n";
    return 1;
  }
  orc::JITDylib &program = (*jit)->getMainJITDylib();
  Expected<std::unique_ptr<orc::DynamicLibrarySearchGenerator>> process =
      orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
          (*jit)->getDataLayout().getGlobalPrefix());
  if (!process) {
    errs() << "hp-runner: cannot search this process's symbols: "
           << toString(process.takeError()) << "\n";
    return 1;
  }
  program.addGenerator(std::move(*process));
  orc::SymbolMap symbols;
  for (const auto &entry : exported)
    symbols[(*jit)->mangleAndIntern(entry.getKey())] = {
        orc::ExecutorAddr::fromPtr(entry.getValue()), JITSymbolFlags::Exported};
  if (!symbols.empty())
    cantFail(program.define(orc::absoluteSymbols(std::move(symbols))));
  if (Error error = (*jit)->addObjectFile(std::move(object))) {
    errs() << "hp-runner: cannot load the compiled program: "
           << toString(std::move(error)) << "\n";
    return 1;
  }

  started();
  // Looking the first symbol up links the whole object: a function the
  // program calls and no library defines is named here, before anything runs.
  auto address = [&](StringRef name) -> std::optional<orc::ExecutorAddr> {
    Expected<orc::ExecutorAddr> found = (*jit)->lookup(name);
    if (found)
      return *found;
    errs() << "hp-runner: cannot link the compiled program: "
           << toString(found.takeError()) << "\n";
    return std::nullopt;
  };
  std::optional<orc::ExecutorAddr> init = address(kInit);
  std::optional<orc::ExecutorAddr> entry =
      init ? address(kEntry) : std::nullopt;
  std::optional<orc::ExecutorAddr> fini = entry ? address(kFini) : std::nullopt;
  if (!fini)
    return 1;
  ProgramFunctions functions = {init->toPtr<void (*)()>(),
                                entry->toPtr<void (*)(void *)>(),
                                fini->toPtr<void (*)()>()};

  functions.init();
  // Room for any result kind (compileProgram checked the entry's type).
  alignas(8) unsigned char result[8] = {};
  functions.entry(result);
  // Printed as mlir-runner prints them.
  if (resultKind == "i32") {
    int32_t value;
    std::memcpy(&value, result, sizeof value);
    outs() << value << "\n";
  } else if (resultKind == "i64") {
    int64_t value;
    std::memcpy(&value, result, sizeof value);
    outs() << value << "\n";
  } else if (resultKind == "f32") {
    float value;
    std::memcpy(&value, result, sizeof value);
    outs() << static_cast<double>(value) << "\n";
  }
  outs().flush();
  functions.fini();
  for (mlir::ExecutionEngine::LibraryDestroyFn destroy : destroyFns)
    destroy();
  return 0;
}

} // namespace hp::runner
