#pragma once
// Monte Carlo estimates with their uncertainty: a proportion with its standard error and
// Wilson 95% interval, the mean of paired differences (common random numbers), and the mean
// of independent per-group estimates.
#include <cstdint>

namespace phasesim::stats {

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

/// The mean over groups of independent estimates, with its standard error sqrt(sum se^2) / G.
class GroupMean {
 public:
  void add(double value, double std_error);
  double mean() const;
  double std_error() const;

 private:
  int count_ = 0;
  double sum_ = 0;
  double variance_ = 0;  ///< sum of se^2
};

}  // namespace phasesim::stats
