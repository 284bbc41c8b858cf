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

double linear_success(double c, double beta, std::int64_t entries) {
  const channel::NeedleEntry entry{beta * c, 1.0};
  return channel::needle_success(std::span(&entry, 1), entries - 1).probability;
}

double star_margin(double beta, std::int64_t entries) {
  const channel::NeedleEntry entry{beta, 1.0};
  const auto at_one = channel::needle_success_gradient(std::span(&entry, 1), entries - 1);
  const double slope = beta * at_one.d_mean[0];  // A_lin'(1) = beta g(beta)
  return slope - (at_one.probability - linear_success(0.0, beta, entries));
}

double critical_beta(std::int64_t entries) {
  require(entries >= 2,
          "invalid --entries " + std::to_string(entries) + " (beta* needs at least 2)");
  // h > 0 on (0, beta*) and < 0 after: step up to the first negative value, then bracket.
  constexpr double kStep = 0.5;
  double lo = kStep;
  while (star_margin(lo + kStep, entries) > 0) {
    lo += kStep;
    require(lo < 100, "beta* above 100 (entries " + std::to_string(entries) + ")");
  }
  std::uintmax_t iterations = 100;
  const auto [a, b] = boost::math::tools::toms748_solve(
      [&](double beta) { return star_margin(beta, entries); }, lo, lo + kStep,
      [](double x, double y) { return std::abs(x - y) < 1e-10; }, iterations);
  return 0.5 * (a + b);
}

namespace {

// The success of each of k phases under the equal split: one needle entry (the split's
// slot; the phase's other slots weigh nothing, so they are distractors in all but name).
double split_success(const Objective& objective, int k) {
  const double share = 1.0 / k;
  switch (objective.model) {
    case RetentionModel::linear:
      return linear_success(share, objective.beta, objective.entries);
    case RetentionModel::channels: {
      const channel::NeedleEntry entry{objective.beta * share, std::sqrt(1 - share)};
      return channel::needle_success(std::span(&entry, 1), objective.entries - 1).probability;
    }
    case RetentionModel::normalized:
      break;
  }
  return channel::single_entry_success(1 / std::sqrt(static_cast<double>(k)), objective.beta,
                                       objective.entries);
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
      channel::success_gradient(objective.beta, own_u, objective.entries).d_u[own_index];
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
  // The split law: one quadrature per phase with slots; the vertex: the one-hot J of every
  // slot (two distinct phases each, best_onehot) and three more; beta*: about 40 of one entry.
  const auto& g = objective.geometry;
  const double quadratures = g.stride + 2.0 * g.window + 3 + (beta_star ? 40 : 0);
  return {quadratures * detail::kQuadrature, 0};
}

}  // namespace phasesim::theorems
