#pragma once
// The law of D_(k), the k-th largest of n iid N(0, 1) (internal to theory/channel): what a
// needle must beat in the top-k channel (k = 1: section 4's maximum) and what the read path's
// stage 1 integrates over (MODEL.md section 10). Log space throughout, log C by a sum of logs
// (lgamma differences at n = 10^7 would lose 1e-8 of the density).
#include <algorithm>
#include <boost/math/special_functions/beta.hpp>
#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

#include "phasesim/core/normal.hpp"
#include "phasesim/core/portable_math.hpp"

namespace phasesim::channel::detail {

/// The policy of Boost's special functions of a double in the read path. By default Boost
/// evaluates them in long double: x87 natively, where the results stay as they were; in
/// WebAssembly long double is binary128 computed in software, where the read path's ibeta and
/// erfc made the page's frontier of top-k designs 60 times slower than the CLI (15 s at 128k).
/// The browser build evaluates them in double, as core/normal.hpp's log_normal_cdf does there
/// (the page matches the CLI within 1e-12, tests/web/page_test.mjs).
#ifdef __wasm__
using DoublePolicy = boost::math::policies::policy<boost::math::policies::promote_double<false>>;
#else
using DoublePolicy = boost::math::policies::policy<>;
#endif

struct OrderLaw {
  double n;
  std::int64_t k;
  double log_choose = 0;  ///< log C(n - 1, k - 1)
  bool fast = false;      ///< log Phi in double (log_normal_cdf_double): diagnose's tables

  OrderLaw(double n_, std::int64_t k_, bool fast_ = false) : n(n_), k(k_), fast(fast_) {
    for (std::int64_t i = 1; i < k; ++i) {
      log_choose += portable::log((n - static_cast<double>(k) + static_cast<double>(i)) /
                                  static_cast<double>(i));
    }
  }
  /// log of Q(y)^(k - 1) Phi(y)^(n - k + 1 - extra): the density's powers (extra 1) and the
  /// binomial's (extra 0).
  double log_powers(double y, std::int64_t extra) const {
    const auto log_cdf = [this](double x) {
      return fast ? log_normal_cdf_double(x) : log_normal_cdf(x);
    };
    const double above = k > 1 ? static_cast<double>(k - 1) * log_cdf(-y) : 0.0;
    return above + (n - static_cast<double>(k - 1 + extra)) * log_cdf(y);
  }
  /// log of its density n C(n - 1, k - 1) phi(y) Q(y)^(k - 1) Phi(y)^(n - k).
  double log_density(double y) const {
    return portable::log(n) + log_choose + log_normal_pdf(y) + log_powers(y, 1);
  }
  /// P(exactly k - 1 of the n lie above y) = C(n, k - 1) Q^(k - 1) Phi^(n - k + 1).
  double binomial(double y) const {
    const double log_n_choose = log_choose + portable::log(n / (n - static_cast<double>(k - 1)));
    return portable::exp(log_n_choose + log_powers(y, 0));
  }
  /// d/dy of log_density: -y + (n - k) phi/Phi - (k - 1) phi/Q.
  double log_slope(double y) const {
    double slope =
        -y + (n - static_cast<double>(k)) * portable::exp(log_normal_pdf(y) - log_normal_cdf(y));
    if (k > 1) {
      slope -= static_cast<double>(k - 1) * portable::exp(log_normal_pdf(y) - log_normal_cdf(-y));
    }
    return slope;
  }
  /// The values at the quantiles `p` of Q(D_(k)) ~ Beta(k, n - k + 1) (break points), increasing.
  std::vector<double> quantiles(std::initializer_list<double> p) const {
    std::vector<double> list;
    const double a = static_cast<double>(k), b = n - static_cast<double>(k) + 1;
    for (const double x : p) {
      const double q = x <= 0.5 ? boost::math::ibeta_inv(a, b, x, DoublePolicy{})
                                : boost::math::ibetac_inv(a, b, 1 - x, DoublePolicy{});
      if (q > 0 && q < 1) list.push_back(normal_upper_quantile(q));
    }
    std::sort(list.begin(), list.end());
    return list;
  }
  /// [lo, hi] holding all but 2 `tail` of it.
  std::pair<double, double> range(double tail) const {
    const double a = static_cast<double>(k), b = n - static_cast<double>(k) + 1;
    return {normal_upper_quantile(boost::math::ibetac_inv(a, b, tail, DoublePolicy{})),
            normal_upper_quantile(boost::math::ibeta_inv(a, b, tail, DoublePolicy{}))};
  }
};

}  // namespace phasesim::channel::detail
