#pragma once
// Theorem 1 (theory/THEORY.md): the critical beta of the linear-retention model and the
// equal-split law of the normalized model (and of channel shares).
#include <cstdint>
#include <vector>

#include "phasesim/core/budget.hpp"
#include "phasesim/theorems/objective.hpp"

namespace phasesim::theorems {

/// A_lin(c; beta, N) = P(beta c + Z > max of N - 1 iid N(0, 1)): the linear-retention
/// success of one needle entry with gate weight c among N entries in all (with top_k > 1:
/// beating the top_k-th largest of them, T1 under selection).
double linear_success(double c, double beta, std::int64_t entries, std::int64_t top_k = 1);

/// The star-shapedness margin at c = 1, h(beta) = A_lin'(1) - (A_lin(1) - A_lin(0)).
/// (A_lin(c) - A_lin(0))/c is non-decreasing on (0, 1] exactly when h(beta) >= 0, and h
/// is positive on (0, beta*) and negative beyond (THEORY.md, T1a).
double star_margin(double beta, std::int64_t entries, std::int64_t top_k = 1);

/// beta*(N), the largest beta for which the linear model's excess success is
/// star-shaped (the unique positive root of star_margin), to 1e-10; beta*(N, k) under top-k
/// selection (THEORY.md, "T1 under selection"), 0 where no beta > 1e-6 is star-shaped.
double critical_beta(std::int64_t entries, std::int64_t top_k = 1);

/// The equal-split law of T1b: splitting the gate equally over k slots of distinct
/// phases (the k phases of largest weight w) gives about value[k-1] =
/// (sum of those w) * A(1/sqrt(k); beta, N) in the normalized model, where each of the
/// k slots has u = 1/sqrt(k) (A_lin(1/k; beta, N) in the linear model, where c = 1/k;
/// with channel shares x = 1/k, one entry of mean beta/k and sd sqrt(1 - 1/k) against
/// N - 1 distractors); k_star is the best k (the smallest at ties).
struct SplitLaw {
  int k_star = 1;
  std::vector<double> value;  ///< index k-1, k = 1..number of phases with slots
};
SplitLaw equal_split_law(const Objective& objective);

/// T1b(ii), normalized model: near the best one-hot gate e_s a stationary point has, to
/// first order, g_t/g_s = rho_t = w_phi(t) dP_phi(t)/du_t(0) / (w_phi(s) dP_phi(s)/du_s(1)),
/// so its max weight is about 1/(1 + sum_t rho_t). Meaningful where k* = 1; NaN when
/// dP/du_s(1) <= 0 (the vertex is no maximum even along its own direction).
struct VertexPerturbation {
  int slot = 0;             ///< s, the best one-hot slot
  std::vector<double> rho;  ///< rho_t (0 for t = s)
  double max_weight = 1;    ///< 1 / (1 + sum_t rho_t)
};
VertexPerturbation vertex_perturbation(const Objective& objective);

/// The time of what optimize's and the concentration check's reports add to the optimization
/// (by quadrature, exact): the vertex's first-order weight and, with `beta_star`, beta*(N) (the
/// equal-split law is the optimization's: GateOptimum::equal_split_values). WorkEstimate's
/// seconds; no memory to speak of.
WorkEstimate concentration_report_estimate(const Objective& objective, bool beta_star);

}  // namespace phasesim::theorems
