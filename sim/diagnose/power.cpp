#include "phasesim/diagnose/power.hpp"

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/non_central_chi_squared.hpp>
#include <boost/math/tools/roots.hpp>
#include <cmath>

#include "phasesim/core/portable_math.hpp"

namespace phasesim::diagnose {
namespace {

constexpr double kMaxPrompts = 1e12;

double xlogx_ratio(double a, double b) { return a == 0 ? 0.0 : a * portable::log(a / b); }

// 2 x the mean over groups of KL(Bernoulli(a_g) || Bernoulli(mean)): the non-centrality of
// the statistic per prompt in every group.
double noncentrality_per_prompt(const std::vector<double>& accuracies) {
  double mean = 0;
  for (double a : accuracies) mean += a;
  mean /= static_cast<double>(accuracies.size());
  double sum = 0;
  for (double a : accuracies) sum += xlogx_ratio(a, mean) + xlogx_ratio(1 - a, 1 - mean);
  return 2 * sum;
}

// The group accuracies of a profile pooled by residue mod period, its gap scaled by `scale`.
std::vector<double> residue_profile(const CountTable& table, int period, double scale) {
  const auto residues = stats::pool_by_residue(table.groups, period);
  std::vector<double> profile;
  for (const auto& g : table.groups) {
    profile.push_back(residues[static_cast<std::size_t>(g.group % period)].accuracy());
  }
  double mean = 0;
  for (double a : profile) mean += a;
  mean /= static_cast<double>(profile.size());
  for (double& a : profile) a = mean + scale * (a - mean);
  return profile;
}

double power_at(double noncentrality, int df, double alpha) {
  const double critical = boost::math::quantile(
      boost::math::complement(boost::math::chi_squared_distribution<double>(df), alpha));
  if (noncentrality <= 0) return alpha;
  return boost::math::cdf(boost::math::complement(
      boost::math::non_central_chi_squared_distribution<double>(df, noncentrality), critical));
}

PowerTarget target(const std::vector<double>& profile, int period, double alpha, double power) {
  PowerTarget t;
  t.gap = *std::max_element(profile.begin(), profile.end()) -
          *std::min_element(profile.begin(), profile.end());
  const double per_prompt = noncentrality_per_prompt(profile);
  if (per_prompt <= 0) return t;
  // The non-centrality that reaches the power: power rises with it.
  double high = 1;
  while (power_at(high, period - 1, alpha) < power) high *= 2;
  std::uintmax_t iterations = 100;
  // The upper end of the bracket: the power there is at least the wanted one.
  const double noncentrality =
      boost::math::tools::toms748_solve(
          [&](double x) { return power_at(x, period - 1, alpha) - power; }, 0.0, high,
          boost::math::tools::eps_tolerance<double>(40), iterations)
          .second;
  const double prompts = std::ceil(noncentrality / per_prompt);
  if (prompts <= kMaxPrompts) {
    t.prompts = std::max<std::int64_t>(1, static_cast<std::int64_t>(prompts));
  }
  return t;
}

}  // namespace

double period_test_power(const std::vector<double>& accuracies, int period, std::int64_t prompts,
                         double alpha) {
  return power_at(static_cast<double>(prompts) * noncentrality_per_prompt(accuracies), period - 1,
                  alpha);
}

PowerAnalysis power_analysis(const CountTable& table, int period, double alpha, double power) {
  PowerAnalysis analysis;
  analysis.period = period;
  analysis.alpha = alpha;
  analysis.power = power;
  analysis.observed = target(residue_profile(table, period, 1.0), period, alpha, power);
  analysis.half = target(residue_profile(table, period, 0.5), period, alpha, power);
  return analysis;
}

}  // namespace phasesim::diagnose
