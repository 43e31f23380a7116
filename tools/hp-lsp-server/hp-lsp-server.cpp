//===- hp-lsp-server.cpp - MLIR language server with hp's dialects --------===//
//
// Upstream's mlir-lsp-server with the dtensor and nccl dialects registered,
// so that editors show hp diagnostics (verifier errors, contract warnings),
// hovers and go-to-definition in .mlir files. docs/Editors.md says how to
// point VS Code's MLIR extension at it.
//
// Upstream's server trusts its input: a garbled header leaves it silent, a
// message without "jsonrpc": "2.0" ends it without a word, deep JSON or a
// deeply nested document overflows its stack. So it runs behind a filter:
// one thread reads the client, refuses what is malformed with a JSON-RPC
// error response and forwards the rest through a pipe that replaces the
// server's stdin; a second thread relays the server's stdout to the client,
// whole message by whole message, so that the two writers never interleave.
//
//===----------------------------------------------------------------------===//

#include "LspDocumentGuard.h"
#include "LspFraming.h"

#include "hp/InitAllDialects.h"
#include "hp/Support/NestingDepth.h"
#include "hp/Version.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Tools/mlir-lsp-server/MlirLspServerMain.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/LSP/Protocol.h"
#include "llvm/Support/raw_ostream.h"

#include <fcntl.h>
#include <thread>
#include <type_traits>
#include <unistd.h>

using namespace hp::lsp;
namespace json = llvm::json;

namespace {
/// Why a message is refused, and the id to answer it with.
struct Refusal {
  int code;
  std::string message;
  json::Value id = nullptr;
};
} // namespace

static std::string errorResponse(int code, llvm::StringRef message,
                                 json::Value id = nullptr) {
  json::Value response = json::Object{
      {"jsonrpc", "2.0"},
      {"id", std::move(id)},
      {"error", json::Object{{"code", code}, {"message", message}}}};
  return llvm::formatv("{0}", response).str();
}

/// Checks what upstream's transport assumes of a message body (JSON of
/// bounded depth, a JSON-RPC 2.0 request, notification or response) and
/// parses it into `object`.
static std::optional<Refusal> checkMessage(llvm::StringRef body,
                                           json::Object &object) {
  if (std::optional<hp::NestingViolation> violation =
          hp::findExcessiveJSONNesting(body))
    return Refusal{ParseError,
                   llvm::formatv("the message nests deeper than {0} arrays "
                                 "and objects (line {1}, column {2})",
                                 violation->depth - 1, violation->line,
                                 violation->column)};
  llvm::Expected<json::Value> parsed = json::parse(body);
  if (!parsed)
    return Refusal{ParseError,
                   "the message is not JSON: " + toString(parsed.takeError())};
  json::Object *message = parsed->getAsObject();
  if (!message)
    return Refusal{InvalidRequest, "a JSON-RPC message must be an object"};
  // An id the response could not repeat as JSON-RPC (an object, a
  // fraction, or a number beyond 64 bits that parsed as an infinity) is
  // refused and answered with id null.
  json::Value id = nullptr;
  if (const json::Value *given = message->get("id")) {
    if (given->kind() != json::Value::String &&
        given->kind() != json::Value::Null && !given->getAsInteger() &&
        !given->getAsUINT64())
      return Refusal{InvalidRequest, "the id must be a string or an integer"};
    id = *given;
  }
  if (message->getString("jsonrpc") != llvm::StringRef("2.0"))
    return Refusal{InvalidRequest, "the message lacks \"jsonrpc\": \"2.0\"",
                   std::move(id)};
  if (const json::Value *method = message->get("method")) {
    if (!method->getAsString())
      return Refusal{InvalidRequest, "the method must be a string",
                     std::move(id)};
  } else if (!message->get("id")) {
    return Refusal{InvalidRequest,
                   "the message has neither a method nor an id"};
  }
  object = std::move(*message);
  return std::nullopt;
}

/// Reads the client until its input ends: answers malformed messages itself,
/// forwards the others to the server in the format it reads (LSP framing,
/// or `// -----` delimiters under --lit-test), then closes the server's
/// input.
template <typename Reader>
static void runFilter(int clientIn, int serverIn, FramedWriter &client,
                      DocumentGuard &guard) {
  Reader reader(clientIn);
  while (true) {
    FramedReader::Result result = reader.next();
    if (result.status == FramedReader::Status::End)
      break;
    if (result.status == FramedReader::Status::Error) {
      if (!client.write(errorResponse(ParseError, result.error)))
        break;
      continue;
    }
    json::Object message;
    if (std::optional<Refusal> refusal = checkMessage(result.body, message)) {
      if (!client.write(errorResponse(refusal->code, refusal->message,
                                      std::move(refusal->id))))
        break;
      continue;
    }
    std::string body = std::move(result.body);
    if (std::optional<llvm::StringRef> method = message.getString("method")) {
      DocumentGuard::Action action =
          guard.rewriteClientMessage(*method, message);
      if (action == DocumentGuard::Action::Drop)
        continue;
      if (action == DocumentGuard::Action::ForwardRewritten)
        body = llvm::formatv("{0}", json::Value(std::move(message))).str();
    }
    bool delimited = std::is_same_v<Reader, DelimitedReader>;
    std::string header =
        delimited
            ? ""
            : llvm::formatv("Content-Length: {0}\r\n\r\n", body.size()).str();
    if (!writeAll(serverIn, header) || !writeAll(serverIn, body) ||
        (delimited && !writeAll(serverIn, DelimitedReader::kDelimiter)))
      break;
  }
  ::close(serverIn);
}

