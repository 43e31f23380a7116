//===- PrintUtils.cpp - vector.print's runtime calls, standalone ----------===//
//
// The functions `vector.print` lowers to, for ahead-of-time executables that
// run where LLVM is not installed: Debian's libmlir_c_runner_utils pulls in
// libMLIR and libLLVM (hundreds of MiB). Output matches upstream's: %g for
// floats, decimal integers, strings as they are.
//
//===----------------------------------------------------------------------===//

#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>

namespace {
void printFloat(double value) {
  // printf prints a negative NaN as "nan"; upstream keeps the sign.
  if (std::isnan(value) && std::signbit(value))
    std::fputs("-nan", stdout);
  else
    std::printf("%g", value);
}
} // namespace

extern "C" {
void printF32(float value) { printFloat(value); }
void printF64(double value) { printFloat(value); }
void printI64(int64_t value) { std::printf("%" PRId64, value); }
void printU64(uint64_t value) { std::printf("%" PRIu64, value); }
void printString(const char *text) { std::fputs(text, stdout); }
void printOpen() { std::fputs("( ", stdout); }
void printClose() { std::fputs(" )", stdout); }
void printComma() { std::fputs(", ", stdout); }
void printNewline() { std::fputc('\n', stdout); }
}
