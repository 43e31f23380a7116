//===- LspDocumentGuard.cpp - keep too deeply nested documents from the parser
////

#include "LspDocumentGuard.h"

#include "hp/Support/NestingDepth.h"

#include "llvm/Support/LSP/Logging.h"
#include "llvm/Support/LSP/Protocol.h"

using namespace hp::lsp;
namespace json = llvm::json;

static constexpr llvm::StringLiteral kPublishDiagnostics =
    "textDocument/publishDiagnostics";

/// The URI as the server spells it back (URIForFile re-encodes it), so that
/// its diagnostics can be matched with the client's document.
static std::optional<llvm::lsp::URIForFile> parseURI(const json::Object &doc) {
  std::optional<llvm::StringRef> uri = doc.getString("uri");
  if (!uri)
    return std::nullopt;
  llvm::Expected<llvm::lsp::URIForFile> parsed =
      llvm::lsp::URIForFile::fromURI(*uri);
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return std::nullopt;
  }
  return *parsed;
}

bool DocumentGuard::check(llvm::StringRef uri, llvm::StringRef file,
                          int64_t version, llvm::StringRef text) {
  std::optional<hp::NestingViolation> violation =
      hp::findExcessiveNesting(text);
  std::lock_guard<std::mutex> lock(mutex);
  if (!violation) {
    auto it = blanked.find(uri);
    if (it != blanked.end() && it->second.erase(version) && it->second.empty())
      blanked.erase(it);
    return false;
  }
  json::Object position{{"line", int64_t(violation->line) - 1},
                        {"character", int64_t(violation->column) - 1}};
  json::Object end{{"line", int64_t(violation->line) - 1},
                   {"character", int64_t(violation->column)}};
  json::Object diagnostic{{"range", json::Object{{"start", std::move(position)},
                                                 {"end", std::move(end)}}},
                          {"severity", 1},
                          {"source", "hp"},
                          {"message", violation->message(file)}};
  blanked[uri].insert_or_assign(version, std::move(diagnostic));
  return true;
}

bool DocumentGuard::didOpen(json::Object &params) {
  json::Object *doc = params.getObject("textDocument");
  if (!doc)
    return false;
  std::optional<llvm::lsp::URIForFile> uri = parseURI(*doc);
  std::optional<int64_t> version = doc->getInteger("version");
  std::optional<llvm::StringRef> text = doc->getString("text");
  if (!uri || !version || !text)
    return false;
  documents[uri->uri()] = text->str();
  if (!check(uri->uri(), uri->file(), *version, *text))
    return false;
  (*doc)["text"] = "";
  return true;
}

DocumentGuard::Action DocumentGuard::didChange(json::Object &params) {
  json::Object *doc = params.getObject("textDocument");
  json::Array *changes = params.getArray("contentChanges");
  if (!doc || !changes)
    return Action::Forward;
  std::optional<llvm::lsp::URIForFile> uri = parseURI(*doc);
  std::optional<int64_t> version = doc->getInteger("version");
  if (!uri || !version)
    return Action::Forward;
  std::vector<llvm::lsp::TextDocumentContentChangeEvent> events(
      changes->size());
  for (size_t i = 0, e = changes->size(); i < e; ++i) {
    json::Path::Root root;
    if (!fromJSON((*changes)[i], events[i], root))
      return Action::Forward;
  }
  auto it = documents.find(uri->uri());
  if (it == documents.end()) {
    // Upstream's server adds a document it has not seen from a change's
    // text, as if opened: a full text is tracked and checked like a didOpen;
    // an edit to text nobody sent cannot be applied, so it goes no further.
    bool full = !events.empty() && !events.front().range;
    std::string text;
    if (!full || failed(llvm::lsp::TextDocumentContentChangeEvent::applyTo(
                     events, text))) {
      llvm::lsp::Logger::error(
          "hp-lsp-server: dropped an incremental textDocument/didChange of "
          "'{0}', which is not open: there is no text to apply it to",
          uri->uri());
      return Action::Drop;
    }
    it = documents.try_emplace(uri->uri(), std::move(text)).first;
  } else {
    // The server may hold an empty stand-in, so it always gets the full
    // text; edits that do not apply leave the document as it was, as
    // upstream does.
    std::string text = it->second;
    if (succeeded(
            llvm::lsp::TextDocumentContentChangeEvent::applyTo(events, text)))
      it->second = text;
  }
  bool deep = check(uri->uri(), uri->file(), *version, it->second);
  params["contentChanges"] =
      json::Array{json::Object{{"text", deep ? "" : it->second}}};
  return Action::ForwardRewritten;
}

void DocumentGuard::didClose(json::Object &params) {
  json::Object *doc = params.getObject("textDocument");
  if (!doc)
    return;
  if (std::optional<llvm::lsp::URIForFile> uri = parseURI(*doc)) {
    documents.erase(uri->uri());
    std::lock_guard<std::mutex> lock(mutex);
    blanked.erase(uri->uri());
  }
}

DocumentGuard::Action
DocumentGuard::rewriteClientMessage(llvm::StringRef method,
                                    json::Object &message) {
  json::Object *params = message.getObject("params");
  if (!params)
    return Action::Forward;
  if (method == "textDocument/didOpen")
    return didOpen(*params) ? Action::ForwardRewritten : Action::Forward;
  if (method == "textDocument/didChange")
    return didChange(*params);
  if (method == "textDocument/didClose")
    didClose(*params);
  return Action::Forward;
}

bool DocumentGuard::mayRewriteServerMessage(llvm::StringRef body) {
  if (!body.contains(kPublishDiagnostics))
    return false;
  std::lock_guard<std::mutex> lock(mutex);
  return !blanked.empty();
}

bool DocumentGuard::rewriteServerMessage(json::Object &message) {
  json::Object *params = message.getObject("params");
  if (message.getString("method") != kPublishDiagnostics || !params)
    return false;
  std::optional<llvm::StringRef> uri = params->getString("uri");
  std::optional<int64_t> version = params->getInteger("version");
  if (!uri || !version)
    return false;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = blanked.find(*uri);
  if (it == blanked.end())
    return false;
  auto entry = it->second.find(*version);
  if (entry == it->second.end())
    return false;
  (*params)["diagnostics"] = json::Array{std::move(entry->second)};
  it->second.erase(entry);
  if (it->second.empty())
    blanked.erase(it);
  return true;
}
