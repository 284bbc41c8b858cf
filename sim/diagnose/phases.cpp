#include "phasesim/diagnose/phases.hpp"

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/special_functions/binomial.hpp>
#include <boost/math/tools/roots.hpp>
#include <cmath>

#include "phasesim/core/error.hpp"
#include "phasesim/stats/binomial.hpp"

namespace phasesim::diagnose {
namespace {

// P(sum over the phases below the truth of their deviance > c) when all S phases tie:
// each is below with probability 1/2 and then contributes a chi-squared(1).
double tied_tail(int phases, double c) {
  double tail = 0;
  for (int j = 1; j <= phases; ++j) {
    const double weight = boost::math::binomial_coefficient<double>(static_cast<unsigned>(phases),
                                                                    static_cast<unsigned>(j)) *
                          std::pow(0.5, phases);
    tail += weight * boost::math::cdf(boost::math::complement(
                         boost::math::chi_squared_distribution<double>(j), c));
  }
  return tail;
}

// The largest t >= the worst accuracy whose summed deviance over the phases below t stays
// within the cutoff (the sum rises with t). The deviance is infinite at t = 1 (a failure is
// impossible there): capped, so that the root finder brackets a finite function.
double worst_upper(const std::vector<PhaseAccuracy>& phases, double worst, double cutoff) {
  auto excess = [&](double t) {
    double sum = 0;
    for (const auto& p : phases) {
      if (p.accuracy < t) sum += stats::binomial_deviance(p.successes, p.trials, t);
    }
    return std::min(sum, 1e300) - cutoff;
  };
  if (excess(1.0) <= 0) return 1.0;
  std::uintmax_t iterations = 100;
  const auto [a, b] = boost::math::tools::toms748_solve(
      excess, worst, 1.0, boost::math::tools::eps_tolerance<double>(40), iterations);
  return 0.5 * (a + b);
}

}  // namespace

double worst_phase_cutoff(int phases) {
  std::uintmax_t iterations = 100;
  const auto [a, b] = boost::math::tools::toms748_solve(
      [&](double c) { return tied_tail(phases, c) - 0.025; }, 0.1, 100.0,
      boost::math::tools::eps_tolerance<double>(40), iterations);
  return 0.5 * (a + b);
}

PhaseProfile phase_profile(const CountTable& table, int phases, const std::vector<double>& chance) {
  require(phases >= 1 && table.size() % phases == 0,
          "invalid phase count " + std::to_string(phases) + " (must divide the " +
              counted(table.size(), "group") + ")");
  PhaseProfile profile;
  for (const auto& pooled : stats::pool_by_residue(table.groups, phases)) {
    PhaseAccuracy p;
    p.phase = pooled.group;
    for (int g = p.phase; g < table.size(); g += phases) p.groups.push_back(g);
    p.successes = pooled.successes;
    p.trials = pooled.trials;
    p.accuracy = pooled.accuracy();
    const auto interval = stats::likelihood_interval(p.successes, p.trials);
    p.ci_low = interval.low;
    p.ci_high = interval.high;
    p.chance = chance[static_cast<std::size_t>(p.phase)];
    p.blind = p.ci_low <= p.chance;
    profile.blind += p.blind ? 1 : 0;
    profile.phases.push_back(p);
  }
  const auto by_accuracy = [](const auto& a, const auto& b) { return a.accuracy < b.accuracy; };
  const auto& worst = *std::min_element(profile.phases.begin(), profile.phases.end(), by_accuracy);
  const auto& best = *std::max_element(profile.phases.begin(), profile.phases.end(), by_accuracy);
  double lowest = 1;
  for (const auto& p : profile.phases) lowest = std::min(lowest, p.ci_low);
  profile.worst = {worst.phase, worst.accuracy, lowest,
                   worst_upper(profile.phases, worst.accuracy, worst_phase_cutoff(phases))};
  profile.best = {best.phase, best.accuracy, best.ci_low, best.ci_high};
  profile.gap = best.accuracy - worst.accuracy;
  return profile;
}

}  // namespace phasesim::diagnose
