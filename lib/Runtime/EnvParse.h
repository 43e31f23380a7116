//===- EnvParse.h - checked parsing of the runtime environment --*- C++ -*-===//
//
// The runtime reads ranks, world sizes, grid shapes and a timeout from the
// environment. atoi and unchecked strtoll turn a malformed or overflowing
// value into 0 or a wrapped number that then runs the job on a wrong shape;
// these helpers accept a value only if all of it is a number in range.
//
//===----------------------------------------------------------------------===//

#ifndef HP_RUNTIME_ENVPARSE_H
#define HP_RUNTIME_ENVPARSE_H

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace hp::runtime {

/// Prints `hp: <message>` and ends the job (MPI_Abort once MPI is up).
/// Defined in Job.cpp (libhp_runtime_host).
[[noreturn]] void failWith(const std::string &message);

/// This process's rank in the job and the job's size, from the launcher's
/// variables (0 and 1 when not launched by one); a malformed variable ends
/// the job naming it. Defined in Job.cpp.
int worldRank();
int worldSize();

/// The most ranks a job can have: NCCL ranks and counts are 32-bit.
constexpr int64_t kMaxRanks = INT32_MAX;

/// Parses all of `text` as a decimal integer in [min, max]. Leading blanks,
/// signs other than a single '-', trailing text and overflow are refused.
inline bool parseInt(const std::string &text, int64_t min, int64_t max,
                     int64_t &value) {
  if (text.empty() || !(text[0] == '-' || (text[0] >= '0' && text[0] <= '9')))
    return false;
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno == ERANGE || *end != '\0' || v < min || v > max)
    return false;
  value = v;
  return true;
}

/// Parses `text` as a grid shape `AxBx...` of positive sizes. Their product
/// may still overflow: the caller bounds it.
inline bool parseShape(const std::string &text, std::vector<int64_t> &shape) {
  shape.clear();
  size_t start = 0;
  for (;;) {
    size_t stop = text.find('x', start);
    int64_t size;
    if (!parseInt(text.substr(start, stop - start), 1, INT64_MAX, size))
      return false;
    shape.push_back(size);
    if (stop == std::string::npos)
      return true;
    start = stop + 1;
  }
}

/// The product of `shape` (the device count of a grid), or -1 if a size is
/// negative or the product exceeds kMaxRanks: a product that wrapped around
/// could otherwise equal the world size.
inline int64_t deviceCount(const std::vector<int64_t> &shape) {
  int64_t product = 1;
  for (int64_t s : shape) {
    if (s < 0 || (s > 0 && product > kMaxRanks / s))
      return -1;
    product *= s;
  }
  return product;
}

/// Parses `text` as a plain decimal number of seconds in (0, max]: digits
/// with an optional fraction (`2`, `2.5`), nothing else. Blanks, signs,
/// exponents, hexadecimal and words like `inf` are refused, as parseInt
/// refuses them.
inline bool parseSeconds(const char *text, double max, double &seconds) {
  const char *p = text;
  while (*p >= '0' && *p <= '9')
    ++p;
  if (p == text)
    return false;
  if (*p == '.') {
    const char *fraction = ++p;
    while (*p >= '0' && *p <= '9')
      ++p;
    if (p == fraction)
      return false;
  }
  if (*p != '\0')
    return false;
  errno = 0;
  double t = std::strtod(text, nullptr);
  if (errno == ERANGE || !std::isfinite(t) || !(t > 0) || t > max)
    return false;
  seconds = t;
  return true;
}

} // namespace hp::runtime

#endif // HP_RUNTIME_ENVPARSE_H
