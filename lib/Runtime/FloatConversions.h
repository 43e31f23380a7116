//===- FloatConversions.h - 8- and 16-bit floats <-> float ------*- C++ -*-===//
//
// The host NCCL library reduces f16, bf16, f8E4M3FN and f8E5M2 buffers by
// widening to float, as NCCL does on GPUs. Round to nearest even on the way
// back; NaN and infinities are preserved where the format has them.
//
//===----------------------------------------------------------------------===//

#ifndef HP_RUNTIME_FLOATCONVERSIONS_H
#define HP_RUNTIME_FLOATCONVERSIONS_H

#include <cmath>
#include <cstdint>
#include <cstring>

namespace hp::runtime {

inline float bitsToFloat(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
inline uint32_t floatToBits(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  return bits;
}

inline float bf16ToFloat(uint16_t h) { return bitsToFloat(uint32_t(h) << 16); }
inline uint16_t floatToBf16(float f) {
  uint32_t bits = floatToBits(f);
  if (std::isnan(f))
    return uint16_t((bits >> 16) | 0x40);
  bits += 0x7fff + ((bits >> 16) & 1); // round to nearest even
  return uint16_t(bits >> 16);
}

/// A small float format with `E` exponent and `M` mantissa bits.
template <int E, int M> struct MiniFloat {
  static constexpr int bias = (1 << (E - 1)) - 1;
  static float decode(uint32_t v, bool hasInf, uint32_t nanMask) {
    uint32_t sign = v >> (E + M), exp = (v >> M) & ((1u << E) - 1),
             man = v & ((1u << M) - 1);
    float s = sign ? -1.0f : 1.0f;
    if (hasInf && exp == (1u << E) - 1)
      return man ? NAN : s * INFINITY;
    if (!hasInf && (v & nanMask) == nanMask)
      return NAN;
    if (exp == 0)
      return s * std::ldexp(float(man), 1 - bias - M);
    return s * std::ldexp(float(man | (1u << M)), int(exp) - bias - M);
  }
  /// Largest finite magnitude, and the code to saturate/overflow to.
  static uint32_t encode(float f, bool hasInf, uint32_t nanCode,
                         float maxFinite, uint32_t maxCode) {
    uint32_t sign = std::signbit(f) ? 1u << (E + M) : 0;
    if (std::isnan(f))
      return nanCode;
    float a = std::fabs(f);
    if (a > maxFinite) // overflow: infinity where there is one, else NaN
      return hasInf ? sign | (((1u << E) - 1) << M) : nanCode;
    if (a == 0)
      return sign;
    int exp;
    std::frexp(a, &exp); // a = m * 2^exp, m in [0.5, 1)
    int e = exp - 1 + bias;
    float scaled;
    uint32_t code;
    if (e <= 0) { // subnormal
      scaled = std::ldexp(a, bias - 1 + M);
      code = uint32_t(std::nearbyint(scaled));
    } else {
      scaled = std::ldexp(a, M - (exp - 1)) - float(1u << M);
      uint32_t man = uint32_t(std::nearbyint(scaled));
      code = (uint32_t(e) << M) + man; // a mantissa carry bumps the exponent
    }
    if (code > maxCode)
      code = hasInf ? ((1u << E) - 1) << M : nanCode;
    return sign | code;
  }
};

inline float halfToFloat(uint16_t h) {
  return MiniFloat<5, 10>::decode(h, /*hasInf=*/true, 0);
}
inline uint16_t floatToHalf(float f) {
  return uint16_t(MiniFloat<5, 10>::encode(f, true, 0x7e00, 65504.0f, 0x7bff));
}
// f8E4M3FN: no infinities, NaN is S.1111.111, max 448.
inline float e4m3ToFloat(uint8_t v) {
  return MiniFloat<4, 3>::decode(v, /*hasInf=*/false, 0x7f);
}
inline uint8_t floatToE4m3(float f) {
  return uint8_t(MiniFloat<4, 3>::encode(f, false, 0x7f, 448.0f, 0x7e));
}
// f8E5M2: IEEE-like with infinities, max 57344.
inline float e5m2ToFloat(uint8_t v) {
  return MiniFloat<5, 2>::decode(v, /*hasInf=*/true, 0);
}
inline uint8_t floatToE5m2(float f) {
  return uint8_t(MiniFloat<5, 2>::encode(f, true, 0x7f, 57344.0f, 0x7b));
}

} // namespace hp::runtime

#endif // HP_RUNTIME_FLOATCONVERSIONS_H
