// The statistics under diagnose: likelihood-ratio intervals, exact hypergeometric draws,
// the worst-phase cutoff, the fast success curve against the channel's quadrature, and the
// power formula against simulated tables.
#include <doctest/doctest.h>

#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/hypergeometric.hpp>
#include <cmath>
#include <vector>

#include "phasesim/channel/channel.hpp"
#include "phasesim/core/random.hpp"
#include "phasesim/diagnose/binomial.hpp"
#include "phasesim/diagnose/period.hpp"
#include "phasesim/diagnose/phases.hpp"
#include "phasesim/diagnose/power.hpp"
#include "phasesim/diagnose/success_curve.hpp"

using namespace phasesim;

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

TEST_CASE("worst-phase cutoff: the chi-bar-squared point of S tied phases") {
  CHECK(worst_phase_cutoff(1) == doctest::Approx(kChiSquared1At95).epsilon(1e-8));
  for (int S : {2, 4, 8}) {
    const double c = worst_phase_cutoff(S);
    double tail = 0;
    for (int j = 1; j <= S; ++j) {
      double choose = 1;
      for (int i = 0; i < j; ++i) choose = choose * (S - i) / (i + 1);
      tail +=
          choose * std::pow(0.5, S) *
          boost::math::cdf(boost::math::complement(boost::math::chi_squared_distribution<>(j), c));
    }
    CHECK(tail == doctest::Approx(0.025).epsilon(1e-8));
    CHECK(c > kChiSquared1At95);
  }
}

TEST_CASE("success curve: the fast integral and its spline against the channel's quadrature") {
  // Reference: success_probability (adaptive quadrature over the distractor maximum,
  // absolute error 1e-12; tests/channel_test.cpp checks it against mpmath).
  double worst_direct = 0;
  double worst_spline = 0;
  for (std::int64_t entries : {8, 1024, 32768, 1000000}) {
    for (double beta : {0.0, 3.0, 9.5, 20.0, 39.0}) {
      for (const PhaseSlots slots : {PhaseSlots{1, 1}, PhaseSlots{2, 1}, PhaseSlots{2, 2}}) {
        const SuccessCurve curve(slots, beta, entries);
        for (int i = 0; i <= 23; ++i) {
          const double u = curve.max_u() * i / 23.0;
          std::vector<double> weights(static_cast<std::size_t>(slots.holding), 0.0);
          for (int s = 0; s < slots.weighted; ++s) weights[static_cast<std::size_t>(s)] = u;
          const double exact = success_probability(beta, weights, entries);
          worst_direct =
              std::max(worst_direct, std::abs(phase_success_at(slots, u, beta, entries) - exact));
          worst_spline = std::max(worst_spline, std::abs(curve(u) - exact));
        }
      }
    }
  }
  CHECK(worst_direct < 1e-8);
  CHECK(worst_spline < 5e-6);
}

namespace {

// Binomial draws from Philox uniforms: the per-group successes of one simulated table.
std::vector<GroupCount> simulate(const std::vector<double>& accuracy, std::int64_t prompts,
                                 std::uint32_t table) {
  std::vector<GroupCount> groups;
  for (std::size_t g = 0; g < accuracy.size(); ++g) {
    GroupCount row{static_cast<int>(g), 0, prompts};
    const RandomStream stream(11, table, static_cast<std::uint32_t>(g), Stream::diagnose_null);
    for (std::int64_t i = 0; i < prompts; ++i) {
      row.successes += stream.uniform_pair(static_cast<std::uint32_t>(i), 1).x <= accuracy[g];
    }
    groups.push_back(row);
  }
  return groups;
}

}  // namespace

TEST_CASE("power: the non-central chi-squared formula against simulated tables") {
  // A V4-like profile over 8 groups with period 4, at a fraction of its gap.
  const std::vector<double> profile{0.30, 0.30, 0.30, 0.42, 0.30, 0.30, 0.30, 0.42};
  CountTable table;
  for (int g = 0; g < 8; ++g) {
    table.groups.push_back({g, std::llround(profile[static_cast<std::size_t>(g)] * 1000), 1000});
  }
  const auto analysis = power_analysis(table, 4);
  REQUIRE(analysis.observed.prompts);
  REQUIRE(analysis.half.prompts);
  CHECK(*analysis.half.prompts > 3 * *analysis.observed.prompts);  // about 4x for half the gap
  const double critical = boost::math::quantile(
      boost::math::complement(boost::math::chi_squared_distribution<>(3), 0.05));
  constexpr int kTables = 3000;
  for (const auto& c : std::vector<std::pair<double, std::int64_t>>{
           {1.0, *analysis.observed.prompts}, {0.5, *analysis.half.prompts}}) {
    const double gap_scale = c.first;  // not bindings: clang 14's CAPTURE cannot take them
    const std::int64_t prompts = c.second;
    std::vector<double> accuracy = profile;
    for (double& a : accuracy) a = 0.33 + gap_scale * (a - 0.33);
    const double predicted = period_test_power(accuracy, 4, prompts, 0.05);
    CHECK(predicted >= 0.8);
    CHECK(predicted < 0.82);
    int rejected = 0;
    for (std::uint32_t t = 0; t < kTables; ++t) {
      rejected += period_statistic(simulate(accuracy, prompts, t), 4) > critical;
    }
    const double rate = static_cast<double>(rejected) / kTables;
    CAPTURE(prompts);
    CAPTURE(rate);
    CHECK(std::abs(rate - predicted) <= 5 * std::sqrt(predicted * (1 - predicted) / kTables));
  }
}
