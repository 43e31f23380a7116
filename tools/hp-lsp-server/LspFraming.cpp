//===- LspFraming.cpp - bounded, resynchronising LSP message framing ------===//

#include "LspFraming.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <cerrno>
#include <unistd.h>

using namespace hp::lsp;

static constexpr llvm::StringLiteral kContentLength = "Content-Length:";
static constexpr size_t kReadChunk = 1 << 16;

/// Header text quoted in an error: printable ASCII only (the input may be
/// any bytes, a JSON string must be UTF-8), and short.
static std::string quote(llvm::StringRef text) {
  std::string out = "'";
  for (char c : text.take_front(40))
    out += llvm::isPrint(c) ? c : '?';
  return out + (text.size() > 40 ? "...'" : "'");
}

bool hp::lsp::writeAll(int fd, llvm::StringRef data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    data = data.drop_front(n);
  }
  return true;
}

bool FramedWriter::write(llvm::StringRef body) {
  std::string message =
      ("Content-Length: " + llvm::Twine(body.size()) + "\r\n\r\n").str();
  message += body;
  std::lock_guard<std::mutex> lock(mutex);
  return writeAll(fd, message);
}

bool FramedReader::fill() {
  size_t consumed = inHeaders ? blockStart : begin;
  buffer.erase(buffer.begin(), buffer.begin() + consumed);
  begin -= consumed;
  blockStart -= consumed;
  size_t old = buffer.size();
  buffer.resize(old + kReadChunk);
  ssize_t n;
  do {
    n = ::read(fd, buffer.data() + old, kReadChunk);
  } while (n < 0 && errno == EINTR);
  buffer.resize(old + std::max<ssize_t>(n, 0));
  return n > 0;
}

bool FramedReader::readLine(std::string &line, bool &tooLong) {
  while (true) {
    llvm::StringRef pending(buffer.data() + begin, buffer.size() - begin);
    size_t newline = pending.find('\n');
    if (newline != llvm::StringRef::npos && newline > kMaxHeaderLineBytes) {
      tooLong = true;
      return true;
    }
    if (newline != llvm::StringRef::npos) {
      line = pending.take_front(newline).rtrim('\r').str();
      begin += newline + 1;
      return true;
    }
    if (pending.size() > kMaxHeaderLineBytes) {
      tooLong = true;
      return true;
    }
    if (!fill())
      return false;
  }
}

bool FramedReader::resynchronise() {
  while (true) {
    llvm::StringRef pending(buffer.data() + begin, buffer.size() - begin);
    size_t found = pending.find(kContentLength);
    if (found != llvm::StringRef::npos) {
      begin += found;
      needResync = false;
      return true;
    }
    // Keep a tail that may be the start of a header split across reads.
    if (pending.size() >= kContentLength.size())
      begin += pending.size() - (kContentLength.size() - 1);
    if (!fill())
      return false;
  }
}

FramedReader::Result FramedReader::error(std::string message) {
  begin = std::min(blockStart + resumeOffset, buffer.size());
  inHeaders = false;
  needResync = true;
  return {Status::Error, "", std::move(message)};
}

FramedReader::Result FramedReader::next() {
  if (needResync && !resynchronise())
    return {Status::End, "", ""};
  bool sawHeader = false;
  std::optional<uint64_t> length;
  inHeaders = true;
  for (size_t headerLines = 0;;) {
    if (!sawHeader) {
      blockStart = begin;
      resumeOffset = 1;
    }
    std::string line;
    bool tooLong = false;
    if (!readLine(line, tooLong))
      return {Status::End, "", ""};
    if (tooLong)
      return error(("a header line is longer than " +
                    llvm::Twine(kMaxHeaderLineBytes) + " bytes")
                       .str());
    if (line.empty()) {
      if (!sawHeader)
        continue; // blank lines between messages
      break;
    }
    if (++headerLines > kMaxHeaderLines)
      return error(
          ("more than " + llvm::Twine(kMaxHeaderLines) + " header lines")
              .str());
    sawHeader = true;
    auto [name, value] = llvm::StringRef(line).split(':');
    bool isToken = !name.empty() && llvm::all_of(name, [](char c) {
      return llvm::isAlnum(c) || llvm::StringRef("-_.!#$%&'*+^`|~").contains(c);
    });
    if (!isToken || name.size() == line.size())
      return error("malformed header line " + quote(line) +
                   " (expected 'Name: value')");
    if (!name.equals_insensitive("Content-Length"))
      continue;
    resumeOffset = begin - blockStart;
    value = value.trim(" \t");
    uint64_t parsed;
    if (value.empty() || !llvm::all_of(value, llvm::isDigit) ||
        value.getAsInteger(10, parsed))
      return error("Content-Length " + quote(value) + " is not a byte count");
    length = parsed;
  }
  if (!length)
    return error("a message without a Content-Length header");
  if (*length > kMaxMessageBytes)
    return error(("a message of " + llvm::Twine(*length) +
                  " bytes is larger than the limit of " +
                  llvm::Twine(kMaxMessageBytes >> 20) + " MiB")
                     .str());
  inHeaders = false;

  Result result{Status::Message, "", ""};
  size_t buffered = std::min<size_t>(*length, buffer.size() - begin);
  result.body.assign(buffer.data() + begin, buffered);
  begin += buffered;
  result.body.resize(*length);
  for (size_t pos = buffered; pos < *length;) {
    ssize_t n = ::read(fd, result.body.data() + pos, *length - pos);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return {Status::End, "", ""};
    pos += n;
  }
  return result;
}

bool DelimitedReader::readLine(std::string &line) {
  line.clear();
  while (true) {
    llvm::StringRef pending(buffer.data() + begin, buffer.size() - begin);
    size_t newline = pending.find('\n');
    llvm::StringRef part = pending.take_front(newline);
    // A line beyond the message bound is kept only up to it: the caller
    // refuses the message either way.
    if (line.size() <= kMaxMessageBytes)
      line.append(part.take_front(kMaxMessageBytes + 1 - line.size()).str());
    if (newline != llvm::StringRef::npos) {
      begin += newline + 1;
      if (!line.empty() && line.back() == '\r')
        line.pop_back();
      return true;
    }
    begin = buffer.size();
    if (atEnd)
      return !line.empty();
    buffer.erase(buffer.begin(), buffer.begin() + begin);
    begin = 0;
    size_t old = buffer.size();
    buffer.resize(old + kReadChunk);
    ssize_t n;
    do {
      n = ::read(fd, buffer.data() + old, kReadChunk);
    } while (n < 0 && errno == EINTR);
    buffer.resize(old + std::max<ssize_t>(n, 0));
    atEnd = n <= 0;
  }
}

DelimitedReader::Result DelimitedReader::next() {
  std::string body, line;
  bool tooLarge = false;
  while (true) {
    bool more = readLine(line);
    llvm::StringRef trimmed = llvm::StringRef(line).trim();
    bool delimiter = more && trimmed == "// -----";
    if (more && !delimiter && !trimmed.starts_with("//") && !tooLarge) {
      body += line;
      tooLarge = body.size() > kMaxMessageBytes;
    }
    if (more && !delimiter)
      continue;
    if (tooLarge)
      return {Status::Error, "",
              ("a message larger than the limit of " +
               llvm::Twine(kMaxMessageBytes >> 20) + " MiB")
                  .str()};
    if (!llvm::StringRef(body).trim().empty())
      return {Status::Message, std::move(body), ""};
    if (!more)
      return {Status::End, "", ""};
    body.clear();
  }
}
