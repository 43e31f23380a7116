//===- SymbolName.h - the names hp's entry points take ----------*- C++ -*-===//
//
// One rule for the symbols users name (meshes, functions, callees, entry
// points), checked by the C API, the Python extension and through it the
// Python package: what MLIR prints bare after `@`.
//
//===----------------------------------------------------------------------===//

#ifndef HP_SUPPORT_SYMBOLNAME_H
#define HP_SUPPORT_SYMBOLNAME_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace hp {

/// Whether `name` matches [A-Za-z_][A-Za-z0-9_$.-]*. MLIR would quote any
/// other name (`@"a b"`), which users cannot type where hp asks for a
/// name (hp-runner -e, Python keyword arguments, torch module paths).
bool isPlainSymbolName(llvm::StringRef name);

/// "<what> '<name>' is not a symbol name ([A-Za-z_][A-Za-z0-9_$.-]*)".
std::string notASymbolName(llvm::StringRef what, llvm::StringRef name);

} // namespace hp

#endif // HP_SUPPORT_SYMBOLNAME_H
