// The one period test (phasesim/stats/period.hpp), on tables whose answer is known: flat,
// V4-like (one strong phase of four), V4.1-like (even/odd), its statistics against closed
// forms, and its independence of the thread count.
#include "phasesim/stats/period.hpp"

#include <doctest/doctest.h>

#include <boost/math/distributions/chi_squared.hpp>
#include <cmath>
#include <functional>

#include "phasesim/core/error.hpp"
#include "support/threads.hpp"

using namespace phasesim;
using namespace phasesim::stats;

namespace {

// G groups of `trials` each, successes(r) in group r.
std::vector<GroupCount> table(int groups, std::int64_t trials,
                              const std::function<std::int64_t(int)>& successes) {
  std::vector<GroupCount> rows;
  for (int r = 0; r < groups; ++r) rows.push_back({r, successes(r), trials});
  return rows;
}

const PeriodOptions kOptions{999, 3, 0.05};

}  // namespace

TEST_CASE("a flat table has no period, one strong phase of four has period 4") {
  const auto flat =
      test_periods(table(8, 200, [](int r) { return r % 2 ? 105 : 95; }), kOptions, Parallel{});
  CHECK_FALSE(flat.period);
  CHECK(period_verdict(flat).starts_with("no period detectable at this sample size"));
  REQUIRE(flat.candidates.size() == 3);  // divisors 2, 4, 8
  CHECK(flat.candidates[0].period == 2);
  // V4-like: phase 3 (groups 3 and 7) far above the rest.
  const auto v4 = test_periods(table(8, 256, [](int r) { return r % 4 == 3 ? 180 : 70; }), kOptions,
                               Parallel{});
  CHECK(v4.period == 4);
  CHECK(v4.candidates[1].rejects_flat);
  CHECK(v4.candidates[1].fits);
  CHECK_FALSE(v4.candidates[0].fits);  // period 2 leaves groups 1 and 3 apart
  CHECK(period_verdict(v4).starts_with("period 4: accuracy depends on the group mod 4"));
  // Even/odd alternation (V4.1): period 2.
  const auto v41 =
      test_periods(table(8, 2560, [](int r) { return r % 2 ? 2300 : 2430; }), kOptions, Parallel{});
  CHECK(v41.period == 2);
}

TEST_CASE("the statistics against closed forms") {
  // Two groups 60/100 and 40/100: 2 (LL with two accuracies - LL with one) on 1 df.
  const auto two = table(2, 100, [](int r) { return r ? 40 : 60; });
  const double statistic = 2 * (120 * std::log(0.6) + 80 * std::log(0.4) - 200 * std::log(0.5));
  CHECK(period_statistic(two, 2) == doctest::Approx(statistic).epsilon(1e-12));
  const auto test = test_periods(two, {9999, 1, 0.05}, Parallel{});
  REQUIRE(test.candidates.size() == 1);
  const auto& c = test.candidates[0];
  CHECK(c.df == 1);
  const boost::math::chi_squared_distribution<double> chi2(1);
  CHECK(c.p_chi_squared == doctest::Approx(cdf(complement(chi2, statistic))).epsilon(1e-12));
  // The exact conditional p-value of a table this large is close to the asymptotic one:
  // within 5 of its Monte Carlo standard errors (plus the discreteness of the counts).
  CHECK(std::abs(c.p_value - c.p_chi_squared) < 5 * c.p_value_std_error + 0.002);
  CHECK(c.p_value_std_error ==
        doctest::Approx(std::sqrt(c.p_value * (1 - c.p_value) / 9999)).epsilon(1e-12));
  CHECK(c.lack_of_fit == 0);  // P = G explains the table
}

TEST_CASE("the period test does not depend on the thread count" * doctest::test_suite("bitexact")) {
  const auto v4 = table(8, 256, [](int r) { return r % 4 == 3 ? 180 : 70 + r; });
  test::check_thread_invariance(
      [&](const Parallel& p) { return period_json(test_periods(v4, kOptions, p)).dump(); });
}

TEST_CASE("period options are bounded up front") {
  CHECK_THROWS_WITH_AS(validate_period_options({10, 1, 0.05}, 8),
                       "invalid --replicates 10 (must be from 99 to 1000000)", InputError);
  CHECK_THROWS_WITH_AS(
      validate_period_options({1000000, 1, 0.05}, 4096),
      "invalid --replicates 1000000 for 4096 groups (replicates x groups x (candidate periods + "
      "1) must be at most 2e9)",
      InputError);
}
