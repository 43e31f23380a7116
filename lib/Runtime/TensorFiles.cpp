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

#include "EnvParse.h"

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <string>

namespace {
using hp::runtime::failWith;

/// The file of `kind` (arg or result) `slot`, under $HP_TENSOR_DIR.
std::string tensorPath(const char *kind, int64_t slot) {
  const char *dir = std::getenv("HP_TENSOR_DIR");
  if (!dir || !*dir)
    failWith(std::string("HP_TENSOR_DIR is not set: this program's driver "
                         "reads its arguments and writes its results there "
                         "(hp.torch.run sets it)"));
  return std::string(dir) + "/" + kind + std::to_string(slot) + ".bin";
}

void checkBuffer(const char *call, int64_t ptr, int64_t bytes) {
  if (bytes < 0 || (bytes > 0 && ptr == 0))
    failWith(std::string(call) + ": invalid buffer (" + std::to_string(bytes) +
             " bytes)");
}
} // namespace

extern "C" {
/// Reads argument `slot` (exactly `bytes` bytes) into the buffer at `ptr`.
void hp_read_tensor(int64_t slot, int64_t ptr, int64_t bytes) {
  checkBuffer("hp_read_tensor", ptr, bytes);
  std::string path = tensorPath("arg", slot);
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    failWith("cannot open " + path + ": " + std::strerror(errno));
  size_t got = std::fread(reinterpret_cast<void *>(ptr), 1, bytes, f);
  bool longer = std::fgetc(f) != EOF;
  std::fclose(f);
  if (got != static_cast<size_t>(bytes) || longer)
    failWith(path + " does not hold the " + std::to_string(bytes) +
             " bytes of argument " + std::to_string(slot) +
             (longer ? " (it is longer)" : " (it is shorter)"));
}

/// Writes result `slot` from the buffer at `ptr` (rank 0 only: results are
/// replicated when the driver writes them).
void hp_write_tensor(int64_t slot, int64_t ptr, int64_t bytes) {
  checkBuffer("hp_write_tensor", ptr, bytes);
  if (hp::runtime::worldRank() != 0)
    return;
  std::string path = tensorPath("result", slot);
  std::string partial = path + ".part";
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
}
}
