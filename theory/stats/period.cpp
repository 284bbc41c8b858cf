#include "phasesim/stats/period.hpp"

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <cmath>
#include <iomanip>
#include <numeric>
#include <sstream>

#include "phasesim/core/error.hpp"
#include "phasesim/core/random.hpp"
#include "phasesim/stats/binomial.hpp"

namespace phasesim::stats {
namespace {

constexpr int kMinReplicates = 99;
constexpr int kMaxReplicates = 1000000;
constexpr double kMaxDraws = 2e9;

// Log-likelihood at the maximum with one accuracy per residue mod `period`.
double residue_log_likelihood(const std::vector<GroupCount>& groups, int period) {
  double sum = 0;
  for (const auto& r : pool_by_residue(groups, period)) {
    sum += binomial_max_log_likelihood(r.successes, r.trials);
  }
  return sum;
}

double lack_of_fit_statistic(const std::vector<GroupCount>& groups, int period) {
  return std::max(0.0, 2 * (residue_log_likelihood(groups, static_cast<int>(groups.size())) -
                            residue_log_likelihood(groups, period)));
}

std::vector<int> candidate_periods(int groups) {
  std::vector<int> periods;
  for (int p = 2; p <= groups; ++p) {
    if (groups % p == 0) periods.push_back(p);
  }
  return periods;
}

// A table drawn from the null "one accuracy per residue mod period" given its margins: the
// successes of each residue are spread over its groups as a multivariate hypergeometric
// draw, one group at a time from what the residue has left.
std::vector<GroupCount> draw_null(const std::vector<GroupCount>& groups, int period,
                                  const HypergeometricSampler& sampler,
                                  const RandomStream& stream) {
  auto table = groups;
  const auto G = static_cast<int>(groups.size());
  for (int r = 0; r < period; ++r) {
    std::int64_t trials = 0;
    std::int64_t successes = 0;
    for (int g = r; g < G; g += period) {
      trials += groups[static_cast<std::size_t>(g)].trials;
      successes += groups[static_cast<std::size_t>(g)].successes;
    }
    for (int g = r; g < G; g += period) {
      auto& row = table[static_cast<std::size_t>(g)];
      const double u = stream.uniform_pair(static_cast<std::uint32_t>(g), 0).x;
      row.successes = g + period >= G ? successes : sampler(trials, successes, row.trials, u);
      trials -= row.trials;
      successes -= row.successes;
    }
  }
  return table;
}

// At least `observed`, up to rounding: equal tables (common with counts) must count.
bool at_least(double value, double observed) {
  return value >= observed - 1e-9 * std::max(1.0, std::abs(observed));
}

double monte_carlo_p(std::int64_t exceedances, int replicates) {
  return static_cast<double>(exceedances + 1) / (replicates + 1);
}

// Holm's step-down adjustment: the k-th smallest of m p-values times (m - k), kept
// non-decreasing and at most 1.
std::vector<double> holm(const std::vector<double>& p) {
  std::vector<std::size_t> order(p.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  std::vector<double> adjusted(p.size());
  double running = 0;
  for (std::size_t k = 0; k < order.size(); ++k) {
    running = std::max(running, std::min(1.0, static_cast<double>(order.size() - k) * p[order[k]]));
    adjusted[order[k]] = running;
  }
  return adjusted;
}

// Holm over the flat tests of all candidates, and over the lack-of-fit tests of those below G.
void adjust(std::vector<PeriodCandidate>& candidates, int groups, double alpha) {
  std::vector<double> flat;
  std::vector<double> fit;
  for (const auto& c : candidates) {
    flat.push_back(c.p_value);
    if (c.period < groups) fit.push_back(c.lack_of_fit_p);
  }
  const auto flat_holm = holm(flat);
  const auto fit_holm = holm(fit);
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    auto& c = candidates[i];
    c.p_holm = flat_holm[i];
    c.rejects_flat = c.p_holm <= alpha;
    c.lack_of_fit_holm = c.period < groups ? fit_holm[i] : 1.0;
    c.fits = c.lack_of_fit_holm > alpha;
  }
}

std::string format_p(double p) {
  if (p >= 1e-3) return format_fixed(p, 3);
  std::ostringstream text;
  text << std::scientific << std::setprecision(1) << p;
  return text.str();
}

}  // namespace

void validate_period_options(const PeriodOptions& options, int groups) {
  require(options.replicates >= kMinReplicates && options.replicates <= kMaxReplicates,
          "invalid --replicates " + std::to_string(options.replicates) + " (must be from " +
              std::to_string(kMinReplicates) + " to " + std::to_string(kMaxReplicates) + ")");
  // Holm's correction multiplies the smallest p-value, 1 / (replicates + 1) at best, by the
  // number of candidates: it must be able to reach alpha, or no period can ever be found.
  const auto candidates = candidate_periods(groups).size();
  const auto floor = static_cast<double>(candidates) / (options.replicates + 1.0);
  if (floor > options.alpha) {
    auto least = static_cast<int>(std::ceil(static_cast<double>(candidates) / options.alpha));
    while (static_cast<double>(candidates) / least <= options.alpha) --least;  // rounding
    throw InputError("invalid --replicates " + std::to_string(options.replicates) + " for " +
                     counted(groups, "group") + " (Holm's correction over its " +
                     counted(candidates, "candidate period") + " cannot give a p-value below " +
                     format_number(floor) + ", above the level " + format_number(options.alpha) +
                     ", so no period could be found: give at least " + std::to_string(least) + ")");
  }
  const double draws =
      static_cast<double>(options.replicates) * groups * static_cast<double>(candidates + 1);
  require(draws <= kMaxDraws, "invalid --replicates " + std::to_string(options.replicates) +
                                  " for " + counted(groups, "group") +
                                  " (replicates x groups x (candidate periods + 1) must "
                                  "be at most 2e9)");
}

WorkEstimate period_test_estimate(const PeriodOptions& options, int groups) {
  // Measured on one core: about 0.6 us per group of each drawn table (16 groups x 5 tests x
  // 2e5 replicates in 9.4 s; 256 groups x 9 tests x 2e4 in 27 s), and the null statistics
  // kept per test and replicate.
  const double tables =
      options.replicates * (static_cast<double>(candidate_periods(groups).size()) + 1);
  return {6e-7 * tables * groups, 16 * tables};
}

double period_statistic(const std::vector<GroupCount>& groups, int period) {
  return std::max(0.0,
                  2 * (residue_log_likelihood(groups, period) - residue_log_likelihood(groups, 1)));
}

PeriodTest test_periods(const std::vector<GroupCount>& groups, const PeriodOptions& options,
                        const Parallel& parallel) {
  const auto size = static_cast<int>(groups.size());
  validate_period_options(options, size);
  PeriodTest test;
  test.options = options;
  for (int period : candidate_periods(size)) {
    PeriodCandidate c;
    c.period = period;
    c.df = period - 1;
    c.statistic = period_statistic(groups, period);
    c.p_chi_squared = boost::math::cdf(
        boost::math::complement(boost::math::chi_squared_distribution<double>(c.df), c.statistic));
    c.lack_of_fit = lack_of_fit_statistic(groups, period);
    c.lack_of_fit_df = size - period;
    test.candidates.push_back(c);
  }
  const std::size_t count = test.candidates.size();
  std::int64_t trials = 0;
  for (const auto& g : groups) trials += g.trials;
  const HypergeometricSampler sampler(trials);
  // Replicate r: for each candidate, whether the flat null's statistic reaches the observed
  // one, then whether its own null's lack of fit reaches the observed lack of fit.
  const auto exceeds = parallel_map(parallel, options.replicates, [&](std::int64_t r) {
    auto stream = [&](std::size_t null) {
      return RandomStream(options.seed, static_cast<std::uint32_t>(r),
                          static_cast<std::uint32_t>(null), Stream::diagnose_null);
    };
    std::vector<std::uint8_t> flags(2 * count, 0);
    const auto flat = draw_null(groups, 1, sampler, stream(0));
    for (std::size_t i = 0; i < count; ++i) {
      const auto& c = test.candidates[i];
      flags[i] = at_least(period_statistic(flat, c.period), c.statistic);
      if (c.period < size) {
        const auto periodic = draw_null(groups, c.period, sampler, stream(i + 1));
        flags[count + i] = at_least(lack_of_fit_statistic(periodic, c.period), c.lack_of_fit);
      }
    }
    return flags;
  });
  for (std::size_t i = 0; i < count; ++i) {
    std::int64_t flat = 0;
    std::int64_t fit = 0;
    for (const auto& flags : exceeds) flat += flags[i], fit += flags[count + i];
    auto& c = test.candidates[i];
    c.p_value = monte_carlo_p(flat, options.replicates);
    c.p_value_std_error = std::sqrt(c.p_value * (1 - c.p_value) / options.replicates);
    if (c.period < size) c.lack_of_fit_p = monte_carlo_p(fit, options.replicates);
  }
  adjust(test.candidates, size, options.alpha);
  for (const auto& c : test.candidates) {
    if (c.rejects_flat && c.fits) {
      test.period = c.period;
      break;
    }
  }
  return test;
}

std::string period_verdict(const PeriodTest& test) {
  const auto& candidates = test.candidates;
  if (test.period) {
    const auto& c = *std::find_if(candidates.begin(), candidates.end(),
                                  [&](const auto& x) { return x.period == *test.period; });
    std::string text = "period " + std::to_string(c.period) +
                       ": accuracy depends on the group mod " + std::to_string(c.period) +
                       " (Holm p = " + format_p(c.p_holm) + ")";
    if (c.period < static_cast<int>(candidates.back().period)) {
      text += " and the groups of each residue agree (lack of fit Holm p = " +
              format_p(c.lack_of_fit_holm) + ")";
    }
    return text;
  }
  const auto best = std::min_element(candidates.begin(), candidates.end(),
                                     [](auto& a, auto& b) { return a.p_holm < b.p_holm; });
  if (best == candidates.end() || !best->rejects_flat) {
    return "no period detectable at this sample size" +
           (best == candidates.end() ? std::string()
                                     : " (smallest Holm p = " + format_p(best->p_holm) +
                                           ", period " + std::to_string(best->period) + ")");
  }
  return "not flat (period " + std::to_string(best->period) +
         ": Holm p = " + format_p(best->p_holm) +
         "), but no candidate period explains the whole table (lack of "
         "fit p = " +
         format_p(best->lack_of_fit_holm) + ")";
}

Json period_json(const PeriodTest& test) {
  Json candidates = Json::array();
  for (const auto& c : test.candidates) {
    candidates.push_back({{"period", c.period},
                          {"statistic", c.statistic},
                          {"df", c.df},
                          {"p_value", c.p_value},
                          {"p_value_std_error", c.p_value_std_error},
                          {"p_chi_squared", c.p_chi_squared},
                          {"p_holm", c.p_holm},
                          {"rejects_flat", c.rejects_flat},
                          {"lack_of_fit", c.lack_of_fit},
                          {"lack_of_fit_df", c.lack_of_fit_df},
                          {"lack_of_fit_p", c.lack_of_fit_p},
                          {"lack_of_fit_holm", c.lack_of_fit_holm},
                          {"fits", c.fits}});
  }
  return {{"candidates", candidates},
          {"period", optional_json(test.period)},
          {"verdict", period_verdict(test)}};
}

}  // namespace phasesim::stats
