#pragma once
// The standard normal distribution in log space, accurate far into both tails.
#include <boost/math/special_functions/erf.hpp>
#include <cmath>
#include <limits>
#include <numbers>

namespace phasesim {

/// log phi(x), the log density of N(0, 1).
inline double log_normal_pdf(double x) {
  return -0.5 * x * x - 0.5 * std::log(2 * std::numbers::pi);
}

/// log Phi(x) without cancellation: log1p of the upper tail when x > 0.
inline double log_normal_cdf(double x) {
  using std::numbers::sqrt2;
  if (x > 0) return std::log1p(-0.5 * boost::math::erfc(x / sqrt2));
  return std::log(0.5 * boost::math::erfc(-x / sqrt2));
}

/// log_normal_cdf in double precision (std::erfc, where Boost's erfc computes in long
/// double): for hot loops that need 1e-15 relative, not the last bit. -infinity below
/// x = -38, where Phi underflows.
inline double log_normal_cdf_double(double x) {
  constexpr double kSqrtHalf = 0.70710678118654752;
  if (x > 0) return std::log1p(-0.5 * std::erfc(x * kSqrtHalf));
  return std::log(0.5 * std::erfc(-x * kSqrtHalf));
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
  if (std::exp(log_p) == 0) return -infinity;
  if (log_p < -std::numbers::ln2) return -normal_upper_quantile(std::exp(log_p));
  return normal_upper_quantile(-std::expm1(log_p));
}

}  // namespace phasesim
