#include "phasesim/channel.hpp"

#include <algorithm>
#include <boost/math/special_functions/erf.hpp>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include "phasesim/error.hpp"
#include "phasesim/normal.hpp"
#include "vector_quadrature.hpp"

namespace phasesim {
namespace {

// Mass of the distractor maximum left outside the integration range, on each side.
constexpr double kTailMass = 1e-18;
// Gauss-Kronrod settings: relative tolerance per piece and bisection depth. Rounding
// in (y - mean) / sd sets a noise floor near 1e-13 when sd is tiny (u close to 1), so a
// tighter tolerance would only bisect noise down to the depth limit.
constexpr double kTolerance = 1e-12;
constexpr unsigned kMaxDepth = 12;
// Entries narrower than this get break points at +-8 sd too.
constexpr double kNarrow = 0.1;

// log P(x_s < y) for one needle entry; a step at the mean when sd = 0.
double log_below(const NeedleEntry& e, double y) {
  if (e.sd == 0) return y <= e.mean ? -std::numeric_limits<double>::infinity() : 0.0;
  return log_normal_cdf((y - e.mean) / e.sd);
}

// log of the density of the maximum of n iid N(0, 1) at y: log(n phi(y) Phi(y)^(n-1)).
double log_max_density(double y, double n) {
  const double log_below_all = n > 1 ? (n - 1) * log_normal_cdf(y) : 0.0;
  return std::log(n) + log_normal_pdf(y) + log_below_all;
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
    for (double k : {-8.0, -4.0, 0.0, 4.0, 8.0}) {
      // A narrow entry's derivative is a spike of width sd: bracket its tails as well.
      if (std::abs(k) > 4 && e.sd > kNarrow) continue;
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

// Writes the integrand at y: out[0] for P, then dP/dmean_s and dP/dsd_s per entry.
void channel_integrand(std::span<const NeedleEntry> needle, double n, double y,
                       std::span<double> out, std::vector<double>& below) {
  const double log_density = log_max_density(y, n);
  double log_all = 0;
  for (std::size_t s = 0; s < needle.size(); ++s) log_all += below[s] = log_below(needle[s], y);
  out[0] = std::exp(log_density) * -std::expm1(log_all);
  if (out.size() == 1) return;
  for (std::size_t s = 0; s < needle.size(); ++s) {
    const auto& e = needle[s];
    double& d_mean = out[1 + 2 * s];
    double& d_sd = out[2 + 2 * s];
    d_mean = d_sd = 0;
    if (e.sd == 0) continue;  // a step: its delta is added outside the integral
    // Sum over the other entries directly: subtracting from log_all fails at -inf.
    double log_rest = 0;
    for (std::size_t t = 0; t < needle.size(); ++t) log_rest += t == s ? 0.0 : below[t];
    const double z = (y - e.mean) / e.sd;
    d_mean = std::exp(log_density + log_normal_pdf(z) + log_rest) / e.sd;
    d_sd = d_mean * z;
  }
}

// The delta of a step entry (sd = 0): density of the maximum at its mean times the
// other entries' factors there.
double step_derivative(std::span<const NeedleEntry> needle, std::size_t s, double n) {
  const double y = needle[s].mean;
  double log_rest = log_max_density(y, n);
  for (std::size_t t = 0; t < needle.size(); ++t)
    log_rest += t == s ? 0.0 : log_below(needle[t], y);
  return std::exp(log_rest);
}

// d/dy log F(y) at y = mean_s, F = density of the maximum times the other entries'
// factors (all of which have sd > 0 when entry s has sd = 0 and u is normalized).
double log_slope(std::span<const NeedleEntry> needle, std::size_t s, std::int64_t distractors) {
  const double y = needle[s].mean;
  const auto n = static_cast<double>(distractors);
  // d/dy log(n phi(y) Phi(y)^(n-1)) = -y + (n-1) phi(y)/Phi(y).
  double slope = -y + (n - 1) * std::exp(log_normal_pdf(y) - log_normal_cdf(y));
  for (std::size_t t = 0; t < needle.size(); ++t) {
    if (t == s) continue;
    const double z = (y - needle[t].mean) / needle[t].sd;
    slope += std::exp(log_normal_pdf(z) - log_normal_cdf(z)) / needle[t].sd;
  }
  return slope;
}

ChannelGradient integrate_channel(std::span<const NeedleEntry> needle, std::int64_t distractors,
                                  bool with_gradient) {
  validate(needle);
  require(distractors >= 0,
          "invalid distractor count " + std::to_string(distractors) + " (must be >= 0)");
  const std::size_t m = needle.size();
  ChannelGradient result;
  if (with_gradient) result.d_mean.assign(m, 0.0), result.d_sd.assign(m, 0.0);
  if (m == 0) return result;
  if (distractors == 0) {
    result.probability = 1.0;
    return result;
  }

  const auto n = static_cast<double>(distractors);
  const std::size_t components = with_gradient ? 1 + 2 * m : 1;
  std::vector<double> below(m);
  auto integrand = [&](double y, std::span<double> out) {
    channel_integrand(needle, n, y, out, below);
  };
  const auto [lo, hi] = distractor_max_range(n);
  const auto points = break_points(needle, lo, hi);
  const detail::VectorGaussKronrod quadrature(components, kTolerance, kMaxDepth);
  std::vector<double> sum(components, 0.0);
  result.error_estimate = 2 * kTailMass;
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    quadrature.integrate(integrand, points[i], points[i + 1], sum, result.error_estimate);
  }
  result.probability = std::clamp(sum[0], 0.0, 1.0);
  for (std::size_t s = 0; with_gradient && s < m; ++s) {
    result.d_mean[s] = sum[1 + 2 * s];
    result.d_sd[s] = sum[2 + 2 * s];
    if (needle[s].sd == 0) result.d_mean[s] = step_derivative(needle, s, n);
  }
  return result;
}

}  // namespace

NeedleEntry normalized_entry(double beta, double u) {
  return {beta * u, std::sqrt((1 - u) * (1 + u))};
}

ChannelValue needle_success(std::span<const NeedleEntry> needle, std::int64_t distractors) {
  const auto full = integrate_channel(needle, distractors, false);
  return {full.probability, full.error_estimate};
}

ChannelGradient needle_success_gradient(std::span<const NeedleEntry> needle,
                                        std::int64_t distractors) {
  return integrate_channel(needle, distractors, true);
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

SuccessGradient success_gradient(double beta, std::span<const double> u, std::int64_t entries) {
  validate_channel_inputs(beta, u, entries);
  require(std::count(u.begin(), u.end(), 1.0) <= 1,
          "invalid --u (at most one needle entry can have u = 1)");
  std::vector<NeedleEntry> needle;
  for (double x : u) needle.push_back(normalized_entry(beta, x));
  const auto n = entries - static_cast<std::int64_t>(u.size());
  const auto full = needle_success_gradient(needle, n);
  SuccessGradient result{full.probability, std::vector<double>(u.size(), 0.0)};
  for (std::size_t s = 0; s < u.size(); ++s) {
    if (needle[s].sd > 0) {
      result.d_u[s] = beta * full.d_mean[s] - u[s] / needle[s].sd * full.d_sd[s];
    } else if (n > 0) {
      result.d_u[s] = beta * full.d_mean[s] - full.d_mean[s] * log_slope(needle, s, n);
    }
  }
  return result;
}

double single_entry_success(double u, double beta, std::int64_t entries) {
  const double one[] = {u};
  return success_probability(beta, one, entries);
}

}  // namespace phasesim
