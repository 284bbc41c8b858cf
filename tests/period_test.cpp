// The estimated period of a per-group table (include/phasesim/training/period.hpp).
#include "phasesim/training/period.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <stdexcept>

using namespace phasesim;

namespace {

// G groups of `trials` each, successes(r) in group r.
std::vector<GroupAccuracy> table(int groups, std::int64_t trials,
                                 const std::function<std::int64_t(int)>& successes) {
  std::vector<GroupAccuracy> rows;
  for (int r = 0; r < groups; ++r) {
    const auto s = successes(r);
    rows.push_back({r, double(s) / double(trials), s, trials, 0, 0, 0});
  }
  return rows;
}

}  // namespace

TEST_CASE("a flat table has period 1, a table with one strong phase the stride") {
  CHECK(estimate_period(table(8, 200, [](int) { return 100; })).period == 1);
  // Deviations at the noise level (chi2 = 4 on 7 degrees of freedom, p = 0.78): still flat.
  const auto noisy = estimate_period(table(8, 200, [](int r) { return r % 2 ? 105 : 95; }));
  CHECK(noisy.period == 1);
  CHECK(noisy.candidates[0].chi_square == doctest::Approx(4.0));
  CHECK(noisy.candidates[0].degrees_of_freedom == 7);
  // V4-like: phase 3 (groups 3 and 7) far above the rest.
  const auto v4 = estimate_period(table(8, 256, [](int r) { return r % 4 == 3 ? 180 : 70; }));
  CHECK(v4.period == 4);
  REQUIRE(v4.candidates.size() == 4);  // divisors 1, 2, 4, 8
  CHECK(v4.candidates[1].period == 2);
  CHECK(v4.candidates[1].p_value < 1e-10);
  CHECK(v4.candidates[2].p_value == 1.0);
  // Even/odd alternation (V4.1): period 2.
  CHECK(estimate_period(table(8, 256, [](int r) { return r % 2 ? 230 : 244; })).period == 2);
}

TEST_CASE("the chi-square p-value, and classes that fit exactly") {
  // Two groups 60/100 and 40/100: pooled 0.5, chi2 = 8 on 1 degree of freedom, so
  // p = P(Z^2 >= 8) = erfc(2).
  const auto two = estimate_period(table(2, 100, [](int r) { return r ? 40 : 60; }));
  CHECK(two.candidates[0].chi_square == doctest::Approx(8.0));
  CHECK(two.candidates[0].p_value == doctest::Approx(std::erfc(2.0)).epsilon(1e-12));
  CHECK(two.period == 2);  // p = 0.0047 < 0.01
  CHECK(estimate_period(table(2, 100, [](int r) { return r ? 40 : 60; }), 0.001).period == 1);
  // A blind phase (0 successes in groups 1 and 5) adds no degrees of freedom at period 4.
  const auto blind = estimate_period(table(8, 100, [](int r) { return r % 4 == 1 ? 0 : 90; }));
  CHECK(blind.period == 4);
  CHECK(blind.candidates[2].degrees_of_freedom == 3);
}

TEST_CASE("estimate_period needs Monte Carlo counts") {
  std::vector<GroupAccuracy> exact = {{0, 0.5, std::nullopt, std::nullopt, 0, 0.5, 0.5}};
  CHECK_THROWS_AS(estimate_period(exact), std::invalid_argument);
  CHECK_THROWS_AS(estimate_period(table(2, 10, [](int) { return 5; }), 0), std::invalid_argument);
}
