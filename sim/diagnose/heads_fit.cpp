// The one-hot-heads model of fit.hpp: beta and how many of the H heads cover each phase.
// For a fixed beta the best assignment of heads to phases is a knapsack over phases,
// solved exactly by dynamic programming over the number of heads used so far.
#include <algorithm>
#include <array>
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

// The model at one beta: a covering head finds the needle with p1, any other with chance m/N
// (under --sliding-window, its read at u = 0); in the window every head also reads the
// needle's token raw, so there the heads combine their window reads (u = 1 covering, u = 0
// not), as the engine's report combines heads needle by needle, far and in the window apart.
class HeadsSlice {
 public:
  HeadsSlice(const FitInput& input, double beta) : input_(input) {
    std::map<int, std::array<double, 4>> reads;  // by m: far and window, covering and not
    for (const auto& phase : input.phases) {
      const int m = phase.slots.holding;
      if (m > 0 && !reads.count(m)) reads[m] = reads_of(m, beta);
      const auto& r = reads[m];
      const auto log_miss = [](double p) { return portable::log1p(-std::min(p, 1 - 1e-16)); };
      far_.push_back({m > 0 ? log_miss(r[0]) : 0.0, log_miss(r[1])});
      window_.push_back({log_miss(r[2]), log_miss(r[3])});
    }
  }

  // Success of phase p when n of the H heads cover it.
  double success(std::size_t p, int n) const {
    if (input_.phases[p].slots.holding == 0) return 0;
    const auto hit = [&](const std::array<double, 2>& log_miss) {
      return -portable::expm1(n * log_miss[0] + (input_.heads - n) * log_miss[1]);
    };
    if (input_.window_share == 0) return hit(far_[p]);
    return input_.mixed(hit(far_[p]), hit(window_[p]));
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
  // Without a window, p1 as the one-head fits read it (the read path's far value) and chance
  // m / N for the others. With one, the others' far read too: the window's raw tokens compete
  // with the entry the head does not weigh (at L = 2048, top-k 16, a 64-token window: 0.0004,
  // not chance 0.0020).
  std::array<double, 4> reads_of(int m, double beta) const {
    if (input_.window_share == 0) {
      const double chance = static_cast<double>(m) / static_cast<double>(input_.entries);
      return {detail::phase_success({m, 1}, 1.0, beta, input_), chance, 0, 0};
    }
    const auto covering = detail::read_path_variants({m, 1}, 1.0, beta, input_);
    const auto other = detail::read_path_variants({m, 1}, 0.0, beta, input_);
    return {covering[0], other[0], covering[1], other[1]};
  }

  const FitInput& input_;
  std::vector<std::array<double, 2>> far_;  // log(1 - p): covering, and not
  std::vector<std::array<double, 2>> window_;
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
