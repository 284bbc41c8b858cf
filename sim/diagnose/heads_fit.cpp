// The one-hot-heads model of fit.hpp: beta and how many of the H heads cover each phase.
// For a fixed beta the best assignment of heads to phases is a knapsack over phases,
// solved exactly by dynamic programming over the number of heads used so far.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "curve.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/core/portable_math.hpp"
#include "phasesim/diagnose/fit.hpp"
#include "profile.hpp"

namespace phasesim::diagnose {
namespace {

using detail::kNegativeInfinity;
using detail::kProfileDrop;

struct HeadsAllocation {
  double log_likelihood = kNegativeInfinity;
  std::vector<int> heads;  // per phase
};

// The model at one beta: a covering head finds the needle with p1, any other with chance.
class HeadsSlice {
 public:
  HeadsSlice(const FitInput& input, double beta) : input_(input) {
    std::map<int, double> covered;
    for (const auto& phase : input.phases) {
      const int m = phase.slots.holding;
      if (m > 0 && !covered.count(m)) {
        covered[m] = detail::phase_success({m, 1}, 1.0, beta, input);
      }
      log_miss_covered_.push_back(m > 0 ? portable::log1p(-std::min(covered[m], 1 - 1e-16)) : 0.0);
      log_miss_other_.push_back(
          portable::log1p(-static_cast<double>(m) / static_cast<double>(input.entries)));
    }
  }

  // Success of phase p when n of the H heads cover it.
  double success(std::size_t p, int n) const {
    if (input_.phases[p].slots.holding == 0) return 0;
    return -portable::expm1(n * log_miss_covered_[p] + (input_.heads - n) * log_miss_other_[p]);
  }

  double term(std::size_t p, int n) const {
    return detail::phase_log_likelihood(input_.phases[p], success(p, n));
  }

  // The best assignment of all H heads, optionally with phase `fixed` held at `count`
  // heads. A structurally blind phase takes no head (no slot has its phase).
  HeadsAllocation allocate(std::optional<std::pair<std::size_t, int>> fixed = {}) const {
    const int H = input_.heads;
    const std::size_t S = input_.phases.size();
    // best[p][h]: best sum over phases 0..p-1 using h heads; choice[p][h]: heads of p - 1.
    std::vector<std::vector<double>> best(S + 1, std::vector<double>(H + 1, kNegativeInfinity));
    std::vector<std::vector<int>> choice(S + 1, std::vector<int>(H + 1, 0));
    best[0][0] = 0;
    for (std::size_t p = 0; p < S; ++p) {
      const bool blind = input_.phases[p].slots.holding == 0;
      for (int n = 0; n <= (blind ? 0 : H); ++n) {
        if (fixed && fixed->first == p && fixed->second != n) continue;
        const double value = term(p, n);
        for (int h = n; h <= H; ++h) {
          if (best[p][h - n] + value > best[p + 1][h]) {
            best[p + 1][h] = best[p][h - n] + value;
            choice[p + 1][h] = n;
          }
        }
      }
    }
    HeadsAllocation result;
    result.log_likelihood = best[S][H];
    if (result.log_likelihood == kNegativeInfinity) return result;
    result.heads.assign(S, 0);
    for (std::size_t p = S, h = static_cast<std::size_t>(H); p > 0; --p) {
      result.heads[p - 1] = choice[p][h];
      h -= static_cast<std::size_t>(choice[p][h]);
    }
    return result;
  }

 private:
  const FitInput& input_;
  std::vector<double> log_miss_covered_;
  std::vector<double> log_miss_other_;
};

}  // namespace

ModelFit fit_one_hot_heads(const FitInput& input) {
  require(input.heads >= 1, "invalid --heads " + std::to_string(input.heads) + " (must be >= 1)");
  detail::validate_fit_input(input);
  auto profile = [&](double beta) { return HeadsSlice(input, beta).allocate().log_likelihood; };
  const auto interval = detail::profile_interval(profile, detail::beta_scan());
  const double target = interval.best.value - kProfileDrop;
  auto fit = detail::profile_fit(FitModel::one_hot_heads, interval);

  const HeadsSlice slice(input, fit.beta);
  const auto allocation = slice.allocate();
  for (std::size_t p = 0; p < input.phases.size(); ++p) {
    FittedPhase phase;
    phase.phase = static_cast<int>(p);
    phase.heads = allocation.heads[p];
    phase.accuracy = slice.success(p, allocation.heads[p]);
    fit.phases.push_back(phase);
  }
  // Beta is the one continuous parameter; the assignment is treated as known.
  detail::set_deviance(input, static_cast<int>(input.phases.size()) - 1, fit);
  detail::add_head_ranges(
      input, fit.beta_low, fit.beta_high.value_or(kMaxFitBeta), target,
      [&](double beta) { return HeadsSlice(input, beta); },
      [](const HeadsSlice& s, std::size_t p, int n) {
        return s.allocate(std::pair{p, n}).log_likelihood;
      },
      fit);
  return fit;
}

}  // namespace phasesim::diagnose
