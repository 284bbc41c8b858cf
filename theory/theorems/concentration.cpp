#include "phasesim/theorems/concentration.hpp"

#include <algorithm>
#include <boost/math/tools/roots.hpp>
#include <cmath>
#include <functional>

#include "costs.hpp"
#include "phasesim/channel/channel.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/theorems/optimize.hpp"

namespace phasesim::theorems {

double linear_success(double c, double beta, std::int64_t entries, std::int64_t top_k) {
  const channel::NeedleEntry entry{beta * c, 1.0};
  if (top_k > 1)
    return channel::top_k_success_gradient(std::span(&entry, 1), entries - 1, top_k).probability;
  return channel::needle_success(std::span(&entry, 1), entries - 1).probability;
}

double star_margin(double beta, std::int64_t entries, std::int64_t top_k) {
  const channel::NeedleEntry entry{beta, 1.0};
  const auto at_one =
      top_k > 1 ? channel::top_k_success_gradient(std::span(&entry, 1), entries - 1, top_k)
                : channel::needle_success_gradient(std::span(&entry, 1), entries - 1);
  const double slope = beta * at_one.d_mean[0];  // A_lin'(1) = beta g(beta)
  return slope - (at_one.probability - linear_success(0.0, beta, entries, top_k));
}

double critical_beta(std::int64_t entries, std::int64_t top_k) {
  require(entries >= 2,
          "invalid --entries " + std::to_string(entries) + " (beta* needs at least 2)");
  // h > 0 on (0, beta*) and < 0 after: bracket [lo, hi] with h(lo) > 0 >= h(hi), then solve.
  // A wide selection (k a good share of N) puts beta* below 0.5: halve down to it first; 0
  // when no beta is star-shaped (k near N/2: the rival is nearly the median, A concave).
  const auto margin = [&](double beta) { return star_margin(beta, entries, top_k); };
  constexpr double kStep = 0.5;
  constexpr double kSmallest = 1e-6;
  double lo = kStep, hi = 2 * kStep;
  while (margin(lo) <= 0) {
    if (lo < kSmallest) return 0;
    hi = lo;
    lo /= 2;
  }
  while (margin(hi) > 0) {
    lo = hi;
    hi += kStep;
    require(hi < 100, "beta* above 100 (entries " + std::to_string(entries) + ")");
  }
  std::uintmax_t iterations = 100;
  const auto [a, b] = boost::math::tools::toms748_solve(
      margin, lo, hi, [](double x, double y) { return std::abs(x - y) < 1e-10; }, iterations);
  return 0.5 * (a + b);
}

namespace {

// The success of each of k phases under the equal split: one needle entry (the split's
// slot; the phase's other slots weigh nothing, so they are distractors in all but name).
double split_success(const Objective& objective, int k) {
  const double share = 1.0 / k;
  switch (objective.model) {
    case RetentionModel::linear:
      return linear_success(share, objective.beta, objective.entries, objective.top_k);
    case RetentionModel::channels: {
      const channel::NeedleEntry entry{objective.beta * share, std::sqrt(1 - share)};
      if (objective.top_k > 1) {
        return channel::top_k_success_gradient(std::span(&entry, 1), objective.entries - 1,
                                               objective.top_k)
            .probability;
      }
      return channel::needle_success(std::span(&entry, 1), objective.entries - 1).probability;
    }
    case RetentionModel::normalized:
      break;
  }
  const double u = 1 / std::sqrt(static_cast<double>(k));
  if (objective.top_k > 1) {
    const double one[] = {u};
    return channel::success_gradient(objective.beta, one, objective.entries, objective.top_k)
        .probability;
  }
  return channel::single_entry_success(u, objective.beta, objective.entries);
}

}  // namespace

SplitLaw equal_split_law(const Objective& objective) {
  const auto w = objective.weights();
  std::vector<double> covered;  // weights of the phases that have slots, largest first
  for (int phi = 0; phi < objective.geometry.stride; ++phi) {
    if (objective.geometry.multiplicity(phi) > 0)
      covered.push_back(w[static_cast<std::size_t>(phi)]);
  }
  std::sort(covered.rbegin(), covered.rend());
  SplitLaw law;
  double weight = 0;
  for (std::size_t k = 1; k <= covered.size(); ++k) {
    weight += covered[k - 1];
    law.value.push_back(weight * split_success(objective, static_cast<int>(k)));
    if (law.value.back() > law.value[static_cast<std::size_t>(law.k_star - 1)]) {
      law.k_star = static_cast<int>(k);
    }
  }
  return law;
}

VertexPerturbation vertex_perturbation(const Objective& objective) {
  require(objective.model == RetentionModel::normalized,
          "vertex_perturbation needs the normalized model");
  const auto& geometry = objective.geometry;
  const auto w = objective.weights();
  VertexPerturbation result;
  result.slot = best_onehot(objective).first;
  std::vector<double> g(static_cast<std::size_t>(geometry.window), 0.0);
  g[static_cast<std::size_t>(result.slot)] = 1;
  // At the vertex ||g|| = 1 and u_t = 0, so dJ/dg_t = w dP/du_t for t off the vertex;
  // the vertex's own dP/du_s (u_s = 1, partners at 0) comes from the channel directly.
  const auto phases = phase_gradients(objective, g);
  const int own = geometry.phase_of_slot(result.slot);
  std::vector<double> own_u;
  std::size_t own_index = 0;
  for (int s : geometry.slots_of_phase(own)) {
    if (s == result.slot) own_index = own_u.size();
    own_u.push_back(s == result.slot ? 1.0 : 0.0);
  }
  const double pull =
      w[static_cast<std::size_t>(own)] *
      channel::success_gradient(objective.beta, own_u, objective.entries, objective.top_k)
          .d_u[own_index];
  double total = 0;
  for (int t = 0; t < geometry.window; ++t) {
    const auto phi = static_cast<std::size_t>(geometry.phase_of_slot(t));
    const double push =
        t == result.slot ? 0.0 : w[phi] * phases.derivative(static_cast<int>(phi), t);
    result.rho.push_back(push / pull);
    total += result.rho.back();
  }
  // With dP/du_s(1) <= 0 the vertex is not even a maximum along its own direction (beta
  // below the distractor maxima that matter): no first-order prediction.
  result.max_weight = pull > 0 ? 1 / (1 + total) : std::nan("");
  return result;
}

WorkEstimate concentration_report_estimate(const Objective& objective, bool beta_star) {
  // The vertex: the one-hot J of every slot (two distinct phases each, best_onehot) and three
  // more; beta*: about 40 of one entry.
  const auto& g = objective.geometry;
  const double quadratures = 2.0 * g.window + 3 + (beta_star ? 40 : 0);
  return {quadratures * detail::kQuadrature, 0};
}

}  // namespace phasesim::theorems
