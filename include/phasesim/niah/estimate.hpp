#pragma once
// Monte Carlo estimates with their uncertainty: a proportion with its standard error and
// Wilson 95% interval, and the mean of paired differences (common random numbers).
#include <cstdint>

namespace phasesim {

struct Proportion {
  std::int64_t successes = 0;
  std::int64_t trials = 0;
  double mean = 0;       ///< successes / trials
  double std_error = 0;  ///< sqrt(mean (1 - mean) / trials)
  double ci_low = 0;     ///< Wilson 95% interval
  double ci_high = 0;
};

/// Estimate of a success probability from `successes` of `trials` (trials >= 1).
Proportion estimate_proportion(std::int64_t successes, std::int64_t trials);

/// Accumulates paired differences d_i = y_i - x_i of 0/1 outcomes on the same trials.
class PairedDifference {
 public:
  void add(bool x, bool y);
  double mean() const;
  /// Standard error of the mean difference, sqrt(var(d) / n) with the plug-in variance.
  double std_error() const;

 private:
  std::int64_t count_ = 0;
  std::int64_t sum_ = 0;     ///< sum of d_i
  std::int64_t sum_sq_ = 0;  ///< sum of d_i^2
};

}  // namespace phasesim
