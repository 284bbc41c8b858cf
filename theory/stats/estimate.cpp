#include "phasesim/stats/estimate.hpp"

#include <algorithm>
#include <cmath>

namespace phasesim::stats {

Proportion estimate_proportion(std::int64_t successes, std::int64_t trials) {
  constexpr double z = 1.959963984540054;  // two-sided 95% normal quantile
  const auto n = static_cast<double>(trials);
  const double p = static_cast<double>(successes) / n;
  const double z2n = z * z / n;
  const double center = (p + z2n / 2) / (1 + z2n);
  const double half = z / (1 + z2n) * std::sqrt(p * (1 - p) / n + z2n / (4 * n));
  return {successes,
          trials,
          p,
          std::sqrt(p * (1 - p) / n),
          std::max(0.0, center - half),
          std::min(1.0, center + half)};
}

void PairedDifference::add(bool x, bool y) {
  const int d = static_cast<int>(y) - static_cast<int>(x);
  ++count_;
  sum_ += d;
  sum_sq_ += d * d;
}

double PairedDifference::mean() const {
  return count_ == 0 ? 0.0 : static_cast<double>(sum_) / static_cast<double>(count_);
}

double PairedDifference::std_error() const {
  if (count_ == 0) return 0;
  const auto n = static_cast<double>(count_);
  const double m = mean();
  return std::sqrt(std::max(0.0, static_cast<double>(sum_sq_) / n - m * m) / n);
}

void GroupMean::add(double value, double std_error) {
  ++count_;
  sum_ += value;
  variance_ += std_error * std_error;
}

double GroupMean::mean() const { return sum_ / count_; }

double GroupMean::std_error() const { return std::sqrt(variance_) / count_; }

}  // namespace phasesim::stats
