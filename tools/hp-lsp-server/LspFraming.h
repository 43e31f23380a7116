//===- LspFraming.h - bounded, resynchronising LSP message framing -*- C++ -*-//
//
// The base protocol of LSP: `Name: value` header lines, a blank line, then a
// body of exactly Content-Length bytes. Upstream's reader trusts the framing
// (a garbled header leaves it waiting forever, a huge Content-Length is
// allocated); this reader bounds every line and body, reports what is wrong
// and resynchronises on the next `Content-Length:` so that one bad message
// does not end the session.
//
//===----------------------------------------------------------------------===//

#ifndef HP_TOOLS_HPLSPSERVER_LSPFRAMING_H
#define HP_TOOLS_HPLSPSERVER_LSPFRAMING_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace hp::lsp {

/// The largest message body hp-lsp-server accepts (docs/Editors.md).
inline constexpr uint64_t kMaxMessageBytes = uint64_t(64) << 20;
/// The longest header line and the most header lines of one message; real
/// clients send one or two lines of a few dozen bytes.
inline constexpr size_t kMaxHeaderLineBytes = 4096;
inline constexpr size_t kMaxHeaderLines = 64;

/// JSON-RPC 2.0 error codes.
enum ErrorCode : int { ParseError = -32700, InvalidRequest = -32600 };

/// Reads framed messages from a file descriptor.
class FramedReader {
public:
  explicit FramedReader(int fd) : fd(fd) {}

  enum class Status { Message, Error, End };
  struct Result {
    Status status;
    std::string body;  ///< the message body (Status::Message)
    std::string error; ///< what was wrong with the framing (Status::Error)
  };

  /// The next message, a framing error, or the end of the input. After an
  /// error the reader skips to the next `Content-Length:` past the failed
  /// block's last Content-Length line, or past its start when it has none
  /// (so a header glued to garbage is still found).
  Result next();

private:
  /// Reads more input into the buffer; false at the end or on an error.
  bool fill();
  /// One header line without its line ending; false at the end of input.
  /// `tooLong` is set when the line exceeds kMaxHeaderLineBytes.
  bool readLine(std::string &line, bool &tooLong);
  /// Discards input up to the next `Content-Length:`; false at the end.
  bool resynchronise();
  Result error(std::string message);

  int fd;
  std::vector<char> buffer;
  size_t begin = 0;        ///< first unconsumed byte of `buffer`
  size_t blockStart = 0;   ///< start of the current header block in `buffer`
  size_t resumeOffset = 1; ///< where to resynchronise, from blockStart
  bool inHeaders = false;  ///< `fill` keeps the header block from blockStart
  bool needResync = false;
};

/// Reads the `--lit-test` (`--input-style=delimited`) format from a file
/// descriptor as upstream's transport does: JSON bodies separated by lines
/// that read `// -----`; other lines starting with `//` are comments. Each
/// body is bounded by kMaxMessageBytes; blank bodies are skipped.
class DelimitedReader {
public:
  explicit DelimitedReader(int fd) : fd(fd) {}
  using Result = FramedReader::Result;
  using Status = FramedReader::Status;

  /// The next body, an error (a body over the limit, skipped to the next
  /// delimiter), or the end of the input.
  Result next();

  /// What separates bodies when they are forwarded in this format.
  static constexpr llvm::StringLiteral kDelimiter = "\n// -----\n";

private:
  /// One line without its ending into `line`, at most kMaxMessageBytes + 1
  /// bytes of it; false at the end of the input.
  bool readLine(std::string &line);

  int fd;
  std::vector<char> buffer;
  size_t begin = 0;
  bool atEnd = false;
};

/// Writes framed messages to a file descriptor, each one whole: the filter's
/// error responses and the server's output share the client's stdout.
class FramedWriter {
public:
  explicit FramedWriter(int fd) : fd(fd) {}
  /// Writes `Content-Length: N\r\n\r\n` and the body; false if the client is
  /// gone.
  bool write(llvm::StringRef body);

private:
  int fd;
  std::mutex mutex;
};

/// Writes all of `data` to `fd`, retrying short writes; false on an error.
bool writeAll(int fd, llvm::StringRef data);

} // namespace hp::lsp

#endif // HP_TOOLS_HPLSPSERVER_LSPFRAMING_H
