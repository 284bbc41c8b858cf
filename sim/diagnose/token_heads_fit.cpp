// The one-hot-heads model of 2-token needles (fit.hpp, fit_two_token_heads).
//
// A head puts all its weight on one slot (T2's lock-in). On a slot of phase psi it sees one
// token of a needle starting at phase phi when psi is phi or phi + 1, the phases of the
// needle's tokens, and otherwise reads only entries that hold none of them. Each of the three
// reads is the analytic engine's at a one-hot gate (detail::token_read_variants), and the heads
// read independently, combined as the engine's report combines them: far from the query and in
// the window apart, then mixed. So phase phi's success depends on the heads on phi and on
// phi + 1, and the best assignment of the H heads is a dynamic programme around the cycle of
// phases, the heads of phase 0 fixed in turn. Its forward and backward tables give, in the same
// pass, the best assignment with any one phase's count fixed: the profile of that count.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "curve.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/core/portable_math.hpp"
#include "phasesim/diagnose/fit.hpp"
#include "profile.hpp"

namespace phasesim::diagnose {
namespace {

using detail::kNegativeInfinity;
using detail::kProfileDrop;

// What a head on a slot of each phase does to a needle of phase phi: its own slot's phase, the
// next phase's, or another's.
enum Cover { own, next, other, covers };

// A gate with all its weight on the first slot of phase psi.
Gate one_hot(const FitInput& input, int psi) {
  const Geometry g{input.window, input.stride};
  Gate gate;
  gate.spec = "onehot";
  gate.weights.assign(static_cast<std::size_t>(input.window), 0.0);
  for (int s = 0; s < input.window; ++s) {
    if (g.phase_of_slot(s) == psi) {
      gate.weights[static_cast<std::size_t>(s)] = 1;
      break;
    }
  }
  return gate;
}

// The phases a head can sit on (they have a slot).
std::vector<bool> seats_of(const FitInput& input) {
  std::vector<bool> seats;
  for (const auto& p : input.phases) seats.push_back(p.slots.weighted > 0);
  return seats;
}

// The model at one beta: log(1 - p) of each phase's three reads, far and in the window.
class TokenHeadsSlice {
 public:
  TokenHeadsSlice(const FitInput& input, double beta, const Parallel& parallel)
      : input_(input), seats_(seats_of(input)) {
    const auto stride = static_cast<int>(input.phases.size());
    std::vector<std::array<int, covers>> seat(static_cast<std::size_t>(stride));
    for (int phi = 0; phi < stride; ++phi) {
      auto& s = seat[static_cast<std::size_t>(phi)];
      s = {phi, next_of(phi), -1};
      for (int psi = 0; psi < stride; ++psi) {
        if (seats_[static_cast<std::size_t>(psi)] && psi != phi && psi != s[next]) s[other] = psi;
      }
      if (!seats_[static_cast<std::size_t>(phi)]) s[own] = -1;
    }
    log_miss_.assign(static_cast<std::size_t>(stride), {});
    parallel_for(
        Parallel{parallel.threads, {}, parallel.stop}, stride * covers, [&](std::int64_t k) {
          const auto phi = static_cast<std::size_t>(k / covers);
          const auto c = static_cast<std::size_t>(k % covers);
          const int psi = seat[phi][c];
          if (psi < 0) return;
          const auto p =
              detail::token_read_variants(input, one_hot(input, psi), beta, static_cast<int>(phi));
          for (std::size_t v = 0; v < 2; ++v)
            log_miss_[phi][v][c] = portable::log1p(-std::min(p[v], 1 - 1e-16));
        });
  }

  int stride() const { return static_cast<int>(input_.phases.size()); }
  int heads() const { return input_.heads; }
  bool seat(int psi) const { return seats_[static_cast<std::size_t>(psi)]; }
  // The phase of a needle's second token when a head can sit there and it is not phi's own.
  int next_of(int phi) const {
    const int q = (phi + 1) % stride();
    return q != phi && seats_[static_cast<std::size_t>(q)] ? q : -1;
  }

  // Success of phase phi with n heads on its own phase and m on the next one (the rest of the
  // H elsewhere).
  double success(int phi, int n, int m) const {
    const auto i = static_cast<std::size_t>(phi);
    if (input_.phases[i].slots.holding == 0) return 0;
    const std::array<int, covers> count{n, m, input_.heads - n - m};
    std::array<double, 2> hit{};
    for (std::size_t v = 0; v < 2; ++v) {
      double log_miss = 0;
      for (std::size_t c = 0; c < covers; ++c) {
        if (count[c] > 0) log_miss += count[c] * log_miss_[i][v][c];
      }
      hit[v] = -portable::expm1(log_miss);
    }
    return input_.mixed(hit[0], hit[1]);
  }

