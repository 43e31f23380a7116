//===- LspDocumentGuard.h - keep too deeply nested documents from the parser //
//
// MLIR's parser recurses once per nested bracket, so a document that nests a
// few thousand deep crashes the language server. The guard keeps each open
// document's text (applying incremental edits itself; a full-text change to
// a document it has not seen opens it, as upstream's server does, and an
// incremental one is dropped), and whenever a
// version nests deeper than hp::kMaxNestingDepth it hands the server an empty
// text instead; the server's (empty) diagnostics for that version are then
// replaced by one error at the offending bracket.
//
//===----------------------------------------------------------------------===//

#ifndef HP_TOOLS_HPLSPSERVER_LSPDOCUMENTGUARD_H
#define HP_TOOLS_HPLSPSERVER_LSPDOCUMENTGUARD_H

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

namespace hp::lsp {

class DocumentGuard {
public:
  /// What to do with a client message after rewriteClientMessage.
  enum class Action {
    Forward,          ///< forward it as it came
    ForwardRewritten, ///< forward the rewritten `message`
    Drop,             ///< do not forward it (the reason has been logged)
  };

  /// For didOpen/didChange/didClose from the client (the filter thread):
  /// tracks the document and rewrites `message` so that the server only
  /// sees full texts that nest within bounds. Malformed params are left for
  /// the server to reject.
  Action rewriteClientMessage(llvm::StringRef method,
                              llvm::json::Object &message);

  /// Cheap test (any thread) whether a server message may need rewriting.
  bool mayRewriteServerMessage(llvm::StringRef body);

  /// For a server message (the relay thread): replaces the diagnostics
  /// published for a document version the guard blanked. Returns true if
  /// `message` changed.
  bool rewriteServerMessage(llvm::json::Object &message);

private:
  /// Records whether `text` (version `version` of `uri`) nests too deeply;
  /// returns true if it does and the server must get an empty text.
  bool check(llvm::StringRef uri, llvm::StringRef file, int64_t version,
             llvm::StringRef text);
  bool didOpen(llvm::json::Object &params);
  Action didChange(llvm::json::Object &params);
  void didClose(llvm::json::Object &params);

  /// Open documents by normalised URI (filter thread only).
  llvm::StringMap<std::string> documents;
  /// Per normalised URI, the diagnostic to publish for each blanked version
  /// (shared by the filter and the relay).
  std::mutex mutex;
  llvm::StringMap<std::map<int64_t, llvm::json::Value>> blanked;
};

} // namespace hp::lsp

#endif // HP_TOOLS_HPLSPSERVER_LSPDOCUMENTGUARD_H
