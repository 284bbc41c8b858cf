#include "phasesim/stats/binomial.hpp"

#include <algorithm>
#include <boost/math/special_functions/gamma.hpp>
#include <boost/math/tools/roots.hpp>
#include <cmath>
#include <limits>

#include "phasesim/core/portable_math.hpp"

namespace phasesim::stats {
namespace {

double xlogy(double x, double y) { return x == 0 ? 0.0 : x * portable::log(y); }

double sigmoid(double x) {
  return x >= 0 ? 1 / (1 + portable::exp(-x)) : portable::exp(x) / (1 + portable::exp(x));
}

double logit(double p) { return portable::log(p) - portable::log1p(-p); }

// log(1 + e^x) without overflow.
double softplus(double x) {
  return x > 30 ? x + portable::log1p(portable::exp(-x)) : portable::log1p(portable::exp(x));
}

// The p on one side of the maximum where the deviance reaches `cutoff`, solved in log-odds
// x, where log p = -softplus(-x) and log(1 - p) = -softplus(x) stay exact for |x| up to 700
// (the deviance is monotone on each side).
double deviance_root(std::int64_t y, std::int64_t n, double cutoff, double from, double to) {
  const auto successes = static_cast<double>(y);
  const auto failures = static_cast<double>(n - y);
  const double best = binomial_max_log_likelihood(y, n);
  auto excess = [&](double x) {
    return 2 * (best + successes * softplus(-x) + failures * softplus(x)) - cutoff;
  };
  std::uintmax_t iterations = 200;
  const auto [a, b] = boost::math::tools::toms748_solve(
      excess, from, to, boost::math::tools::eps_tolerance<double>(50), iterations);
  return sigmoid(0.5 * (a + b));
}

// Log-factorials are tabulated up to this population (32 MB), computed beyond.
constexpr std::int64_t kTabulated = 4000000;

}  // namespace

double binomial_log_likelihood(std::int64_t successes, std::int64_t trials, double p) {
  const auto y = static_cast<double>(successes);
  const auto failures = static_cast<double>(trials - successes);
  if ((p <= 0 && y > 0) || (p >= 1 && failures > 0))
    return -std::numeric_limits<double>::infinity();
  return xlogy(y, p) + (failures == 0 ? 0.0 : failures * portable::log1p(-p));
}

double binomial_max_log_likelihood(std::int64_t successes, std::int64_t trials) {
  return binomial_log_likelihood(successes, trials,
                                 static_cast<double>(successes) / static_cast<double>(trials));
}

double binomial_deviance(std::int64_t successes, std::int64_t trials, double p) {
  return std::max(0.0, 2 * (binomial_max_log_likelihood(successes, trials) -
                            binomial_log_likelihood(successes, trials, p)));
}

Interval likelihood_interval(std::int64_t successes, std::int64_t trials, double cutoff) {
  const auto n = static_cast<double>(trials);
  // With no successes (or no failures) the deviance is -2 n log(1 - p): closed forms.
  const double edge = -portable::expm1(-cutoff / (2 * n));
  if (successes == 0) return {0.0, edge};
  if (successes == trials) return {1 - edge, 1.0};
  const double center = logit(static_cast<double>(successes) / n);
  return {deviance_root(successes, trials, cutoff, -700.0, center),
          deviance_root(successes, trials, cutoff, center, 700.0)};
}

HypergeometricSampler::HypergeometricSampler(std::int64_t largest_population) {
  if (largest_population > kTabulated) return;
  log_factorials_.resize(static_cast<std::size_t>(largest_population + 1), 0.0);
  for (std::size_t k = 2; k < log_factorials_.size(); ++k) {
    log_factorials_[k] = log_factorials_[k - 1] + portable::log(static_cast<double>(k));
  }
}

double HypergeometricSampler::log_factorial(std::int64_t k) const {
  if (static_cast<std::size_t>(k) < log_factorials_.size()) {
    return log_factorials_[static_cast<std::size_t>(k)];
  }
  return boost::math::lgamma(static_cast<double>(k + 1));
}

std::int64_t HypergeometricSampler::operator()(std::int64_t population, std::int64_t marked,
                                               std::int64_t draws, double u) const {
  const std::int64_t unmarked = population - marked;
  const std::int64_t low = std::max<std::int64_t>(0, draws - unmarked);
  const std::int64_t high = std::min(draws, marked);
  if (low == high) return low;
  // The mode, clamped to the support.
  const auto mode = std::clamp<std::int64_t>(
      static_cast<std::int64_t>(
          std::floor(static_cast<double>(draws + 1) * static_cast<double>(marked + 1) /
                     static_cast<double>(population + 2))),
      low, high);
  const auto up_ratio = [&](std::int64_t k) {  // p(k + 1) / p(k)
    return static_cast<double>(marked - k) * static_cast<double>(draws - k) /
           (static_cast<double>(k + 1) * static_cast<double>(unmarked - draws + k + 1));
  };
  const auto down_ratio = [&](std::int64_t k) {  // p(k - 1) / p(k)
    return static_cast<double>(k) * static_cast<double>(unmarked - draws + k) /
           (static_cast<double>(marked - k + 1) * static_cast<double>(draws - k + 1));
  };
  auto log_choose = [&](std::int64_t a, std::int64_t b) {
    return log_factorial(a) - log_factorial(b) - log_factorial(a - b);
  };
  double p_down = portable::exp(log_choose(marked, mode) + log_choose(unmarked, draws - mode) -
                                log_choose(population, draws));
  double p_up = p_down;
  std::int64_t down = mode;
  std::int64_t up = mode;
  u -= p_down;
  // Visit the support in decreasing probability: the pmf is unimodal, so the next most
  // likely value is next to one end of the visited range.
  while (u > 0 && (down > low || up < high)) {
    const double next_down = down > low ? p_down * down_ratio(down) : -1.0;
    const double next_up = up < high ? p_up * up_ratio(up) : -1.0;
    if (next_up >= next_down) {
      p_up = next_up;
      u -= p_up;
      ++up;
      if (u <= 0) return up;
    } else {
      p_down = next_down;
      u -= p_down;
      --down;
      if (u <= 0) return down;
    }
  }
  // Rounding left a sliver of u: the last value visited.
  return u > 0 ? (p_up < p_down ? up : down) : mode;
}

}  // namespace phasesim::stats
