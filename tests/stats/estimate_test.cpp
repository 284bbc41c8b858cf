// Monte Carlo estimates (phasesim/stats/estimate.hpp): a proportion with its Wilson interval,
// paired differences, means over groups.
#include "phasesim/stats/estimate.hpp"

#include <doctest/doctest.h>

#include <cmath>

using namespace phasesim::stats;

TEST_CASE("estimate: Wilson 95% intervals and standard errors") {
  const auto half = estimate_proportion(5, 10);
  CHECK(half.mean == 0.5);
  CHECK(half.std_error == doctest::Approx(std::sqrt(0.025)));
  CHECK(half.ci_low == doctest::Approx(0.2365931).epsilon(1e-6));
  CHECK(half.ci_high == doctest::Approx(0.7634069).epsilon(1e-6));
  const auto none = estimate_proportion(0, 10);
  CHECK(none.ci_low == 0.0);
  CHECK(none.ci_high == doctest::Approx(0.2775328).epsilon(1e-6));
  CHECK(none.std_error == 0.0);
}

TEST_CASE("estimate: paired differences") {
  PairedDifference d;
  d.add(true, false);
  d.add(true, true);
  d.add(false, false);
  d.add(true, false);
  CHECK(d.mean() == -0.5);
  CHECK(d.std_error() == doctest::Approx(std::sqrt(0.25 / 4)));
}

TEST_CASE("estimate: the mean of group estimates and its standard error") {
  GroupMean m;
  m.add(0.5, 0.1);
  m.add(0.7, 0.2);
  CHECK(m.mean() == doctest::Approx(0.6));
  CHECK(m.std_error() == doctest::Approx(std::sqrt(0.01 + 0.04) / 2));
}
