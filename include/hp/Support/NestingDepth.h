//===- NestingDepth.h - refuse too deeply nested textual IR -----*- C++ -*-===//
//
// MLIR's parser recurses once per nested region, block list, attribute and
// type, so a few thousand nested brackets overflow the stack. Every entry
// point that parses text a user hands it (hp-opt, hp-runner, the language
// server, the Python and C APIs) scans the text first and refuses input that
// nests deeper than a bound with a diagnostic naming the line and column.
//
//===----------------------------------------------------------------------===//

#ifndef HP_SUPPORT_NESTINGDEPTH_H
#define HP_SUPPORT_NESTINGDEPTH_H

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <optional>
#include <string>

namespace hp {

/// The deepest bracket nesting hp parses. Real programs stay below 100; the
/// parser's frames at this depth fit in a default 8 MiB stack, sanitizers
/// included.
inline constexpr size_t kMaxNestingDepth = 512;

/// Where text first nests deeper than a bound.
struct NestingViolation {
  size_t depth;  ///< the depth reached (bound + 1)
  size_t offset; ///< byte offset of the bracket that exceeded the bound
  unsigned line, column; ///< 1-based
  /// "line L:C: input nests deeper than N brackets ..."
  std::string message(llvm::StringRef bufferName) const;
};

/// Scans MLIR text for `(`, `[`, `{` and `<` nesting (string literals and
/// `//` comments skipped; `->`, `<=`, `>=` are not brackets). Returns the
/// first place the depth exceeds `maxDepth`, or std::nullopt.
std::optional<NestingViolation>
findExcessiveNesting(llvm::StringRef text, size_t maxDepth = kMaxNestingDepth);

/// Same scan for JSON text (strings skipped; only `[` and `{` nest).
std::optional<NestingViolation>
findExcessiveJSONNesting(llvm::StringRef text,
                         size_t maxDepth = kMaxNestingDepth);

} // namespace hp

#endif // HP_SUPPORT_NESTINGDEPTH_H