/// Relays the server's messages to the client until the server's output
/// ends.
static void runRelay(int serverOut, FramedWriter &client,
                     DocumentGuard &guard) {
  FramedReader reader(serverOut);
  while (true) {
    FramedReader::Result result = reader.next();
    if (result.status == FramedReader::Status::End)
      return;
    if (result.status == FramedReader::Status::Error)
      continue; // the server only writes framed JSON
    if (guard.mayRewriteServerMessage(result.body)) {
      llvm::Expected<json::Value> parsed = json::parse(result.body);
      if (!parsed)
        llvm::consumeError(parsed.takeError());
      else if (json::Object *message = parsed->getAsObject();
               message && guard.rewriteServerMessage(*message))
        result.body = llvm::formatv("{0}", *parsed).str();
    }
    client.write(result.body);
  }
}

/// How the server reads its input, from its command line.
enum class InputMode {
  Framed,    ///< LSP framing, the default
  Delimited, ///< --lit-test or --input-style=delimited: upstream's test
             ///< format, filtered the same way
  NoInput    ///< --help and --version print and exit: no filter
};

static InputMode inputMode(int argc, char **argv) {
  InputMode mode = InputMode::Framed;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (!arg.consume_front("-"))
      continue;
    arg.consume_front("-");
    auto [name, value] = arg.split('=');
    if (name.starts_with("help") || name == "version")
      return InputMode::NoInput;
    if (name == "lit-test" && value != "false" && value != "0")
      mode = InputMode::Delimited;
    if (name == "input-style" && value.empty() && i + 1 < argc)
      value = argv[i + 1];
    if (name == "input-style")
      mode = value == "delimited" ? InputMode::Delimited : InputMode::Framed;
  }
  return mode;
}

/// A pipe whose ends are not inherited by anything the server starts.
static bool makePipe(int fds[2]) { return ::pipe2(fds, O_CLOEXEC) == 0; }

int main(int argc, char **argv) {
  hp::addVersionPrinter();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  hp::registerAllHPDialects(registry);
  InputMode mode = inputMode(argc, argv);
  if (mode == InputMode::NoInput)
    return mlir::failed(mlir::MlirLspServerMain(argc, argv, registry));

  // The filter parses mlir: URIs too; register the scheme (as the server
  // will) before any thread reads the scheme table.
  llvm::lsp::URIForFile::registerSupportedScheme("mlir");
  int toServer[2], fromServer[2];
  int clientIn = ::fcntl(0, F_DUPFD_CLOEXEC, 3);
  int clientOut = ::fcntl(1, F_DUPFD_CLOEXEC, 3);
  if (clientIn < 0 || clientOut < 0 || !makePipe(toServer) ||
      !makePipe(fromServer) || ::dup2(toServer[0], 0) < 0 ||
      ::dup2(fromServer[1], 1) < 0) {
    llvm::errs() << "hp-lsp-server: cannot set up its input filter\n";
    return EXIT_FAILURE;
  }
  ::close(toServer[0]);
  ::close(fromServer[1]);

  FramedWriter client(clientOut);
  DocumentGuard guard;
  // The filter may block reading the client after the server has exited on
  // `exit`; it is not joined. So that it never outlives what it uses (client
  // and guard here, the URI scheme table and LLVM's other statics), main
  // does not return: the process ends with _exit below.
  std::thread(mode == InputMode::Delimited ? runFilter<DelimitedReader>
                                           : runFilter<FramedReader>,
              clientIn, toServer[1], std::ref(client), std::ref(guard))
      .detach();
  std::thread relay(runRelay, fromServer[0], std::ref(client), std::ref(guard));
  bool ok = mlir::succeeded(mlir::MlirLspServerMain(argc, argv, registry));
  // Closing the server's stdout ends the relay once it has passed on all.
  llvm::outs().flush();
  ::close(1);
  relay.join();
  llvm::errs().flush();
  ::_exit(ok ? EXIT_SUCCESS : EXIT_FAILURE);
}
