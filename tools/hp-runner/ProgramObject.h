//===- ProgramObject.h - One object per job, loaded by every rank -*- C++
//-*-===//
//
// hp-runner generates code once per job: the launching process compiles the
// lowered module into a relocatable object for this host, and each rank only
// links that object into itself and calls its entry point. (JitRunner would
// make every rank generate the same code again.)
//
// The object exports two functions besides the program's own:
//   __hp_program_entry(void *result)  calls the entry point and stores its
//                                     result (if any) at `result`;
//   __hp_program_init(), __hp_program_fini()
//                                     run the module's global constructors
//                                     (ascending priority) and destructors
//                                     (descending), as a loader would; the
//                                     GPU target loads its kernels in one.
//
//===----------------------------------------------------------------------===//

#ifndef HP_TOOLS_HP_RUNNER_PROGRAMOBJECT_H
#define HP_TOOLS_HP_RUNNER_PROGRAMOBJECT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <optional>
#include <string>
#include <vector>

namespace hp::runner {

/// How to generate code: mlir-runner's flags.
struct CodegenOptions {
  /// -O0 to -O3: LLVM's optimization pipeline and code generation level.
  std::optional<unsigned> optLevel;
  /// -march: must name this host's architecture (the ranks run here).
  std::string arch;
  /// -mattr: features added to the host's (`+avx2`, `-avx512f`).
  std::vector<std::string> attributes;
};

/// Compiles `module` (LLVM dialect only) for this host's CPU. The entry
/// point must take no arguments and return `resultKind` (void, i32, i64,
/// f32).
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
compileProgram(mlir::ModuleOp module, llvm::StringRef entry,
               llvm::StringRef resultKind, const CodegenOptions &options);

/// Whether `object` calls `symbol` (leaves it undefined); none if `object`
/// is not an object file this host can load.
std::optional<bool> objectCalls(llvm::MemoryBufferRef object,
                                llvm::StringRef symbol);

/// Loads `libraries` (mlir-runner's --shared-libs), links `object` into this
/// process, calls `started`, then runs the program: its constructors, its
/// entry point and its destructors. Prints a result of kind `resultKind`
/// (void, i32, i64, f32) as mlir-runner does. Returns the exit status.
int runProgram(std::unique_ptr<llvm::MemoryBuffer> object,
               llvm::ArrayRef<std::string> libraries,
               llvm::StringRef resultKind, llvm::function_ref<void()> started);

} // namespace hp::runner

#endif // HP_TOOLS_HP_RUNNER_PROGRAMOBJECT_H
