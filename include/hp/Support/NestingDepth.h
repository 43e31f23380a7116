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
#include "llvm/Support/MemoryBufferRef.h"

#include <cstddef>
#include <optional>
#include <string>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace hp {

/// The deepest bracket nesting hp parses. Real programs stay below 100; the
/// parser's frames at this depth fit in a default 8 MiB stack, sanitizers
/// included.
inline constexpr size_t kMaxNestingDepth = 512;

/// The longest operator chain hp parses in one affine expression: the
/// affine parser also recurses once per unary minus and per chained binary
/// operator, with no bracket to count.
inline constexpr size_t kMaxAffineOperators = 1000;

/// Where text first nests deeper than a bound.
struct NestingViolation {
  enum Kind { Brackets, AffineOperators };
  Kind kind = Brackets;
  size_t depth;          ///< the depth (or chain length) reached: bound + 1
  size_t offset;         ///< byte offset of the token that exceeded the bound
  unsigned line, column; ///< 1-based
  /// "name:L:C: input nests deeper than N brackets ..."
  std::string message(llvm::StringRef bufferName) const;
};

/// Scans MLIR text for `(`, `[`, `{` and `<` nesting (string literals and
/// `//` comments skipped; `->`, `<=`, `>=` are not brackets), and for
/// operator chains in affine expressions (after `affine_map`, `affine_set`
/// or an `affine.` op name, until the line ends back at the depth they
/// started: `+`, `-`, `*`, `floordiv`, `ceildiv`, `mod` between two commas
/// or brackets). Returns the first place either exceeds its bound, or
/// std::nullopt. With a `splitMarker` (hp-opt's --split-input-file), each
/// chunk starting at a line that begins with it is scanned afresh.
std::optional<NestingViolation>
findExcessiveNesting(llvm::StringRef text, size_t maxDepth = kMaxNestingDepth,
                     llvm::StringRef splitMarker = {},
                     size_t maxAffineOperators = kMaxAffineOperators);

/// Same scan for JSON text (strings skipped; only `[` and `{` nest).
std::optional<NestingViolation>
findExcessiveJSONNesting(llvm::StringRef text,
                         size_t maxDepth = kMaxNestingDepth);

/// Where bytecode first nests ops deeper than `maxDepth` regions:
/// "<loc>: 'op' nests deeper than N regions; ...", or std::nullopt (also
/// when `buffer` does not parse: the caller's own parse reports that).
/// Bytecode has no brackets to scan, and reading, walking, printing and
/// destroying IR recurse once per region, so it is read into `context` on
/// a thread with a large stack (hp::kBytecodeScanStackBytes), measured
/// without recursion and destroyed there.
std::optional<std::string>
findExcessiveBytecodeNesting(llvm::MemoryBufferRef buffer,
                             mlir::MLIRContext &context,
                             size_t maxDepth = kMaxNestingDepth);

/// The stack of the thread that scans bytecode: room for regions nested
/// some hundred thousand deep (about 2 KiB of frames each), reserved, not
/// touched, until used.
inline constexpr unsigned kBytecodeScanStackBytes = 1u << 30;

} // namespace hp

#endif // HP_SUPPORT_NESTINGDEPTH_H
