//===- TensorFiles.cpp - a driver's arguments and results as files --------===//
//
// hp.torch's driver feeds a program real data (torch tensors) without
// embedding it in the IR: argument `slot` is $HP_TENSOR_DIR/arg<slot>.bin, or
// a range of another file (a checkpoint) that $HP_TENSOR_DIR/arg<slot>.ref
// names; rank 0 writes result `slot` to $HP_TENSOR_DIR/result<slot>.bin.
// Files hold the raw elements (host byte order) of the whole (global) tensor,
// row-major. A rank reads either the whole tensor or only its own block, whose
// offsets the driver computes from the layout model (dtensor-add-driver), so
// that no rank holds a whole split parameter.
//
//===----------------------------------------------------------------------===//

#include "TensorFiles.h"

#include "hp/Runtime/Runtime.h"

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
  std::string dir =
      callDirectory.empty() ? hp::runtime::tensorDirectory() : callDirectory;
  return dir + "/" + kind + std::to_string(slot) + HP_TENSOR_SUFFIX;
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

/// An argument's bytes: `fd` holds them from `base` on.
struct Source {
  int fd = -1;
  int64_t base = 0;
  std::string path;
  ~Source() {
    if (fd >= 0)
      ::close(fd);
  }
};

/// Opens `path` without blocking (a FIFO would wait for a writer forever);
/// anything but a regular file is refused.
int openRegular(const std::string &path, const std::string &holding,
                struct stat &st) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    failWith("cannot open " + path + ": " + std::strerror(errno));
  if (::fstat(fd, &st) != 0)
    failWith("cannot read " + path + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    failWith(path + " is " + fileKind(st.st_mode) +
             ", not a regular file holding " + holding);
  return fd;
}

/// Argument `slot`, which is `bytes` bytes: arg<slot>.bin of exactly that
/// size, else arg<slot>.ref, one line `<offset> <path>` naming where the
/// bytes start in another regular file (a safetensors checkpoint, read in
/// place).
void openArgument(int64_t slot, int64_t bytes, Source &src) {
  std::string what = "argument " + std::to_string(slot);
  std::string path = tensorPath(HP_ARGUMENT_PREFIX, slot);
  struct stat st;
  if (::access(path.c_str(), F_OK) != 0) {
    std::string ref =
        path.substr(0, path.size() - std::strlen(HP_TENSOR_SUFFIX)) +
        HP_REFERENCE_SUFFIX;
    if (::access(ref.c_str(), F_OK) == 0) {
      int fd = openRegular(ref, "a reference to " + what, st);
      // One short line: a larger file is not a reference.
      std::string text;
      char chunk[4096];
      for (ssize_t n; (n = ::read(fd, chunk, sizeof chunk)) != 0;) {
        if (n < 0 && errno == EINTR)
          continue;
        if (n < 0)
          failWith("cannot read " + ref + ": " + std::strerror(errno));
        text.append(chunk, n);
        if (text.size() > 65536)
          failWith(ref + " is longer than a reference ('<offset> <path>')");
      }
      ::close(fd);
      while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
        text.pop_back();
      size_t space = text.find(' ');
      int64_t offset = 0;
      if (space == std::string::npos || space + 1 >= text.size() ||
          text.find('\n') != std::string::npos ||
          !hp::runtime::parseInt(text.substr(0, space), 0, INT64_MAX, offset))
        failWith(ref + " must be one line '<offset> <path>' naming where " +
                 what + " starts, got '" + text + "'");
      src.path = text.substr(space + 1);
      // A relative path is relative to the reference's directory.
      if (src.path[0] != '/')
        src.path = ref.substr(0, ref.rfind('/') + 1) + src.path;
      src.base = offset;
      src.fd = openRegular(src.path, what + " (" + ref + ")", st);
      if (offset > st.st_size || st.st_size - offset < bytes)
        failWith(src.path + " ends before the " + std::to_string(bytes) +
                 " bytes of " + what + " at offset " + std::to_string(offset) +
                 " (" + ref + ")");
      return;
    }
  }
  src.path = path;
  src.fd = openRegular(path, what, st);
  if (st.st_size != bytes)
    failWith(path + " does not hold the " + std::to_string(bytes) +
             " bytes of " + what + " (it is " +
             (st.st_size > bytes ? "longer" : "shorter") + ")");
}

