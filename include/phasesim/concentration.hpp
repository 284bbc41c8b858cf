#pragma once
// Theorem 1 (theory/THEORY.md): the critical beta of the linear-retention model and the
// equal-split law of the normalized model.
#include <cstdint>
#include <vector>

#include "phasesim/objective.hpp"

namespace phasesim {

/// A_lin(c; beta, N) = P(beta c + Z > max of N - 1 iid N(0, 1)): the linear-retention
/// success of one needle entry with gate weight c among N entries in all.
double linear_success(double c, double beta, std::int64_t entries);

/// The star-shapedness margin at c = 1, h(beta) = A_lin'(1) - (A_lin(1) - A_lin(0)).
/// (A_lin(c) - A_lin(0))/c is non-decreasing on (0, 1] exactly when h(beta) >= 0, and h
/// is positive on (0, beta*) and negative beyond (THEORY.md, T1a).
double star_margin(double beta, std::int64_t entries);

/// beta*(N), the largest beta for which the linear model's excess success is
/// star-shaped (the unique positive root of star_margin), to 1e-10.
double critical_beta(std::int64_t entries);

/// The equal-split law of T1b: splitting the gate equally over k slots of distinct
/// phases (the k phases of largest weight w) gives about value[k-1] =
/// (sum of those w) * A(1/sqrt(k); beta, N) in the normalized model, where each of the
/// k slots has u = 1/sqrt(k) (A_lin(1/k; beta, N) in the linear model, where c = 1/k);
/// k_star is the best k (the smallest at ties).
struct SplitLaw {
  int k_star = 1;
  std::vector<double> value;  ///< index k-1, k = 1..number of phases with slots
};
SplitLaw equal_split_law(const Objective& objective);

}  // namespace phasesim
