//===- NestingDepth.cpp - refuse too deeply nested textual IR -------------===//

#include "hp/Support/NestingDepth.h"

#include "llvm/ADT/Twine.h"

using namespace hp;

std::string NestingViolation::message(llvm::StringRef bufferName) const {
  return (bufferName + ":" + llvm::Twine(line) + ":" + llvm::Twine(column) +
          ": input nests deeper than " + llvm::Twine(depth - 1) +
          " brackets (regions, lists, attributes or types); hp refuses it "
          "rather than overflow the parser's stack")
      .str();
}

namespace {
/// One pass over the text with a line/column counter; `isOpen`/`isClose`
/// decide what nests at each position.
template <typename OpenFn, typename CloseFn>
std::optional<NestingViolation> scan(llvm::StringRef text, size_t maxDepth,
                                     bool lineComments, OpenFn isOpen,
                                     CloseFn isClose) {
  size_t depth = 0;
  unsigned line = 1, column = 1;
  bool inString = false;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      column = 1;
      inString = false; // MLIR strings do not span lines; resynchronise
      continue;
    }
    ++column;
    if (inString) {
      if (c == '\\' && i + 1 < e && text[i + 1] != '\n') {
        ++i;
        ++column;
      } else if (c == '"') {
        inString = false;
      }
      continue;
    }
    if (c == '"') {
      inString = true;
      continue;
    }
    if (lineComments && c == '/' && i + 1 < e && text[i + 1] == '/') {
      size_t nl = text.find('\n', i);
      if (nl == llvm::StringRef::npos)
        break;
      i = nl - 1;
      continue;
    }
    if (isOpen(text, i)) {
      if (++depth > maxDepth)
        return NestingViolation{depth, i, line, column - 1};
    } else if (isClose(text, i) && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}
} // namespace

std::optional<NestingViolation> hp::findExcessiveNesting(llvm::StringRef text,
                                                         size_t maxDepth) {
  auto next = [](llvm::StringRef t, size_t i) {
    return i + 1 < t.size() ? t[i + 1] : '\0';
  };
  return scan(
      text, maxDepth, /*lineComments=*/true,
      [&](llvm::StringRef t, size_t i) {
        char c = t[i];
        if (c == '<')
          return next(t, i) != '=';
        return c == '(' || c == '[' || c == '{';
      },
      [&](llvm::StringRef t, size_t i) {
        char c = t[i];
        if (c == '>')
          return next(t, i) != '=' && (i == 0 || t[i - 1] != '-');
        return c == ')' || c == ']' || c == '}';
      });
}

std::optional<NestingViolation>
hp::findExcessiveJSONNesting(llvm::StringRef text, size_t maxDepth) {
  return scan(
      text, maxDepth, /*lineComments=*/false,
      [](llvm::StringRef t, size_t i) { return t[i] == '[' || t[i] == '{'; },
      [](llvm::StringRef t, size_t i) { return t[i] == ']' || t[i] == '}'; });
}
