// The statistics of diagnose: the worst-phase cutoff and the power formula against
// simulated tables (the likelihoods and the period test are stats', tests/stats/).
#include <doctest/doctest.h>

#include <boost/math/distributions/chi_squared.hpp>
#include <cmath>
#include <vector>

#include "phasesim/core/random.hpp"
#include "phasesim/diagnose/phases.hpp"
#include "phasesim/diagnose/power.hpp"
#include "phasesim/stats/binomial.hpp"
#include "phasesim/stats/period.hpp"

using namespace phasesim;
using namespace phasesim::diagnose;
using namespace phasesim::stats;

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
