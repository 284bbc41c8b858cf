// Binomial likelihoods and intervals, and the exact hypergeometric draws behind the period
// test's null tables (phasesim/stats/binomial.hpp).
#include "phasesim/stats/binomial.hpp"

#include <doctest/doctest.h>

#include <boost/math/distributions/hypergeometric.hpp>
#include <cmath>
#include <vector>

#include "phasesim/core/random.hpp"

using namespace phasesim;
using namespace phasesim::stats;

TEST_CASE("likelihood interval: the deviance is the cutoff at both ends") {
  for (const auto& c :
       std::vector<std::pair<int, int>>{{5, 20}, {1, 256}, {179, 256}, {255, 256}, {5000, 20480}}) {
    const int y = c.first, n = c.second;  // clang 14's CAPTURE cannot take bindings
    CAPTURE(y);
    CAPTURE(n);
    const auto i = likelihood_interval(y, n);
    CHECK(i.low < static_cast<double>(y) / n);
    CHECK(i.high > static_cast<double>(y) / n);
    CHECK(binomial_deviance(y, n, i.low) == doctest::Approx(kChiSquared1At95).epsilon(1e-8));
    CHECK(binomial_deviance(y, n, i.high) == doctest::Approx(kChiSquared1At95).epsilon(1e-8));
  }
  // No successes: the closed form 1 - exp(-cutoff / 2n).
  const auto zero = likelihood_interval(0, 256);
  CHECK(zero.low == 0);
  CHECK(zero.high == doctest::Approx(-std::expm1(-kChiSquared1At95 / 512)).epsilon(1e-14));
  CHECK(likelihood_interval(256, 256).high == 1);
}

TEST_CASE("hypergeometric draws follow the exact law (every value within 5 sigma)") {
  struct Case {
    std::int64_t population, marked, draws;
  };
  // The last population is past the tabulated log-factorials.
  for (const auto& c :
       std::vector<Case>{{40, 12, 10}, {2048, 776, 256}, {30, 29, 10}, {5000000, 2000000, 60}}) {
    CAPTURE(c.population);
    const HypergeometricSampler sampler(c.population);
    const boost::math::hypergeometric_distribution<double> law(static_cast<unsigned>(c.marked),
                                                               static_cast<unsigned>(c.draws),
                                                               static_cast<unsigned>(c.population));
    constexpr int kDraws = 40000;
    std::vector<int> counts(static_cast<std::size_t>(c.draws + 1), 0);
    for (std::uint32_t i = 0; i < kDraws; ++i) {
      const double u = RandomStream(7, i, 0, Stream::diagnose_null).uniform_pair(0, 0).x;
      ++counts[static_cast<std::size_t>(sampler(c.population, c.marked, c.draws, u))];
    }
    for (std::size_t k = 0; k < counts.size(); ++k) {
      const double p = k <= static_cast<std::size_t>(std::min(c.marked, c.draws)) &&
                               static_cast<std::int64_t>(k) >= c.draws - (c.population - c.marked)
                           ? boost::math::pdf(law, static_cast<unsigned>(k))
                           : 0.0;
      CAPTURE(k);
      CHECK(std::abs(counts[k] - kDraws * p) <= 5 * std::sqrt(kDraws * p * (1 - p)) + 1e-9);
    }
  }
}
