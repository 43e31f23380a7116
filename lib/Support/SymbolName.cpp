//===- SymbolName.cpp - the names hp's entry points take ------------------===//

#include "hp/Support/SymbolName.h"

#include "llvm/ADT/StringExtras.h"

bool hp::isPlainSymbolName(llvm::StringRef name) {
  if (name.empty() || !(llvm::isAlpha(name.front()) || name.front() == '_'))
    return false;
  return llvm::all_of(name, [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.' || c == '-';
  });
}

std::string hp::notASymbolName(llvm::StringRef what, llvm::StringRef name) {
  return (what + " '" + name +
          "' is not a symbol name ([A-Za-z_][A-Za-z0-9_$.-]*)")
      .str();
}
