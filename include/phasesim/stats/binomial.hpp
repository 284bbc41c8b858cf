#pragma once
// Binomial likelihoods of per-group counts (docs/DIAGNOSE.md; MODEL.md section 5): log-likelihoods
// and deviances, likelihood-ratio intervals for a proportion, and exact draws of the
// hypergeometric law, which is the null distribution of a table given its margins.
#include <cstdint>
#include <vector>

namespace phasesim::stats {

/// chi-squared(1) 95% quantile: a likelihood-ratio interval keeps every value whose
/// deviance stays below it.
inline constexpr double kChiSquared1At95 = 3.841458820694124;

/// y log p + (n - y) log(1 - p), with 0 log 0 = 0 (-infinity where p excludes the data).
double binomial_log_likelihood(std::int64_t successes, std::int64_t trials, double p);

/// The log-likelihood at the maximum, p = y / n.
double binomial_max_log_likelihood(std::int64_t successes, std::int64_t trials);

/// 2 (max log-likelihood - log-likelihood at p): >= 0, 0 at p = y / n.
double binomial_deviance(std::int64_t successes, std::int64_t trials, double p);

struct Interval {
  double low = 0;
  double high = 0;
};

/// {p : binomial_deviance(y, n, p) <= cutoff}: the likelihood-ratio interval (95% with
/// kChiSquared1At95); it reaches 0 when y = 0 and 1 when y = n.
Interval likelihood_interval(std::int64_t successes, std::int64_t trials,
                             double cutoff = kChiSquared1At95);

/// Exact draws from the hypergeometric law (successes among `draws` items taken without
/// replacement from `population` items of which `marked` are marked), by inversion of a
/// uniform u in (0, 1]: the support is visited from the mode outwards in decreasing
/// probability, so a draw costs about one standard deviation of the law. Log-factorials
/// are tabulated up to the largest population (when it is at most 4e6; lgamma beyond).
class HypergeometricSampler {
 public:
  explicit HypergeometricSampler(std::int64_t largest_population);
  std::int64_t operator()(std::int64_t population, std::int64_t marked, std::int64_t draws,
                          double u) const;

 private:
  double log_factorial(std::int64_t k) const;
  std::vector<double> log_factorials_;
};

}  // namespace phasesim::stats
