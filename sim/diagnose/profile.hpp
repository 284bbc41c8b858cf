#pragma once
// One-dimensional profile-likelihood tools shared by the fits of diagnose (docs/DIAGNOSE.md):
// a phase's log-likelihood, the maximum of a profile over a scan, and the ends of
// {x : profile(x) >= target}.
#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/tools/minima.hpp>
#include <boost/math/tools/roots.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "phasesim/core/error.hpp"
#include "phasesim/diagnose/fit.hpp"
#include "phasesim/stats/binomial.hpp"

namespace phasesim::diagnose::detail {

/// The drop of the log-likelihood that bounds a 95% profile-likelihood interval.
inline constexpr double kProfileDrop = stats::kChiSquared1At95 / 2;

/// A phase's binomial log-likelihood at success p. Successes where the model puts probability 0
/// (or failures where it puts 1) cost what a probability of 1e-300 (or 1 - 1e-16) would:
/// finite, so that searches stay defined.
inline double phase_log_likelihood(const PhaseData& phase, double p) {
  return stats::binomial_log_likelihood(phase.successes, phase.trials,
                                        std::clamp(p, 1e-300, 1 - 1e-16));
}

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

/// How far the profile drops by kProfileDrop on either side of its maximum, from its
/// curvature there (two evaluations, `step` apart); `step` when it is flat.
template <typename F>
double predicted_half_width(F f, const ProfileMaximum& best, double step) {
  const double curvature =
      (f(best.x + step) + f(std::max(0.0, best.x - step)) - 2 * best.value) / (step * step);
  return curvature < 0 ? std::sqrt(2 * kProfileDrop / -curvature) : step;
}

/// The end of {x : f(x) >= target} going from `inside` (where f >= target) towards the
/// search limit `outside`: probes at inside + step, + 2 step, + 4 step, ... until f falls
/// below the target, then TOMS748 on the last bracket; `outside` itself when f stays above
/// the target up to there.
template <typename F>
double profile_end(F f, double inside, double outside, double target, double step) {
  const double direction = outside > inside ? 1.0 : -1.0;
  double near = inside;
  double near_value = f(inside) - target;
  for (double distance = std::abs(step);; distance *= 2) {
    const bool last = distance >= std::abs(outside - inside);
    const double far = last ? outside : inside + direction * distance;
    const double far_value = f(far) - target;
    if (far_value < 0) {
      std::uintmax_t iterations = 60;
      const auto excess = [&](double x) { return f(x) - target; };
      const auto [a, b] = boost::math::tools::toms748_solve(
          excess, std::min(near, far), std::max(near, far), direction > 0 ? near_value : far_value,
          direction > 0 ? far_value : near_value, boost::math::tools::eps_tolerance<double>(16),
          iterations);
      return 0.5 * (a + b);
    }
    if (last) return outside;
    near = far;
    near_value = far_value;
  }
}

/// The largest value along the grid of betas (NaN where a beta has no extent; -infinity when
/// none has), raised to the vertex of the parabola through it and its two neighbours.
inline double refined_max(const std::vector<double>& y) {
  std::size_t best = y.size();
  for (std::size_t i = 0; i < y.size(); ++i) {
    if (!std::isnan(y[i]) && (best == y.size() || y[i] > y[best])) best = i;
  }
  if (best == y.size()) return -std::numeric_limits<double>::infinity();
  if (best == 0 || best + 1 == y.size() || std::isnan(y[best - 1]) || std::isnan(y[best + 1])) {
    return y[best];
  }
  const double curvature = y[best - 1] - 2 * y[best] + y[best + 1];
  const double slope = 0.5 * (y[best + 1] - y[best - 1]);
  return curvature < 0 ? std::max(y[best], y[best] - slope * slope / (2 * curvature)) : y[best];
}

/// A profile's maximum and its 95% interval within [lower, upper]; `high` is unset when the
/// profile stays above the cut up to `upper` (the table does not bound the parameter).
struct ProfileInterval {
  ProfileMaximum best;
  double low = 0;
  std::optional<double> high;
};

/// The betas a profile in beta is scanned at before Brent: from chance (0) to kMaxFitBeta.
inline std::vector<double> beta_scan() {
  return {0, 0.5, 1, 2, 3, 4.5, 6.5, 9, 12.5, 17, 23, 30, kMaxFitBeta};
}

/// The maximum of a profile over the sorted points' range when it may have a second, lower
/// maximum within a step of the scan (the saturated 2-token fit's profile in beta has one where
/// a weight reaches 0, a beta away from the table's): from the scan's best point x, the midpoints
/// of its two neighbouring intervals join the points and the best is taken again, until those
/// intervals together are narrower than `relative_width` (1 + |x|); then Brent between x's
/// neighbours. Each halving looks at both sides, so the climb follows the higher peak where one
/// Brent over the scan's bracket may settle on the lower.
template <typename F>
ProfileMaximum climb_scanned(F f, const std::vector<double>& points, double relative_width) {
  std::map<double, double> values;
  for (double x : points) values.emplace(x, f(x));
  for (;;) {
    const auto best =
        std::max_element(values.begin(), values.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; });
    const double x = best->first;
    const double left = best == values.begin() ? x : std::prev(best)->first;
    const double right = std::next(best) == values.end() ? x : std::next(best)->first;
    if (right - left > relative_width * (1 + std::abs(x))) {
      for (const double mid : {0.5 * (left + x), 0.5 * (x + right)}) {
        if (mid != x && !values.contains(mid)) values.emplace(mid, f(mid));
      }
      continue;
    }
    std::uintmax_t iterations = 40;
    const auto [t, negative] = boost::math::tools::brent_find_minima(
        [&](double u) { return -f(u); }, left, right, 24, iterations);
    if (-negative > best->second) return {t, -negative};
    return {x, best->second};
  }
}