/// Reads `bytes` bytes at `offset` of `src` into `buffer`.
void readAt(const Source &src, char *buffer, int64_t bytes, int64_t offset) {
  for (int64_t done = 0; done < bytes;) {
    ssize_t n =
        ::pread(src.fd, buffer + done, bytes - done, src.base + offset + done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      failWith("cannot read " + src.path + ": " +
               (n < 0 ? std::strerror(errno) : "it ended early"));
    done += n;
  }
}
} // namespace

std::string hp::runtime::tensorDirectory() {
  const char *dir = std::getenv(HP_ENV_TENSOR_DIR);
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
  Source src;
  openArgument(slot, bytes, src);
  readAt(src, reinterpret_cast<char *>(ptr), bytes, 0);
  hp::runtime::watchdogStop();
}

/// Reads this rank's block of argument `slot`, a row-major tensor of
/// `rank` dims with `elementBytes`-byte elements, into the buffer at `ptr`
/// (the block, row-major). `dims` points to 3 * rank i64s: per dim, the
/// global size, the block's offset and its size.
void hp_read_tensor_block(int64_t slot, int64_t ptr, int64_t dims, int64_t rank,
                          int64_t elementBytes) {
  const char *call = "hp_read_tensor_block";
  if (rank < 0 || rank > 64 || elementBytes <= 0 || dims == 0)
    failWith(std::string(call) + ": invalid block description");
  const int64_t *d = reinterpret_cast<const int64_t *>(dims);
  int64_t whole = elementBytes, block = elementBytes;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t size = d[3 * i], offset = d[3 * i + 1], length = d[3 * i + 2];
    if (size < 0 || offset < 0 || length < 0 || offset > size ||
        length > size - offset)
      failWith(std::string(call) + ": the block of argument " +
               std::to_string(slot) + " leaves dim " + std::to_string(i) +
               " (offset " + std::to_string(offset) + ", size " +
               std::to_string(length) + " of " + std::to_string(size) + ")");
    if (__builtin_mul_overflow(whole, size, &whole) ||
        __builtin_mul_overflow(block, length, &block))
      failWith(std::string(call) + ": argument " + std::to_string(slot) +
               " is larger than 2^63 - 1 bytes");
  }
  checkBuffer(call, ptr, block);
  hp::runtime::watchdogStart(call, "is the file on a file system that "
                                   "stopped responding?");
  Source src;
  openArgument(slot, whole, src);
  if (block > 0) {
    // Row-major strides of the file, in bytes.
    int64_t strides[64];
    for (int64_t i = rank - 1, stride = elementBytes; i >= 0; --i) {
      strides[i] = stride;
      stride *= d[3 * i];
    }
    // The trailing dims the block holds whole and the last one it cuts
    // (`cut`) make one contiguous run; the dims before `cut` are walked.
    int64_t cut = rank - 1;
    while (cut >= 0 && d[3 * cut + 2] == d[3 * cut])
      --cut;
    int64_t run = cut >= 0 ? d[3 * cut + 2] * strides[cut] : whole;
    int64_t index[64] = {0};
    char *out = reinterpret_cast<char *>(ptr);
    for (int64_t done = 0; done < block; done += run) {
      int64_t at = cut >= 0 ? d[3 * cut + 1] * strides[cut] : 0;
      for (int64_t i = 0; i < cut; ++i)
        at += (d[3 * i + 1] + index[i]) * strides[i];
      readAt(src, out + done, run, at);
      for (int64_t i = cut - 1; i >= 0; --i) {
        if (++index[i] < d[3 * i + 2])
          break;
        index[i] = 0;
      }
    }
  }
  hp::runtime::watchdogStop();
}

/// Writes result `slot` from the buffer at `ptr` (rank 0 only: results are
/// replicated when the driver writes them).
void hp_write_tensor(int64_t slot, int64_t ptr, int64_t bytes) {
  checkBuffer("hp_write_tensor", ptr, bytes);
  if (hp::runtime::worldRank() != 0)
    return;
  std::string path = tensorPath(HP_RESULT_PREFIX, slot);
  std::string partial = path + HP_PARTIAL_SUFFIX;
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
