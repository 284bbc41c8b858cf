#pragma once
// Exact draws of the top order statistics of n iid N(0, 1) (the k-th largest and the ones
// above it), and the bivariate normal orthant the selection's correlated draws need
// (MODEL.md section 10). A draw is a pure function of its stream and index, computed with
// portable_math.hpp and Boost's long double functions, so it is the same on every CPU.
//
// The r-th largest Y_(r) of n iid normals has upper tail q_r = 1 - Phi(Y_(r)) ~ Beta(r, n - r + 1)
// (drawn as a ratio of two gamma variates, Marsaglia and Tsang's method); given Y_(r), the
// r - 1 above it are iid above it, so q_(r-1) = q_r U^(1/(r-1)). Both the tail and its
// complement are carried, so that neither end of the law loses digits.
#include <boost/math/special_functions/owens_t.hpp>
#include <cmath>
#include <cstdint>

#include "phasesim/core/normal.hpp"
#include "phasesim/core/portable_math.hpp"
#include "phasesim/core/random.hpp"

namespace phasesim {

/// A gamma variate of shape a >= 1 (Marsaglia and Tsang 2000) from the draws of `index` of the
/// stream, block b = 2 * attempt and 2 * attempt + 1 for the attempt's normal and uniform.
inline double gamma_variate(const RandomStream& stream, std::uint32_t index, double shape) {
  const double d = shape - 1.0 / 3;
  const double c = 1 / std::sqrt(9 * d);
  for (std::uint32_t attempt = 0;; ++attempt) {
    const double x = stream.normal_pair(index, 2 * attempt).x;
    const double v0 = 1 + c * x;
    if (v0 <= 0) continue;
    const double v = v0 * v0 * v0;
    const double u = stream.uniform_pair(index, 2 * attempt + 1).x;
    const double x2 = x * x;
    if (u < 1 - 0.0331 * x2 * x2) return d * v;
    if (portable::log(u) < 0.5 * x2 + d * (1 - v + portable::log(v))) return d * v;
  }
}

/// An upper tail probability q and its complement 1 - q, each to full relative precision.
struct UpperTail {
  double tail = 0;  ///< q = P(N(0, 1) > y)
  double body = 1;  ///< 1 - q = Phi(y)

  /// The normal value y with this upper tail.
  double value() const {
    return tail <= 0.5 ? normal_upper_quantile(tail) : -normal_upper_quantile(body);
  }
};

/// The upper tail of Y_(r), the r-th largest of n iid N(0, 1) (1 <= r <= n): Beta(r, n - r + 1)
/// as G_r / (G_r + G_(n-r+1)), the two gamma variates from indices `index` and `index + 1`.
inline UpperTail upper_order_statistic(std::int64_t n, std::int64_t r, const RandomStream& stream,
                                       std::uint32_t index) {
  const double a = gamma_variate(stream, index, static_cast<double>(r));
  const double b = gamma_variate(stream, index + 1, static_cast<double>(n - r + 1));
  return {a / (a + b), b / (a + b)};
}

/// The upper tail of Y_(r-1) given that of Y_(r) (r >= 2), from one uniform u in (0, 1]:
/// q_(r-1) = q_r u^(1/(r-1)).
inline UpperTail step_up(const UpperTail& below, std::int64_t r, double u) {
  const double log_power = portable::log(u) / static_cast<double>(r - 1);
  const double power = portable::exp(log_power);  // u^(1/(r-1))
  return {below.tail * power, -portable::expm1(log_power) + power * below.body};
}

/// Phi2(h, k; rho) = P(X <= h, Y <= k) for standard normals of correlation rho (|rho| < 1), by
/// Owen's T function in long double (Owen 1956): (Phi(h) + Phi(k)) / 2 - T(h, a_h) - T(k, a_k) -
/// beta, a_h = (k - rho h) / (h sqrt(1 - rho^2)) (a_k alike), T(0, a) = atan(a) / (2 pi), and
/// beta = 1/2 unless h k > 0 or (h k = 0 and h + k >= 0).
inline double lower_orthant(double h, double k, double rho) {
  using boost::math::owens_t;
  constexpr long double kPi = 3.14159265358979323846264338327950288L;
  const long double r = std::sqrt((1.0L - rho) * (1.0L + rho));
  const long double H = h, K = k, R = rho;
  const auto cdf = [](long double x) { return 0.5L * std::erfc(-x / std::sqrt(2.0L)); };
  // T(x, a) with a = (y - rho x) / (x r): atan(a) / (2 pi) at x = 0 (a = +-inf, or 0 when y = 0).
  const auto t = [&](long double x, long double y) -> long double {
    if (x != 0) return owens_t(x, (y - R * x) / (x * r));
    return y == 0 ? 0.0L : (y > 0 ? 0.25L : -0.25L);
  };
  if (h == 0 && k == 0) return static_cast<double>(0.25L + std::asin(R) / (2 * kPi));
  long double sum = 0.5L * (cdf(H) + cdf(K)) - t(H, K) - t(K, H);
  if (!(h * k > 0 || (h * k == 0 && h + k >= 0))) sum -= 0.5L;
  return static_cast<double>(sum < 0 ? 0.0L : sum);
}

/// P(X > h, Y > k) for standard normals of correlation rho: Phi2(-h, -k; rho).
inline double upper_orthant(double h, double k, double rho) { return lower_orthant(-h, -k, rho); }

}  // namespace phasesim
