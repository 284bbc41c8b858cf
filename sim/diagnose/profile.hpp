#pragma once
// One-dimensional profile-likelihood tools shared by the fits of diagnose (docs/DIAGNOSE.md):
// the maximum of a profile over a scan, and the ends of {x : profile(x) >= target}.
#include <boost/math/tools/minima.hpp>
#include <boost/math/tools/roots.hpp>
#include <cstdint>
#include <utility>
#include <vector>

#include "phasesim/diagnose/binomial.hpp"

namespace phasesim::detail {

/// The drop of the log-likelihood that bounds a 95% profile-likelihood interval.
inline constexpr double kProfileDrop = kChiSquared1At95 / 2;

struct ProfileMaximum {
  double x = 0;
  double value = 0;
};

/// The maximum of f over the sorted points' range: the best point of the scan, then Brent
/// between its neighbours (f is assumed unimodal at the scan's resolution).
template <typename F>
ProfileMaximum maximize_scanned(F f, const std::vector<double>& points) {
  std::vector<double> values;
  for (double x : points) values.push_back(f(x));
  std::size_t best = 0;
  for (std::size_t i = 1; i < points.size(); ++i) best = values[i] > values[best] ? i : best;
  const double a = points[best == 0 ? 0 : best - 1];
  const double b = points[best + 1 == points.size() ? best : best + 1];
  std::uintmax_t iterations = 40;
  const auto [x, negative] =
      boost::math::tools::brent_find_minima([&](double t) { return -f(t); }, a, b, 24, iterations);
  if (-negative > values[best]) return {x, -negative};
  return {points[best], values[best]};
}

/// The end of {x : f(x) >= target} between `inside` (where f >= target) and the search
/// limit `outside`: `outside` itself when f stays above the target there.
template <typename F>
double profile_end(F f, double inside, double outside, double target) {
  if (f(outside) >= target) return outside;
  auto excess = [&](double x) { return f(x) - target; };
  std::uintmax_t iterations = 60;
  const auto [a, b] = boost::math::tools::toms748_solve(
      excess, std::min(inside, outside), std::max(inside, outside),
      boost::math::tools::eps_tolerance<double>(20), iterations);
  return 0.5 * (a + b);
}

}  // namespace phasesim::detail
