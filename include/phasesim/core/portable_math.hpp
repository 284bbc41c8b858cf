#pragma once
// exp, log, log1p, expm1, erfc, sin/cos(pi a) and integer powers in double that give the same bits
// on every x86-64 CPU (docs/REPRODUCIBILITY.md). glibc picks a different exp/log/pow for each CPU
// at load time (an FMA version where the CPU has FMA), and the last bit they differ in is amplified
// by what iterates on it: 600 Adam steps of `train`, or the gradient ascent of `optimize` on a flat
// optimum, end in different places. These are fdlibm's algorithms (Sun Microsystems, as FreeBSD's
// msun and JuliaMath/openlibm keep them: "Permission to use, copy, modify, and distribute this
// software is freely granted, provided that this notice is preserved"), error below 1 ulp, written
// with +, -,
// *, / only, each rounded once (the build passes -ffp-contract=off), so their bits depend on
// nothing but IEEE double arithmetic. tests/core/portable_math_test.cpp checks them against glibc
// to 1 ulp and on their special values.
#include <bit>
#include <cstdint>
#include <limits>

#include "phasesim/core/host_device.hpp"

namespace phasesim::portable {

namespace detail {

PHASESIM_HD inline std::uint64_t bits_of(double x) {
#ifdef __CUDA_ARCH__
  return static_cast<std::uint64_t>(__double_as_longlong(x));
#elif defined(__cpp_lib_bit_cast)
  return std::bit_cast<std::uint64_t>(x);
#else  // emscripten 3.1.6's libc++ (the web build) has no std::bit_cast; its clang has this
  return __builtin_bit_cast(std::uint64_t, x);
#endif
}
PHASESIM_HD inline double from_bits(std::uint64_t bits) {
#ifdef __CUDA_ARCH__
  return __longlong_as_double(static_cast<long long>(bits));
#elif defined(__cpp_lib_bit_cast)
  return std::bit_cast<double>(bits);
#else
  return __builtin_bit_cast(double, bits);
#endif
}
PHASESIM_HD inline std::int32_t high_word(double x) {
  return static_cast<std::int32_t>(bits_of(x) >> 32);
}
PHASESIM_HD inline std::uint32_t low_word(double x) {
  return static_cast<std::uint32_t>(bits_of(x));
}
PHASESIM_HD inline double from_words(std::uint32_t high, std::uint32_t low) {
  return from_bits(static_cast<std::uint64_t>(high) << 32 | low);
}
PHASESIM_HD inline double with_high_word(double x, std::uint32_t high) {
  return from_words(high, low_word(x));
}
/// 2^k for -1022 <= k <= 1023.
PHASESIM_HD inline double two_to(std::int32_t k) {
  return from_words(static_cast<std::uint32_t>(0x3ff00000 + (k << 20)), 0);
}

inline constexpr double kLn2High = 6.93147180369123816490e-01;  // 3fe62e42 fee00000
inline constexpr double kLn2Low = 1.90821492927058770002e-10;   // 3dea39ef 35793c76
inline constexpr double kInvLn2 = 1.44269504088896338700e+00;   // 3ff71547 652b82fe
inline constexpr double kTwo54 = 1.80143985094819840000e+16;    // 43500000 00000000
inline constexpr double kInfinity = std::numeric_limits<double>::infinity();
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// The coefficients of R(z) in log(1 + f) = f - (f^2/2 - s (f^2/2 + R(s^2))), s = f / (2 + f),
/// shared by log and log1p (fdlibm's Lg1..Lg7 = Lp1..Lp7); each evaluates R in its own order.
inline constexpr double kLog1 = 6.666666666666735130e-01, kLog2 = 3.999999999940941908e-01,
                        kLog3 = 2.857142874366239149e-01, kLog4 = 2.222219843214978396e-01,
                        kLog5 = 1.818357216161805012e-01, kLog6 = 1.531383769920937332e-01,
                        kLog7 = 1.479819860511658591e-01;

/// x = k ln2 + (hi - lo) for |x| > ln2 / 2 (`high` = the high word of |x|), with
/// |hi - lo| <= ln2 / 2 and k ln2 split so that k * kLn2High is exact: the argument
/// reduction exp and expm1 share.
struct Ln2Reduction {
  std::int32_t k;
  double hi;
  double lo;
};
PHASESIM_HD inline Ln2Reduction reduce_by_ln2(double x, std::uint32_t high) {
  const bool negative = x < 0;
  if (high < 0x3FF0A2B2) {  // |x| < 1.5 ln2: k = +-1
    return {negative ? -1 : 1, negative ? x + kLn2High : x - kLn2High,
            negative ? -kLn2Low : kLn2Low};
  }
  const auto k = static_cast<std::int32_t>(kInvLn2 * x + (negative ? -0.5 : 0.5));
  const double t = k;
  return {k, x - t * kLn2High, t * kLn2Low};
}

}  // namespace detail

/// e^x (fdlibm e_exp.c), error below 1 ulp.
PHASESIM_HD inline double exp(double x) {
  using namespace detail;
  constexpr double p1 = 1.66666666666666019037e-01, p2 = -2.77777777770155933842e-03,
                   p3 = 6.61375632143793436117e-05, p4 = -1.65339022054652515390e-06,
                   p5 = 4.13813679705723846039e-08;
  constexpr double kOverflow = 7.09782712893383973096e+02;
  constexpr double kUnderflow = -7.45133219101941108420e+02;
  const std::uint32_t hx = static_cast<std::uint32_t>(high_word(x)) & 0x7fffffff;
  if (hx >= 0x40862E42) {  // |x| >= 709.78, or not finite
    if (x != x) return x;
    if (x > kOverflow) return kInfinity;
    if (x < kUnderflow) return 0;
  }
  if (x == 1.0) return 2.718281828459045235360;  // openlibm: the nearest double, not 1 ulp off
  std::int32_t k = 0;
  double hi = 0, lo = 0;
  if (hx > 0x3fd62e42) {  // |x| > ln2 / 2: x = k ln2 + r, r = hi - lo
    const auto reduced = reduce_by_ln2(x, hx);
    k = reduced.k;
    hi = reduced.hi;
    lo = reduced.lo;
    x = hi - lo;
  } else if (hx < 0x3e300000) {  // |x| < 2^-28
    return 1 + x;
  }
  const double t = x * x;
  const double c = x - t * (p1 + t * (p2 + t * (p3 + t * (p4 + t * p5))));
  if (k == 0) return 1 - ((x * c) / (c - 2.0) - x);
  const double y = 1 - ((lo - (x * c) / (2.0 - c)) - hi);
  if (k >= -1021) return k == 1024 ? y * 2.0 * 0x1p1023 : y * two_to(k);
  return y * two_to(k + 1000) * 0x1p-1000;
}

/// The natural logarithm (fdlibm e_log.c), error below 1 ulp; -inf at 0, NaN below.
PHASESIM_HD inline double log(double x) {
  using namespace detail;
  std::int32_t hx = high_word(x);
  std::int32_t k = 0;
  if (hx < 0x00100000) {  // x < 2^-1022: zero, negative or subnormal
    if (x == 0) return -kInfinity;
    if (hx < 0) return kNaN;
    k -= 54;
    x *= kTwo54;
    hx = high_word(x);
  }
  if (hx >= 0x7ff00000) return x + x;
  k += (hx >> 20) - 1023;
  hx &= 0x000fffff;
  const std::int32_t i = (hx + 0x95f64) & 0x100000;
  x = with_high_word(x, static_cast<std::uint32_t>(hx | (i ^ 0x3ff00000)));  // x or x/2
  k += i >> 20;
  const double f = x - 1.0;
  const double dk = k;
  if ((0x000fffff & (2 + hx)) < 3) {  // -2^-20 <= f < 2^-20
    if (f == 0) return k == 0 ? 0.0 : dk * kLn2High + dk * kLn2Low;
    const double r = f * f * (0.5 - 0.33333333333333333 * f);
    return k == 0 ? f - r : dk * kLn2High - ((r - dk * kLn2Low) - f);
  }
  const double s = f / (2.0 + f);
  const double z = s * s;
  const double w = z * z;  // R in even and odd powers of w, as e_log.c sums it
  const double r =
      z * (kLog1 + w * (kLog3 + w * (kLog5 + w * kLog7))) + w * (kLog2 + w * (kLog4 + w * kLog6));
  if (((hx - 0x6147a) | (0x6b851 - hx)) > 0) {
    const double hfsq = 0.5 * f * f;
    if (k == 0) return f - (hfsq - s * (hfsq + r));
    return dk * kLn2High - ((hfsq - (s * (hfsq + r) + dk * kLn2Low)) - f);
  }
  if (k == 0) return f - s * (f - r);
  return dk * kLn2High - ((s * (f - r) - dk * kLn2Low) - f);
}

/// log(1 + x), accurate for small x (fdlibm s_log1p.c), error below 1 ulp.
PHASESIM_HD inline double log1p(double x) {
  using namespace detail;
  const std::int32_t hx = high_word(x);
  const std::int32_t ax = hx & 0x7fffffff;
  std::int32_t k = 1;
  std::int32_t hu = 0;
  double f = 0;
  double c = 0;
  if (hx < 0x3FDA827A) {     // 1 + x < sqrt(2)
    if (ax >= 0x3ff00000) {  // x <= -1
      if (x == -1.0) return -kInfinity;
      return kNaN;
    }
    if (ax < 0x3e200000) {  // |x| < 2^-29
      return ax < 0x3c900000 ? x : x - x * x * 0.5;
    }
    if (hx > 0 || hx <= static_cast<std::int32_t>(0xbfd2bec4)) {  // sqrt(2)/2 <= 1 + x
      k = 0;
      f = x;
      hu = 1;
    }
  }
  if (hx >= 0x7ff00000) return x + x;
  if (k != 0) {
    double u = x;
    if (hx < 0x43400000) {
      u = 1.0 + x;
      hu = high_word(u);
      k = (hu >> 20) - 1023;
      c = (k > 0 ? 1.0 - (u - x) : x - (u - 1.0)) / u;  // the rounding of 1 + x
    } else {
      hu = high_word(u);
      k = (hu >> 20) - 1023;
    }
    hu &= 0x000fffff;
    if (hu < 0x6a09e) {  // u below sqrt(2): normalize u
      u = with_high_word(u, static_cast<std::uint32_t>(hu | 0x3ff00000));
    } else {  // normalize u / 2
      k += 1;
      u = with_high_word(u, static_cast<std::uint32_t>(hu | 0x3fe00000));
      hu = (0x00100000 - hu) >> 2;
    }
    f = u - 1.0;
  }
  const double hfsq = 0.5 * f * f;
  const double dk = k;
  if (hu == 0) {  // |f| < 2^-20
    if (f == 0) return k == 0 ? 0.0 : dk * kLn2High + (c + dk * kLn2Low);
    const double r = hfsq * (1.0 - 0.66666666666666666 * f);
    return k == 0 ? f - r : dk * kLn2High - ((r - (dk * kLn2Low + c)) - f);
  }
  const double s = f / (2.0 + f);
  const double z = s * s;
  const double r =
      z * (kLog1 + z * (kLog2 + z * (kLog3 + z * (kLog4 + z * (kLog5 + z * (kLog6 + z * kLog7))))));
  if (k == 0) return f - (hfsq - s * (hfsq + r));
  return dk * kLn2High - ((hfsq - (s * (hfsq + r) + (dk * kLn2Low + c))) - f);
}

/// e^x - 1, accurate for small x (fdlibm s_expm1.c), error below 1 ulp.
PHASESIM_HD inline double expm1(double x) {
  using namespace detail;
  constexpr double q1 = -3.33333333333331316428e-02, q2 = 1.58730158725481460165e-03,
                   q3 = -7.93650757867487942473e-05, q4 = 4.00821782732936239552e-06,
                   q5 = -2.01099218183624371326e-07;
  constexpr double kOverflow = 7.09782712893383973096e+02;
  const std::uint32_t hx = static_cast<std::uint32_t>(high_word(x)) & 0x7fffffff;
  const bool negative = x < 0;
  if (hx >= 0x4043687A) {  // |x| >= 56 ln2, or not finite
    if (x != x) return x;
    if (x > kOverflow) return kInfinity;
    if (negative) return -1.0;
  }
  std::int32_t k = 0;
  double c = 0;
  if (hx > 0x3fd62e42) {  // |x| > ln2 / 2
    const auto [reduced_k, hi, lo] = reduce_by_ln2(x, hx);
    k = reduced_k;
    x = hi - lo;
    c = (hi - x) - lo;
  } else if (hx < 0x3c900000) {  // |x| < 2^-54
    return x;
  }
  const double hfx = 0.5 * x;
  const double hxs = x * hfx;
  const double r1 = 1 + hxs * (q1 + hxs * (q2 + hxs * (q3 + hxs * (q4 + hxs * q5))));
  double t = 3.0 - r1 * hfx;
  double e = hxs * ((r1 - t) / (6.0 - x * t));
  if (k == 0) return x - (x * e - hxs);
  e = x * (e - c) - c;
  e -= hxs;
  if (k == -1) return 0.5 * (x - e) - 0.5;
  if (k == 1) return x < -0.25 ? -2.0 * (e - (x + 0.5)) : 1 + 2.0 * (x - e);
  if (k <= -2 || k > 56) {  // exp(x) - 1 suffices
    const double y = 1 - (e - x);
    return (k == 1024 ? y * 2.0 * 0x1p1023 : y * two_to(k)) - 1;
  }
  if (k < 20) {
    t = from_words(static_cast<std::uint32_t>(0x3ff00000 - (0x200000 >> k)), 0);  // 1 - 2^-k
    return (t - (e - x)) * two_to(k);
  }
  t = from_words(static_cast<std::uint32_t>((0x3ff - k) << 20), 0);  // 2^-k
  return ((x - (e + t)) + 1) * two_to(k);
}

/// The complementary error function (fdlibm s_erf.c), error below 1 ulp; erfc(x) for
/// x > 26.6 underflows to 0.
PHASESIM_HD inline double erfc(double x) {
  using namespace detail;
  const std::int32_t hx = high_word(x);
  const std::int32_t ix = hx & 0x7fffffff;
  if (ix >= 0x7ff00000) return x != x ? x : (x > 0 ? 0.0 : 2.0);
  if (ix < 0x3feb0000) {                // |x| < 0.84375
    if (ix < 0x3c700000) return 1 - x;  // |x| < 2^-56
    constexpr double p0 = 1.28379167095512558561e-01, p1 = -3.25042107247001499370e-01,
                     p2 = -2.84817495755985104766e-02, p3 = -5.77027029648944159157e-03,
                     p4 = -2.37630166566501626084e-05;
    constexpr double q1 = 3.97917223959155352819e-01, q2 = 6.50222499887672944485e-02,
                     q3 = 5.08130628187576562776e-03, q4 = 1.32494738004321644526e-04,
                     q5 = -3.96022827877536812320e-06;
    const double z = x * x;
    const double r = p0 + z * (p1 + z * (p2 + z * (p3 + z * p4)));
    const double s = 1 + z * (q1 + z * (q2 + z * (q3 + z * (q4 + z * q5))));
    const double y = r / s;
    if (hx < 0x3fd00000) return 1 - (x + x * y);  // x < 1/4
    return 0.5 - (x * y + (x - 0.5));
  }
  if (ix < 0x3ff40000) {  // 0.84375 <= |x| < 1.25
    constexpr double erx = 8.45062911510467529297e-01;
    constexpr double a0 = -2.36211856075265944077e-03, a1 = 4.14856118683748331666e-01,
                     a2 = -3.72207876035701323847e-01, a3 = 3.18346619901161753674e-01,
                     a4 = -1.10894694282396677476e-01, a5 = 3.54783043256182359371e-02,
                     a6 = -2.16637559486879084300e-03;
    constexpr double b1 = 1.06420880400844228286e-01, b2 = 5.40397917702171048937e-01,
                     b3 = 7.18286544141962662868e-02, b4 = 1.26171219808761642112e-01,
                     b5 = 1.36370839120290507362e-02, b6 = 1.19844998467991074170e-02;
    const double s = (x < 0 ? -x : x) - 1;
    const double p = a0 + s * (a1 + s * (a2 + s * (a3 + s * (a4 + s * (a5 + s * a6)))));
    const double q = 1 + s * (b1 + s * (b2 + s * (b3 + s * (b4 + s * (b5 + s * b6)))));
    return hx >= 0 ? (1 - erx) - p / q : 1 + (erx + p / q);
  }
  if (ix >= 0x403c0000) return hx > 0 ? 0.0 : 2.0;  // |x| >= 28
  if (hx < 0 && ix >= 0x40180000) return 2.0;       // x < -6
  const double ax = x < 0 ? -x : x;
  const double s = 1 / (ax * ax);
  double r = 0;
  double q = 0;
  if (ix < 0x4006DB6D) {  // |x| < 1/0.35
    constexpr double a0 = -9.86494403484714822705e-03, a1 = -6.93858572707181764372e-01,
                     a2 = -1.05586262253232909814e+01, a3 = -6.23753324503260060396e+01,
                     a4 = -1.62396669462573470355e+02, a5 = -1.84605092906711035994e+02,
                     a6 = -8.12874355063065934246e+01, a7 = -9.81432934416914548592e+00;
    constexpr double b1 = 1.96512716674392571292e+01, b2 = 1.37657754143519042600e+02,
                     b3 = 4.34565877475229228821e+02, b4 = 6.45387271733267880336e+02,
                     b5 = 4.29008140027567833386e+02, b6 = 1.08635005541779435134e+02,
                     b7 = 6.57024977031928170135e+00, b8 = -6.04244152148580987438e-02;
    r = a0 + s * (a1 + s * (a2 + s * (a3 + s * (a4 + s * (a5 + s * (a6 + s * a7))))));
    q = 1 + s * (b1 + s * (b2 + s * (b3 + s * (b4 + s * (b5 + s * (b6 + s * (b7 + s * b8)))))));
  } else {
    constexpr double a0 = -9.86494292470009928597e-03, a1 = -7.99283237680523006574e-01,
                     a2 = -1.77579549177547519889e+01, a3 = -1.60636384855821916062e+02,
                     a4 = -6.37566443368389627722e+02, a5 = -1.02509513161107724954e+03,
                     a6 = -4.83519191608651397019e+02;
    constexpr double b1 = 3.03380607434824582924e+01, b2 = 3.25792512996573918826e+02,
                     b3 = 1.53672958608443695994e+03, b4 = 3.19985821950859553908e+03,
                     b5 = 2.55305040643316442583e+03, b6 = 4.74528541206955367215e+02,
                     b7 = -2.24409524465858183362e+01;
    r = a0 + s * (a1 + s * (a2 + s * (a3 + s * (a4 + s * (a5 + s * a6)))));
    q = 1 + s * (b1 + s * (b2 + s * (b3 + s * (b4 + s * (b5 + s * (b6 + s * b7))))));
  }
  const double z = from_words(static_cast<std::uint32_t>(high_word(ax)), 0);  // ax, low word 0
  const double e = exp(-z * z - 0.5625) * exp((z - ax) * (z + ax) + r / q);
  return hx > 0 ? e / ax : 2 - e / ax;
}

/// sin(pi a) and cos(pi a) for |a| <= 1 (fdlibm's k_sin.c and k_cos.c kernels on pi r,
/// where a = n/2 + r exactly, |r| <= 1/4), error about 1 ulp: the angle of Box-Muller.
struct SinCos {
  double sin;
  double cos;
};
PHASESIM_HD inline SinCos sincospi(double a) {
  constexpr double kPi = 3.1415926535897932;
  constexpr double s1 = -1.66666666666666324348e-01, s2 = 8.33333333332248946124e-03,
                   s3 = -1.98412698298579493134e-04, s4 = 2.75573137070700676789e-06,
                   s5 = -2.50507602534068634195e-08, s6 = 1.58969099521155010221e-10;
  constexpr double c1 = 4.16666666666666019037e-02, c2 = -1.38888888888741095749e-03,
                   c3 = 2.48015872894767294178e-05, c4 = -2.75573143513906633035e-07,
                   c5 = 2.08757232129817482790e-09, c6 = -1.13596475577881948265e-11;
  // n = the nearest integer to 2a, in [-2, 2]; r = a - n/2 is exact for |a| <= 1.
  const double twice = 2 * a;
  const int n = static_cast<int>(twice < 0 ? twice - 0.5 : twice + 0.5);
  const double x = kPi * (a - 0.5 * n);
  const double z = x * x;
  const double w = z * z;
  const double rs = s2 + z * (s3 + z * s4) + z * w * (s5 + z * s6);
  const double sine = x + z * x * (s1 + z * rs);
  const double rc = z * (c1 + z * (c2 + z * c3)) + w * w * (c4 + z * (c5 + z * c6));
  const double hz = 0.5 * z;
  const double one_minus = 1 - hz;
  const double cosine = one_minus + (((1 - one_minus) - hz) + z * rc);
  switch ((n % 4 + 4) % 4) {  // pi a = pi r + n pi/2
    case 0:
      return {sine, cosine};
    case 1:
      return {cosine, -sine};
    case 2:
      return {-sine, -cosine};
    default:
      return {-cosine, sine};
  }
}

/// x^n for n >= 0 by repeated squaring: the same bits everywhere, where std::pow's depend on
/// the CPU (its error grows with n, about n/2 ulp at the worst, which the uses here allow).
PHASESIM_HD inline double pow(double x, std::int64_t n) {
  double result = 1;
  for (; n > 0; n >>= 1, x *= x) {
    if (n & 1) result *= x;
  }
  return result;
}

}  // namespace phasesim::portable