  double term(int phi, int n, int m) const {
    return detail::phase_log_likelihood(input_.phases[static_cast<std::size_t>(phi)],
                                        success(phi, n, m));
  }

 private:
  const FitInput& input_;
  std::vector<bool> seats_;
  std::vector<std::array<std::array<double, covers>, 2>> log_miss_;  // [phi][variant][cover]
};

// The assignments around the cycle of phases n_0 .. n_{S-1} (sum H, none where a phase has no
// seat), the log-likelihood a sum of term(phi, n_phi, n_{phi+1}).
class HeadsCycle {
 public:
  explicit HeadsCycle(const TokenHeadsSlice& slice)
      : slice_(slice), heads_(slice.heads()), stride_(slice.stride()) {
    const auto h1 = static_cast<std::size_t>(heads_ + 1);
    terms_.assign(static_cast<std::size_t>(stride_),
                  std::vector<double>(h1 * h1, kNegativeInfinity));
    for (int phi = 0; phi < stride_; ++phi) {
      for (int n = 0; n <= heads_; ++n) {
        for (int m = 0; n + m <= heads_; ++m) {
          const bool possible = (n == 0 || slice.seat(phi)) && (m == 0 || slice.next_of(phi) >= 0);
          term_at(phi, n, m) = possible ? slice.term(phi, n, m) : kNegativeInfinity;
        }
      }
    }
  }

  // The best assignment, and for each phase and count the best with that count fixed.
  struct Result {
    double best = kNegativeInfinity;
    std::vector<int> heads;
    std::vector<std::vector<double>> fixed;  // [phase][count]
  };

  Result solve() const {
    Result r;
    r.fixed.assign(static_cast<std::size_t>(stride_),
                   std::vector<double>(static_cast<std::size_t>(heads_ + 1), kNegativeInfinity));
    int best_first = -1;
    for (int a = 0; a <= heads_; ++a) {
      if (a > 0 && !slice_.seat(0)) break;
      const auto forward = forward_of(a);
      const auto backward = backward_of(a);
      for (int phi = 0; phi < stride_; ++phi) {
        for (int h = 0; h <= heads_; ++h) {
          for (int n = 0; n <= h; ++n) {
            const double v = at(forward, phi, h, n) + at(backward, phi, h, n);
            auto& f = r.fixed[static_cast<std::size_t>(phi)][static_cast<std::size_t>(n)];
            f = std::max(f, v);
          }
        }
      }
      const double total = at(backward, 0, a, a);
      if (total > r.best) {
        r.best = total;
        best_first = a;
      }
    }
    if (best_first >= 0) r.heads = path(best_first);
    return r;
  }

 private:
  using Table = std::vector<double>;  // [phi][heads used through phi][n_phi]

  double& term_at(int phi, int n, int m) {
    return terms_[static_cast<std::size_t>(phi)][static_cast<std::size_t>(n * (heads_ + 1) + m)];
  }
  // term(phi, n_phi, n_{phi+1}); the next phase's count enters only where a head can sit there.
  double term(int phi, int n, int m) const {
    const int counted = slice_.next_of(phi) >= 0 ? m : 0;
    return terms_[static_cast<std::size_t>(phi)]
                 [static_cast<std::size_t>(n * (heads_ + 1) + counted)];
  }
  std::size_t index(int phi, int h, int n) const {
    const auto h1 = static_cast<std::size_t>(heads_ + 1);
    return (static_cast<std::size_t>(phi) * h1 + static_cast<std::size_t>(h)) * h1 +
           static_cast<std::size_t>(n);
  }
  double at(const Table& t, int phi, int h, int n) const { return t[index(phi, h, n)]; }
  Table empty() const {
    const auto h1 = static_cast<std::size_t>(heads_ + 1);
    return Table(static_cast<std::size_t>(stride_) * h1 * h1, kNegativeInfinity);
  }
  bool allowed(int phi, int n) const { return n == 0 || slice_.seat(phi); }

