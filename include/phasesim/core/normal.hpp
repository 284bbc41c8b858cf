#pragma once
// The standard normal distribution in log space, accurate far into both tails. Double
// arithmetic goes through portable_math.hpp and Boost's long double (x87) functions, neither
// of which depends on the CPU (docs/REPRODUCIBILITY.md); the browser build's long double is
// another format (see log_normal_cdf).
#include <boost/math/special_functions/erf.hpp>
#include <cmath>
#include <limits>
#include <numbers>

#include "phasesim/core/portable_math.hpp"

namespace phasesim {

/// log phi(x), the log density of N(0, 1).
inline double log_normal_pdf(double x) {
  constexpr double kHalfLog2Pi = 0.91893853320467274178;  // log(2 pi) / 2
  return -0.5 * x * x - kHalfLog2Pi;
}

/// log_normal_cdf in double precision (portable::erfc, where Boost's erfc computes in long
/// double): for hot loops that need 1e-15 relative, not the last bit. -infinity below
/// x = -38, where Phi underflows.
inline double log_normal_cdf_double(double x) {
  constexpr double kSqrtHalf = 0.70710678118654752;
  if (x > 0) return portable::log1p(-0.5 * portable::erfc(x * kSqrtHalf));
  return portable::log(0.5 * portable::erfc(-x * kSqrtHalf));
}

/// log Phi(x) without cancellation: log1p of the upper tail when x > 0.
inline double log_normal_cdf(double x) {
#ifdef __wasm__
  // WebAssembly's long double is IEEE binary128 computed in software, where Boost's erfc of a
  // double (evaluated in long double) costs about 7 us, 40 times its double version: it was
  // most of the teaching page's analytic update. The browser build takes the double version
  // (1e-15 relative; the page matches the CLI within 1e-12, tests/web/page_test.mjs). Its
  // -infinity below x = -38 is what the channel's integrand already takes there (a factor 0).
  return log_normal_cdf_double(x);
#else
  using std::numbers::sqrt2;
  if (x > 0) return portable::log1p(-0.5 * boost::math::erfc(x / sqrt2));
  return portable::log(0.5 * boost::math::erfc(-x / sqrt2));
#endif
}

/// The x with Q(x) = P(N(0,1) > x) = q, for q in (0, 1), accurate for tiny q.
inline double normal_upper_quantile(double q) {
  return std::numbers::sqrt2 * boost::math::erfc_inv(2 * q);
}

/// The x with log Phi(x) = log_p (log_p <= 0), accurate when Phi(x) is close to 1
/// (log_p close to 0) as well as close to 0. The maximum of n iid N(0, 1) is drawn
/// exactly as normal_quantile_from_log_cdf(log(U) / n), U uniform in (0, 1].
inline double normal_quantile_from_log_cdf(double log_p) {
  constexpr double infinity = std::numeric_limits<double>::infinity();
  if (log_p >= 0) return infinity;
  if (portable::exp(log_p) == 0) return -infinity;
  if (log_p < -std::numbers::ln2) return -normal_upper_quantile(portable::exp(log_p));
  return normal_upper_quantile(-portable::expm1(log_p));
}

}  // namespace phasesim
