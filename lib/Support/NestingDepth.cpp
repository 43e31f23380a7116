//===- NestingDepth.cpp - refuse too deeply nested textual IR -------------===//

#include "hp/Support/NestingDepth.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/IR/Block.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/thread.h"

using namespace hp;

std::string NestingViolation::message(llvm::StringRef bufferName) const {
  std::string where =
      (bufferName + ":" + llvm::Twine(line) + ":" + llvm::Twine(column) + ": ")
          .str();
  if (kind == AffineOperators)
    return where + "an affine expression chains more than " +
           std::to_string(depth - 1) +
           " operators; hp refuses it rather than overflow the parser's "
           "stack";
  return where + "input nests deeper than " + std::to_string(depth - 1) +
         " brackets (regions, lists, attributes or types); hp refuses it "
         "rather than overflow the parser's stack";
}

namespace {
bool isIdentifierChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '.' || c == '$';
}

/// One pass over the text with a line/column counter.
class Scanner {
public:
  Scanner(llvm::StringRef text, size_t maxDepth, llvm::StringRef splitMarker,
          size_t maxOperators, bool isMLIR)
      : text(text), maxDepth(maxDepth), splitMarker(splitMarker),
        maxOperators(maxOperators), isMLIR(isMLIR) {}

  std::optional<NestingViolation> run();

private:
  std::optional<NestingViolation> violation(NestingViolation::Kind kind,
                                            size_t reached, size_t i) const {
    return NestingViolation{kind, reached, i, line,
                            static_cast<unsigned>(i - lineStart + 1)};
  }
  /// MLIR nests `( [ { <`; JSON only `[ {`.
  bool isOpen(size_t i) const {
    char c = text[i];
    if (!isMLIR)
      return c == '[' || c == '{';
    if (c == '<')
      return next(i) != '=';
    return c == '(' || c == '[' || c == '{';
  }
  bool isClose(size_t i) const {
    char c = text[i];
    if (!isMLIR)
      return c == ']' || c == '}';
    if (c == '>')
      return next(i) != '=' && (i == 0 || text[i - 1] != '-');
    return c == ')' || c == ']' || c == '}';
  }
  char next(size_t i) const { return i + 1 < text.size() ? text[i + 1] : 0; }
  void startLine(size_t i) {
    ++line;
    lineStart = i + 1;
    if (affineDepth >= 0 && depth <= static_cast<size_t>(affineDepth))
      affineDepth = -1;
    if (!splitMarker.empty() && text.substr(i + 1).starts_with(splitMarker)) {
      depth = 0;
      affineDepth = -1;
      operators = 0;
    }
  }
  /// Counts one operator of an affine expression, if in one.
  std::optional<NestingViolation> countOperator(size_t i) {
    if (affineDepth < 0 || ++operators <= maxOperators)
      return std::nullopt;
    return violation(NestingViolation::AffineOperators, operators, i);
  }

  llvm::StringRef text;
  size_t maxDepth;
  llvm::StringRef splitMarker;
  size_t maxOperators;
  bool isMLIR;
  size_t depth = 0, lineStart = 0, operators = 0;
  unsigned line = 1;
  /// The bracket depth an affine expression context began at, or -1.
  int64_t affineDepth = -1;
};
} // namespace

std::optional<NestingViolation> Scanner::run() {
  bool inString = false;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (c == '\n') {
      inString = false; // MLIR strings do not span lines; resynchronise
      startLine(i);
      continue;
    }
    if (inString) {
      if (c == '\\' && i + 1 < e && text[i + 1] != '\n')
        ++i;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
      continue;
    }
    if (isMLIR && c == '/' && next(i) == '/') {
      size_t nl = text.find('\n', i);
      if (nl == llvm::StringRef::npos)
        break;
      i = nl - 1;
      continue;
    }
    if (isOpen(i) || isClose(i) || c == ',') {
      operators = 0;
      if (isOpen(i) && ++depth > maxDepth)
        return violation(NestingViolation::Brackets, depth, i);
      if (isClose(i) && depth > 0)
        --depth;
      continue;
    }
    if (!isMLIR)
      continue;
    if (c == '+' || c == '*' || (c == '-' && next(i) != '>')) {
      if (auto v = countOperator(i))
        return v;
      continue;
    }
    if (!(llvm::isAlpha(c) || c == '_') ||
        (i > 0 && isIdentifierChar(text[i - 1])))
      continue;
    size_t end = i;
    while (end < e && isIdentifierChar(text[end]))
      ++end;
    llvm::StringRef word = text.slice(i, end);
    if (word == "floordiv" || word == "ceildiv" || word == "mod") {
      if (auto v = countOperator(i))
        return v;
    } else if (affineDepth < 0 &&
               (word == "affine_map" || word == "affine_set" ||
                word.starts_with("affine."))) {
      affineDepth = static_cast<int64_t>(depth);
      operators = 0;
    }
    i = end - 1;
  }
  return std::nullopt;
}

std::optional<NestingViolation>
hp::findExcessiveNesting(llvm::StringRef text, size_t maxDepth,
                         llvm::StringRef splitMarker,
                         size_t maxAffineOperators) {
  return Scanner(text, maxDepth, splitMarker, maxAffineOperators,
                 /*isMLIR=*/true)
      .run();
}

std::optional<NestingViolation>
hp::findExcessiveJSONNesting(llvm::StringRef text, size_t maxDepth) {
  return Scanner(text, maxDepth, /*splitMarker=*/{}, /*maxOperators=*/0,
                 /*isMLIR=*/false)
      .run();
}

std::optional<std::string>
hp::findExcessiveBytecodeNesting(llvm::MemoryBufferRef buffer,
                                 mlir::MLIRContext &context, size_t maxDepth) {
  std::optional<std::string> result;
  auto scan = [&] {
    mlir::ScopedDiagnosticHandler quiet(
        &context, [](mlir::Diagnostic &) { return mlir::success(); });
    mlir::Block block;
    mlir::ParserConfig config(&context, /*verifyAfterParse=*/false);
    if (mlir::failed(mlir::readBytecodeFile(buffer, &block, config)))
      return;
    llvm::SmallVector<std::pair<mlir::Operation *, size_t>> stack;
    for (mlir::Operation &op : block)
      stack.push_back({&op, 0});
    while (!stack.empty()) {
      auto [op, depth] = stack.pop_back_val();
      if (depth > maxDepth) {
        std::string text;
        llvm::raw_string_ostream os(text);
        os << op->getLoc() << ": '" << op->getName()
           << "' in bytecode nests deeper than " << maxDepth
           << " regions; hp refuses it rather than overflow the stack";
        result = text;
        return;
      }
      for (mlir::Region &region : op->getRegions())
        for (mlir::Block &inner : region)
          for (mlir::Operation &nested : inner)
            stack.push_back({&nested, depth + 1});
    }
  };
  llvm::thread worker(std::optional<unsigned>(kBytecodeScanStackBytes), scan);
  worker.join();
  return result;
}
