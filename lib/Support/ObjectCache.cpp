//===- ObjectCache.cpp - On-disk cache of compiled programs ---------------===//

#include "hp/Support/ObjectCache.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CachePruning.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <unistd.h>

using namespace llvm;

namespace hp {

namespace {

/// Hashes `text` after its length, so that no two sequences of fields hash
/// the same bytes.
void addField(SHA256 &hash, StringRef text) {
  uint64_t size = text.size();
  hash.update(
      ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(&size), sizeof size));
  hash.update(text);
}

void addField(SHA256 &hash, StringRef name, StringRef value) {
  addField(hash, name);
  addField(hash, value);
}

void addField(SHA256 &hash, StringRef name,
              const std::vector<std::string> &values) {
  addField(hash, name, std::to_string(values.size()));
  for (const std::string &value : values)
    addField(hash, value);
}

/// Entries carry pruneCache's prefix, which is what it considers; so do the
/// temporary files, so that a writer killed mid-write leaves nothing that
/// outlives the expiration.
constexpr StringLiteral kEntryPrefix = "llvmcache-hp-";
constexpr StringLiteral kTemporaryModel = "llvmcache-tmp-%%%%%%%%%%%%.o";
/// An entry: this line, the diagnostics' length in decimal and a newline,
/// the diagnostics, then the object.
constexpr StringLiteral kEntryMagic = "hp-object-cache 1\n";

Error environmentError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

} // namespace

std::string objectCacheKey(const ObjectCacheKeyParts &parts) {
  SHA256 hash;
  addField(hash, "hp object cache v1");
  addField(hash, "input", parts.input);
  addField(hash, "input name", parts.inputName);
  addField(hash, "options", parts.options);
  addField(hash, "target", parts.target);
  addField(hash, "chip", parts.chip);
  addField(hash, "triple", parts.triple);
  addField(hash, "cpu", parts.cpuName);
  addField(hash, "features", parts.cpuFeatures);
  addField(hash, "libraries", parts.libraries);
  addField(hash, "compiler", parts.compiler);
  return toHex(hash.final(), /*LowerCase=*/true);
}

std::string fileIdentity(StringRef path) {
  sys::fs::file_status status;
  if (sys::fs::status(path, status))
    return (path + " (missing)").str();
  std::string identity;
  raw_string_ostream os(identity);
  os << path << " " << status.getSize() << " "
     << status.getLastModificationTime().time_since_epoch().count();
  return identity;
}

Expected<std::optional<ObjectCacheSettings>> objectCacheSettings() {
  if (std::optional<std::string> on = sys::Process::GetEnv("HP_CACHE")) {
    std::string value = StringRef(*on).lower();
    if (value == "0" || value == "off" || value == "no")
      return std::nullopt;
    if (value != "1" && value != "on" && value != "yes")
      return environmentError("HP_CACHE must be 1, on, yes, 0, off or no, "
                              "not '" +
                              *on + "'");
  }
  ObjectCacheSettings settings;
  settings.maxBytes = uint64_t(2048) << 20;
  if (std::optional<std::string> megabytes =
          sys::Process::GetEnv("HP_CACHE_MAX_MB")) {
    uint64_t value = 0;
    if (StringRef(*megabytes).getAsInteger(10, value) || value == 0 ||
        value > (UINT64_MAX >> 20))
      return environmentError("HP_CACHE_MAX_MB must be a positive number "
                              "of megabytes, not '" +
                              *megabytes + "'");
    settings.maxBytes = value << 20;
  }
  if (std::optional<std::string> dir = sys::Process::GetEnv("HP_CACHE_DIR")) {
    if (dir->empty())
      return environmentError("HP_CACHE_DIR is empty: name a directory, or "
                              "set HP_CACHE=0 to compile without a cache");
    SmallString<256> absolute(*dir);
    sys::fs::make_absolute(absolute);
    settings.directory = std::string(absolute);
    return settings;
  }
  SmallString<256> dir;
  if (std::optional<std::string> xdg = sys::Process::GetEnv("XDG_CACHE_HOME");
      xdg && !xdg->empty()) {
    dir = *xdg;
  } else if (sys::path::home_directory(dir)) {
    sys::path::append(dir, ".cache");
  } else {
    return environmentError("no home directory for hp's cache: set "
                            "HP_CACHE_DIR, or HP_CACHE=0");
  }
  sys::path::append(dir, "hp", "objects");
  sys::fs::make_absolute(dir);
  settings.directory = std::string(dir);
  return settings;
}