/// The climb's stopping width, relative to 1 + beta: 0.6 at beta 5, about three Brent steps.
inline constexpr double kClimbWidth = 0.1;

template <typename F>
ProfileInterval profile_interval(F f, const std::vector<double>& scan) {
  ProfileInterval result;
  result.best = climb_scanned(f, scan, kClimbWidth);
  const double lower = scan.front();
  const double upper = scan.back();
  const double target = result.best.value - kProfileDrop;
  const double step = predicted_half_width(f, result.best, 0.01 * (1 + result.best.x));
  result.low = result.best.x > lower ? profile_end(f, result.best.x, lower, target, step) : lower;
  const double high = profile_end(f, result.best.x, upper, target, step);
  if (high < upper) result.high = high;
  return result;
}

/// Throws InputError unless there is a phase, every phase has trials and some phase is held
/// by an entry (not every phase structurally blind).
inline void validate_fit_input(const FitInput& input) {
  require(!input.phases.empty(), "invalid fit (no phases)");
  bool held = false;
  for (const auto& p : input.phases) {
    require(p.trials >= 1, "invalid fit (a phase without trials)");
    held = held || p.slots.holding > 0;
  }
  require(held, "invalid fit (every phase is structurally blind)");
}

/// A fit from its profile in beta: the model's name, beta, its interval and the maximum.
inline ModelFit profile_fit(FitModel model, const ProfileInterval& interval) {
  ModelFit fit;
  fit.model = model;
  fit.beta = interval.best.x;
  fit.log_likelihood = interval.best.value;
  fit.beta_low = interval.low;
  fit.beta_high = interval.high;
  return fit;
}

/// The fit's deviance against the per-phase table (every phase at its own accuracy), and
/// its chi-squared p-value when the model leaves df > 0 degrees of freedom.
inline void set_deviance(const FitInput& input, int df, ModelFit& fit) {
  double saturated = 0;
  for (const auto& p : input.phases) {
    saturated += stats::binomial_max_log_likelihood(p.successes, p.trials);
  }
  fit.deviance = std::max(0.0, 2 * (saturated - fit.log_likelihood));
  fit.deviance_df = df;
  if (df > 0) {
    fit.deviance_p = boost::math::cdf(
        boost::math::complement(boost::math::chi_squared_distribution<double>(df), fit.deviance));
  }
}

inline constexpr double kNegativeInfinity = -std::numeric_limits<double>::infinity();

/// For each phase, the head counts whose profile (maximized over beta in [beta_low, beta_high]
/// and over the other phases' counts) stays above the target, as [heads_low, heads_high] around
/// the fitted count: the profile at 25 betas across the interval (`make(beta)` the model there,
/// `fixed(model, phase, count)` its best log-likelihood with the phase's count fixed), refined
/// by Brent where the grid comes within twice the drop and may miss the peak.
template <typename Make, typename Fixed>
void add_head_ranges(const FitInput& input, double beta_low, double beta_high, double target,
                     Make make, Fixed fixed, ModelFit& fit) {
  constexpr int kBetaGrid = 25;
  std::map<double, decltype(make(beta_low))> models;  // by beta: the refinements rescan the grid
  const auto model_at = [&](double beta) -> const auto& {
    auto it = models.find(beta);
    if (it == models.end()) it = models.emplace(beta, make(beta)).first;
    return it->second;
  };
  std::vector<double> betas;
  for (int i = 0; i < kBetaGrid; ++i) {
    betas.push_back(beta_low + (beta_high - beta_low) * i / (kBetaGrid - 1));
  }
  for (std::size_t p = 0; p < input.phases.size(); ++p) {
    std::vector<int> allowed;
    for (int n = 0; n <= input.heads; ++n) {
      double best = kNegativeInfinity;
      for (const double beta : betas) best = std::max(best, fixed(model_at(beta), p, n));
      if (best < target && best > target - 2 * kProfileDrop) {
        best = maximize_scanned([&](double b) { return fixed(model_at(b), p, n); }, betas).value;
      }
      if (best >= target) allowed.push_back(n);
    }
    auto& phase = fit.phases[p];
    phase.heads_low = allowed.empty() ? *phase.heads : std::min(allowed.front(), *phase.heads);
    phase.heads_high = allowed.empty() ? *phase.heads : std::max(allowed.back(), *phase.heads);
  }
}

}  // namespace phasesim::diagnose::detail