  // forward[phi][h][n]: the best sum of the terms before phi, n_0 = a, n_phi = n, h heads
  // through phi.
  Table forward_of(int a) const {
    auto t = empty();
    t[index(0, a, a)] = 0;
    for (int phi = 0; phi + 1 < stride_; ++phi) {
      for (int h = 0; h <= heads_; ++h) {
        for (int n = 0; n <= h; ++n) {
          const double v = at(t, phi, h, n);
          if (v == kNegativeInfinity) continue;
          for (int b = 0; h + b <= heads_; ++b) {
            if (!allowed(phi + 1, b)) break;
            auto& next = t[index(phi + 1, h + b, b)];
            next = std::max(next, v + term(phi, n, b));
          }
        }
      }
    }
    return t;
  }

  // backward[phi][h][n]: the best sum of the terms from phi on, n_phi = n, h heads through phi,
  // every head used, and the cycle closed on n_0 = a.
  Table backward_of(int a) const {
    auto t = empty();
    for (int n = 0; n <= heads_; ++n) t[index(stride_ - 1, heads_, n)] = term(stride_ - 1, n, a);
    for (int phi = stride_ - 2; phi >= 0; --phi) {
      for (int h = 0; h <= heads_; ++h) {
        for (int n = 0; n <= h; ++n) {
          double best = kNegativeInfinity;
          for (int b = 0; h + b <= heads_; ++b) {
            if (!allowed(phi + 1, b)) break;
            best = std::max(best, term(phi, n, b) + at(t, phi + 1, h + b, b));
          }
          t[index(phi, h, n)] = best;
        }
      }
    }
    return t;
  }

  // The best assignment with n_0 = a, read off the backward table.
  std::vector<int> path(int a) const {
    const auto backward = backward_of(a);
    std::vector<int> heads{a};
    int h = a;
    for (int phi = 0; phi + 1 < stride_; ++phi) {
      int choice = 0;
      double best = kNegativeInfinity;
      for (int b = 0; h + b <= heads_; ++b) {
        if (!allowed(phi + 1, b)) break;
        const double v = term(phi, heads.back(), b) + at(backward, phi + 1, h + b, b);
        if (v > best) {
          best = v;
          choice = b;
        }
      }
      heads.push_back(choice);
      h += choice;
    }
    return heads;
  }

  const TokenHeadsSlice& slice_;
  int heads_;
  int stride_;
  std::vector<std::vector<double>> terms_;  // [phi][n * (H + 1) + m]
};

}  // namespace

double two_token_heads_work(int stride, int heads) {
  const double h1 = heads + 1;
  return stride * h1 * h1 * h1 * h1;
}

ModelFit fit_two_token_heads(const FitInput& input, const Parallel& parallel) {
  detail::validate_fit_input(input);
  require(input.needle_tokens == 2 && input.window >= 1 && input.heads >= 1 &&
              input.stride == static_cast<int>(input.phases.size()),
          "invalid fit of 2-token needles by one-hot heads (needs needle_tokens 2, heads, the "
          "window, and one phase a slot of the stride)");
  auto profile = [&](double beta) {
    return HeadsCycle(TokenHeadsSlice(input, beta, parallel)).solve().best;
  };
  const auto interval = detail::profile_interval(profile, detail::beta_scan());
  auto fit = detail::profile_fit(FitModel::one_hot_heads, interval);
  const TokenHeadsSlice slice(input, fit.beta, parallel);
  const auto heads = HeadsCycle(slice).solve().heads;
  fit.log_likelihood = 0;
  for (int phi = 0; phi < slice.stride(); ++phi) {
    const auto i = static_cast<std::size_t>(phi);
    const int next = slice.next_of(phi);
    FittedPhase phase;
    phase.phase = phi;
    phase.heads = heads[i];
    phase.accuracy =
        slice.success(phi, heads[i], next >= 0 ? heads[static_cast<std::size_t>(next)] : 0);
    fit.log_likelihood += detail::phase_log_likelihood(input.phases[i], phase.accuracy);
    fit.phases.push_back(phase);
  }
  // Beta is the one continuous parameter; the assignment is treated as known.
  detail::set_deviance(input, static_cast<int>(input.phases.size()) - 1, fit);
  detail::add_head_ranges(
      input, fit.beta_low, fit.beta_high.value_or(kMaxFitBeta), interval.best.value - kProfileDrop,
      [&](double beta) { return HeadsCycle(TokenHeadsSlice(input, beta, parallel)).solve(); },
      [](const HeadsCycle::Result& r, std::size_t p, int n) {
        return r.fixed[p][static_cast<std::size_t>(n)];
      },
      fit);
  return fit;
}

}  // namespace phasesim::diagnose
