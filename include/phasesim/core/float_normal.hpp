#pragma once
// Box-Muller in float (MODEL.md section 4, "Random numbers"): the normal pair of one Philox
// call, as RandomStream::normal_pair draws it in double, to float rounding. This scalar code
// is the definition; the SIMD block generator (normal_block.hpp) and the CUDA kernel compute
// the same operations in the same order, so all three give the same bits:
//   - only +, -, *, / and sqrt, each rounded once (no fused multiply-add: the build passes
//     -ffp-contract=off and nvcc --fmad=false), and exact integer-to-float conversions;
//   - log and sin/cos(pi a) are polynomials written out here, not a math library's, whose
//     last bits differ between glibc, Highway and CUDA.
// From the four Philox words w of RandomStream::bits(index, block):
//   u = u01 of (w3:w2) in (0, 1]     as float: w3 2^-32 + (w2 2^-64 + 2^-65)
//   a = uneg11 of (w1:w0) in [-1, 1] as float: from w1 alone, w1 2^-31 + 2^-32 (w0 moves a by
//                                    less than 2^-31, below the float rounding of a)
//   pair = (sin(pi a), cos(pi a)) * sqrt(-2 log u) * scale
#include <cmath>
#include <cstdint>

#include "phasesim/core/host_device.hpp"

namespace phasesim::float_normal {

/// sqrt(2) as the bits of a float: the mantissa of u is reduced into (sqrt(2)/2, sqrt(2)].
inline constexpr std::uint32_t kSqrt2Bits = 0x3FB504F3u;
/// log(2) split so that e * kLn2High is exact for the exponents of u (|e| < 2^11).
inline constexpr float kLn2High = 0.693145751953125f;
inline constexpr float kLn2Low = 1.42860682030941723212e-6f;
/// log(1 + f) = f - (f^2/2 - s (f^2/2 + R)), s = f / (2 + f), R = 2 z/3 + 2 z^2/5 + 2 z^3/7 +
/// 2 z^4/9 with z = s^2 <= 0.0295 (fdlibm's arrangement: f is exact and the rest a small
/// correction); the first omitted term is below 2e-9 relative.
inline constexpr float kLog3 = 2.0f / 3, kLog5 = 2.0f / 5, kLog7 = 2.0f / 7, kLog9 = 2.0f / 9;
/// Taylor coefficients of sin(pi x) and cos(pi x) on |x| <= 1/4: (-1)^k pi^n / n!. The first
/// omitted terms are below 3e-9 (sin, relative) and 2e-10 (cos).
inline constexpr float kSin1 = 3.14159265358979324f, kSin3 = -5.16771278004997003f,
                       kSin5 = 2.55016403987734549f, kSin7 = -0.599264529320792077f,
                       kSin9 = 0.0821458866111282288f;
inline constexpr float kCos2 = -4.93480220054467931f, kCos4 = 4.05871212641676822f,
                       kCos6 = -1.33526276885458950f, kCos8 = 0.235330630358893210f,
                       kCos10 = -0.0258068913900140008f;

struct Pair {
  float x, y;
};

PHASESIM_HD inline float from_bits(std::uint32_t bits) {
  union {
    std::uint32_t u;
    float f;
  } v{bits};
  return v.f;
}

PHASESIM_HD inline std::uint32_t to_bits(float f) {
  union {
    float f;
    std::uint32_t u;
  } v{f};
  return v.u;
}

/// u in (0, 1] from the words (w3:w2), to float rounding.
PHASESIM_HD inline float uniform(std::uint32_t w2, std::uint32_t w3) {
  return static_cast<float>(w3) * 0x1p-32f + (static_cast<float>(w2) * 0x1p-64f + 0x1p-65f);
}

/// a in [-1, 1] from the high word w1 of (w1:w0).
PHASESIM_HD inline float signed_uniform(std::uint32_t w1) {
  return static_cast<float>(static_cast<std::int32_t>(w1)) * 0x1p-31f + 0x1p-32f;
}

/// log(u) for a normal float u in (0, 1].
PHASESIM_HD inline float log_unit(float u) {
  const std::uint32_t bits = to_bits(u);
  std::int32_t e = static_cast<std::int32_t>(bits >> 23) - 127;
  std::uint32_t m_bits = (bits & 0x007FFFFFu) | 0x3F800000u;  // m in [1, 2)
  if (m_bits > kSqrt2Bits) {
    m_bits -= 0x00800000u;  // m / 2
    e += 1;
  }
  const float f = from_bits(m_bits) - 1.0f;  // exact
  const float s = f / (2.0f + f);
  const float z = s * s;
  const float r = z * (kLog3 + z * (kLog5 + z * (kLog7 + z * kLog9)));
  const float half_f2 = 0.5f * f * f;
  const float e_f = static_cast<float>(e);
  return e_f * kLn2High - ((half_f2 - (s * (half_f2 + r) + e_f * kLn2Low)) - f);
}

/// (sin(pi a), cos(pi a)) for a in [-1, 1]: a = x + n/2 with n = floor(2a + 1/2) and
/// |x| <= 1/4 (x = a - n/2 is exact), the polynomials at x, then the quadrant n mod 4.
PHASESIM_HD inline Pair sincospi(float a) {
  const float n = floorf(2.0f * a + 0.5f);
  const float x = a - 0.5f * n;
  const float x2 = x * x;
  const float s = x * (kSin1 + x2 * (kSin3 + x2 * (kSin5 + x2 * (kSin7 + x2 * kSin9))));
  const float c = 1.0f + x2 * (kCos2 + x2 * (kCos4 + x2 * (kCos6 + x2 * (kCos8 + x2 * kCos10))));
  const auto q = static_cast<std::uint32_t>(static_cast<std::int32_t>(n)) & 3u;
  const float sine = (q & 1u) ? c : s;
  const float cosine = (q & 1u) ? s : c;
  return {(q & 2u) ? -sine : sine, ((q + 1u) & 2u) ? -cosine : cosine};
}

/// The normal pair of Philox words w1, w2, w3 (w0 is below float resolution), times scale.
PHASESIM_HD inline Pair box_muller(std::uint32_t w1, std::uint32_t w2, std::uint32_t w3,
                                   float scale) {
  const float radius = sqrtf(-2.0f * log_unit(uniform(w2, w3))) * scale;
  const Pair unit = sincospi(signed_uniform(w1));
  return {unit.x * radius, unit.y * radius};
}

}  // namespace phasesim::float_normal
