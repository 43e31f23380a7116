//===- TensorFiles.cpp - a driver's arguments and results as files --------===//
//
// hp.torch's driver feeds a program real data (torch tensors) without
// embedding it in the IR: every rank reads argument `slot` from
// $HP_TENSOR_DIR/arg<slot>.bin, and rank 0 writes result `slot` to
// $HP_TENSOR_DIR/result<slot>.bin. Files hold the raw elements (host byte order)
// of the whole (global) tensor, row-major; the driver takes each rank's piece
// with hp's own redistribute, so the layout math stays in one place.
//
//===----------------------------------------------------------------------===//

#include "TensorFiles.h"

#include "EnvParse.h"
#include "Watchdog.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace {
using hp::runtime::failWith;

/// A session's current call directory, else empty.
std::string callDirectory;

/// The file of `kind` (arg or result) `slot`, under $HP_TENSOR_DIR or the
/// session's current call directory.
std::string tensorPath(const char *kind, int64_t slot) {
  std::string dir = callDirectory.empty() ? hp::runtime::tensorDirectory()
                                          : callDirectory;
  return dir + "/" + kind + std::to_string(slot) + ".bin";
}

void checkBuffer(const char *call, int64_t ptr, int64_t bytes) {
  if (bytes < 0 || (bytes > 0 && ptr == 0))
    failWith(std::string(call) + ": invalid buffer (" + std::to_string(bytes) +
             " bytes)");
}

/// What `mode` is, for a file that is not regular.
const char *fileKind(mode_t mode) {
  if (S_ISDIR(mode))
    return "a directory";
  if (S_ISFIFO(mode))
    return "a FIFO";
  if (S_ISSOCK(mode))
    return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode))
    return "a device";
  return "not a regular file";
}

/// Reads argument `slot`, a regular file of exactly `bytes` bytes, into
/// `buffer`. Opening does not block (a FIFO would wait for a writer
/// forever) and anything but a regular file is refused; the caller times
/// the whole read.
void readArgument(int64_t slot, char *buffer, int64_t bytes) {
  std::string path = tensorPath("arg", slot);
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    failWith("cannot open " + path + ": " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0)
    failWith("cannot read " + path + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    failWith(path + " is " + fileKind(st.st_mode) +
             ", not a regular file holding argument " + std::to_string(slot));
  if (st.st_size != bytes)
    failWith(path + " does not hold the " + std::to_string(bytes) +
             " bytes of argument " + std::to_string(slot) + " (it is " +
             (st.st_size > bytes ? "longer" : "shorter") + ")");
  for (int64_t done = 0; done < bytes;) {
    ssize_t n = ::read(fd, buffer + done, bytes - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      failWith("cannot read " + path + ": " +
               (n < 0 ? std::strerror(errno) : "it ended early"));
    done += n;
  }
  ::close(fd);
}
} // namespace

std::string hp::runtime::tensorDirectory() {
  const char *dir = std::getenv("HP_TENSOR_DIR");
  if (!dir || !*dir)
    failWith(std::string("HP_TENSOR_DIR is not set: this program's driver "
                         "reads its arguments and writes its results there "
                         "(hp.torch.run sets it)"));
  return dir;
}

void hp::runtime::setCallDirectory(std::string directory) {
  callDirectory = std::move(directory);
}

extern "C" {
/// Reads argument `slot` (exactly `bytes` bytes) into the buffer at `ptr`.
void hp_read_tensor(int64_t slot, int64_t ptr, int64_t bytes) {
  checkBuffer("hp_read_tensor", ptr, bytes);
  hp::runtime::watchdogStart("hp_read_tensor",
                             "is the file on a file system that stopped "
                             "responding?");
  readArgument(slot, reinterpret_cast<char *>(ptr), bytes);
  hp::runtime::watchdogStop();
}

/// Writes result `slot` from the buffer at `ptr` (rank 0 only: results are
/// replicated when the driver writes them).
void hp_write_tensor(int64_t slot, int64_t ptr, int64_t bytes) {
  checkBuffer("hp_write_tensor", ptr, bytes);
  if (hp::runtime::worldRank() != 0)
    return;
  std::string path = tensorPath("result", slot);
  std::string partial = path + ".part";
  // A stalled file system must not hang the job either.
  hp::runtime::watchdogStart("hp_write_tensor",
                             "is the directory on a file system that "
                             "stopped responding?");
  std::FILE *f = std::fopen(partial.c_str(), "wb");
  if (!f)
    failWith("cannot create " + partial + ": " + std::strerror(errno));
  size_t put = std::fwrite(reinterpret_cast<const void *>(ptr), 1, bytes, f);
  if (std::fclose(f) != 0 || put != static_cast<size_t>(bytes))
    failWith("cannot write " + partial + ": " + std::strerror(errno));
  // Readers never see half a file.
  if (std::rename(partial.c_str(), path.c_str()) != 0)
    failWith("cannot rename " + partial + " to " + path + ": " +
             std::strerror(errno));
  hp::runtime::watchdogStop();
}
}