Error checkObjectCacheDirectory(StringRef directory) {
  sys::fs::file_status status;
  if (std::error_code ec = sys::fs::status(directory, status))
    return ec == std::errc::no_such_file_or_directory
               ? Error::success()
               : createStringError(ec, "cannot inspect the cache directory " +
                                           directory + ": " + ec.message());
  if (!sys::fs::is_directory(status))
    return createStringError(inconvertibleErrorCode(),
                             "the cache directory " + directory +
                                 " is not a directory");
  if (status.getUser() != ::geteuid())
    return createStringError(inconvertibleErrorCode(),
                             "the cache directory " + directory +
                                 " belongs to another user");
  if (status.permissions() & (sys::fs::group_write | sys::fs::others_write))
    return createStringError(inconvertibleErrorCode(),
                             "the cache directory " + directory +
                                 " is writable by other users (chmod go-w)");
  return Error::success();
}

std::string objectCachePath(StringRef directory, StringRef key) {
  SmallString<256> path(directory);
  sys::path::append(path, kEntryPrefix + key + ".o");
  return std::string(path);
}

std::optional<CachedObject> lookupObject(StringRef directory, StringRef key) {
  std::string path = objectCachePath(directory, key);
  Expected<sys::fs::file_t> file = sys::fs::openNativeFileForRead(path);
  if (!file) {
    consumeError(file.takeError());
    return std::nullopt;
  }
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer = MemoryBuffer::getOpenFile(
      *file, path, /*FileSize=*/-1, /*RequiresNullTerminator=*/false);
  // Pruning goes by access time, which mounts with noatime never update.
  if (buffer)
    (void)sys::fs::setLastAccessAndModificationTime(
        *file, std::chrono::system_clock::now());
  sys::fs::closeFile(*file);
  if (!buffer)
    return std::nullopt;
  StringRef entry = (*buffer)->getBuffer();
  size_t length;
  if (!entry.consume_front(kEntryMagic) ||
      entry.consumeInteger(/*Radix=*/10, length) ||
      !entry.consume_front("\n") || entry.size() < length)
    return std::nullopt;
  CachedObject cached;
  cached.diagnostics = entry.take_front(length).str();
  cached.object =
      MemoryBuffer::getMemBufferCopy(entry.drop_front(length), path);
  return cached;
}

Expected<std::string> storeObject(const ObjectCacheSettings &settings,
                                  StringRef key, StringRef object,
                                  StringRef diagnostics) {
  if (std::error_code ec = sys::fs::create_directories(
          settings.directory, /*IgnoreExisting=*/true, sys::fs::owner_all))
    return createStringError(ec, "cannot create the cache directory " +
                                     settings.directory + ": " + ec.message());
  CachePruningPolicy policy;
  policy.MaxSizeBytes = settings.maxBytes;
  policy.Interval = settings.pruneInterval;
  pruneCache(settings.directory, policy);

  SmallString<256> model(settings.directory);
  sys::path::append(model, kTemporaryModel);
  SmallString<256> temporary;
  int fd;
  if (std::error_code ec = sys::fs::createUniqueFile(model, fd, temporary))
    return createStringError(ec, "cannot write in the cache directory " +
                                     settings.directory + ": " + ec.message());
  // Interrupted mid-write, the job leaves no temporary behind.
  sys::RemoveFileOnSignal(temporary);
  auto discard = [&] {
    sys::fs::remove(temporary);
    sys::DontRemoveFileOnSignal(temporary);
  };
  {
    raw_fd_ostream out(fd, /*shouldClose=*/true);
    out << kEntryMagic << diagnostics.size() << "\n" << diagnostics << object;
    out.close();
    if (out.has_error()) {
      std::error_code ec = out.error();
      out.clear_error();
      discard();
      return createStringError(ec, "cannot write " + temporary + ": " +
                                       ec.message());
    }
  }
  std::string path = objectCachePath(settings.directory, key);
  if (std::error_code ec = sys::fs::rename(temporary, path)) {
    discard();
    return createStringError(ec, "cannot rename " + temporary + " to " + path +
                                     ": " + ec.message());
  }
  sys::DontRemoveFileOnSignal(temporary);
  return path;
}

} // namespace hp
