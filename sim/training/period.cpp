#include "phasesim/training/period.hpp"

#include <boost/math/special_functions/gamma.hpp>
#include <stdexcept>

namespace phasesim {
namespace {

HomogeneityTest test_period(const std::vector<GroupAccuracy>& groups, int period) {
  const auto G = static_cast<int>(groups.size());
  HomogeneityTest test{period, 0, 0, 1};
  for (int r = 0; r < period; ++r) {
    double successes = 0, trials = 0;
    int members = 0;
    for (int g = r; g < G; g += period) {
      successes += static_cast<double>(*groups[static_cast<std::size_t>(g)].successes);
      trials += static_cast<double>(*groups[static_cast<std::size_t>(g)].trials);
      ++members;
    }
    const double pooled = successes / trials;
    if (pooled <= 0 || pooled >= 1) continue;  // every group of the class is 0 (or 1): exact
    test.degrees_of_freedom += members - 1;
    for (int g = r; g < G; g += period) {
      const auto& group = groups[static_cast<std::size_t>(g)];
      const auto n = static_cast<double>(*group.trials);
      const double deviation = static_cast<double>(*group.successes) - n * pooled;
      test.chi_square += deviation * deviation / (n * pooled * (1 - pooled));
    }
  }
  if (test.degrees_of_freedom > 0) {
    test.p_value = boost::math::gamma_q(test.degrees_of_freedom / 2.0, test.chi_square / 2);
  }
  return test;
}

}  // namespace

PeriodEstimate estimate_period(const std::vector<GroupAccuracy>& groups, double alpha) {
  if (!(alpha > 0 && alpha < 1))
    throw std::invalid_argument("estimate_period: alpha not in (0, 1)");
  for (const auto& g : groups) {
    if (!g.successes || !g.trials || *g.trials < 1) {
      throw std::invalid_argument("estimate_period: needs successes and trials in every group");
    }
  }
  const auto G = static_cast<int>(groups.size());
  PeriodEstimate estimate{G, alpha, {}};
  for (int period = 1; period <= G; ++period) {
    if (G % period == 0) estimate.candidates.push_back(test_period(groups, period));
  }
  // P = G always explains the table (no degrees of freedom), so the search ends.
  for (const auto& test : estimate.candidates) {
    if (test.p_value >= alpha) {
      estimate.period = test.period;
      break;
    }
  }
  return estimate;
}

}  // namespace phasesim
