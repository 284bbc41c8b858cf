#include "phasesim/channel.hpp"

#include <algorithm>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <boost/math/special_functions/erf.hpp>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include "phasesim/error.hpp"
#include "phasesim/normal.hpp"

namespace phasesim {
namespace {

// Mass of the distractor maximum left outside the integration range, on each side.
constexpr double kTailMass = 1e-18;
// Gauss-Kronrod settings: relative tolerance per piece and bisection depth. Rounding
// in (y - mean) / sd sets a noise floor near 1e-13 when sd is tiny (u close to 1), so a
// tighter tolerance would only bisect noise down to the depth limit.
constexpr double kTolerance = 1e-12;
constexpr unsigned kMaxDepth = 12;

// log P(needle entry x < y) for every needle entry, summed: log of prod_s Phi(z_s).
double log_all_needle_below(std::span<const NeedleEntry> needle, double y) {
  double total = 0;
  for (const auto& e : needle) {
    if (e.sd == 0) {
      if (y <= e.mean) return -std::numeric_limits<double>::infinity();
      continue;
    }
    total += log_normal_cdf((y - e.mean) / e.sd);
  }
  return total;
}

// Range [lo, hi] that holds all but 2 * kTailMass of the maximum of n normals.
std::pair<double, double> distractor_max_range(double n) {
  // Phi(lo)^n = kTailMass  and  1 - Phi(hi)^n = kTailMass.
  const double lo = normal_quantile_from_log_cdf(std::log(kTailMass) / n);
  const double hi = normal_quantile_from_log_cdf(std::log1p(-kTailMass) / n);
  return {lo, hi};
}

// Split points where the needle factor changes fastest (a jump where sd = 0).
std::vector<double> break_points(std::span<const NeedleEntry> needle, double lo, double hi) {
  std::vector<double> points{lo, hi};
  for (const auto& e : needle) {
    for (double k : {-4.0, 0.0, 4.0}) {
      const double p = e.mean + k * e.sd;
      if (p > lo && p < hi) points.push_back(p);
    }
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  return points;
}

void validate(std::span<const NeedleEntry> needle) {
  for (const auto& e : needle) {
    require(std::isfinite(e.mean), "invalid needle entry (its mean must be finite)");
    require(std::isfinite(e.sd) && e.sd >= 0,
            "invalid needle entry (its standard deviation must be finite and >= 0)");
  }
}

}  // namespace

NeedleEntry normalized_entry(double beta, double u) {
  return {beta * u, std::sqrt((1 - u) * (1 + u))};
}

ChannelValue needle_success(std::span<const NeedleEntry> needle, std::int64_t distractors) {
  validate(needle);
  require(distractors >= 0,
          "invalid distractor count " + std::to_string(distractors) + " (must be >= 0)");
  if (needle.empty()) return {0.0, 0.0};
  if (distractors == 0) return {1.0, 0.0};

  const auto n = static_cast<double>(distractors);
  const double log_n = std::log(n);
  // Density of the distractor maximum, n phi(y) Phi(y)^(n-1), times P(some x > y).
  auto integrand = [&](double y) {
    const double log_below = distractors > 1 ? (n - 1) * log_normal_cdf(y) : 0.0;
    const double log_density = log_n + log_normal_pdf(y) + log_below;
    return std::exp(log_density) * -std::expm1(log_all_needle_below(needle, y));
  };

  const auto [lo, hi] = distractor_max_range(n);
  const auto points = break_points(needle, lo, hi);
  ChannelValue value{0.0, 2 * kTailMass};
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    double error = 0;
    value.probability += boost::math::quadrature::gauss_kronrod<double, 31>::integrate(
        integrand, points[i], points[i + 1], kMaxDepth, kTolerance, &error);
    value.error_estimate += error;
  }
  value.probability = std::clamp(value.probability, 0.0, 1.0);
  return value;
}

void validate_channel_inputs(double beta, std::span<const double> u, std::int64_t entries) {
  require(std::isfinite(beta) && beta >= 0,
          "invalid --beta " + format_number(beta) + " (must be finite and >= 0)");
  for (double x : u) {
    require(x >= 0 && x <= 1, "invalid --u " + format_number(x) + " (each must be in [0, 1])");
  }
  const auto m = static_cast<std::int64_t>(u.size());
  require(entries >= m, "invalid --entries " + std::to_string(entries) +
                            " (must be at least the number of needle entries, " +
                            std::to_string(m) + ")");
}

double success_probability(double beta, std::span<const double> u, std::int64_t entries) {
  validate_channel_inputs(beta, u, entries);
  std::vector<NeedleEntry> needle;
  for (double x : u) needle.push_back(normalized_entry(beta, x));
  return needle_success(needle, entries - static_cast<std::int64_t>(u.size())).probability;
}

double single_entry_success(double u, double beta, std::int64_t entries) {
  const double one[] = {u};
  return success_probability(beta, one, entries);
}

}  // namespace phasesim
