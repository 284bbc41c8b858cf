#pragma once
// How many prompts would settle it (docs/DIAGNOSE.md): the prompts per group at which the
// likelihood-ratio test of period P against flat, at level alpha with its chi-squared(P - 1)
// reference, reaches the wanted power when the true per-group accuracies are the table's
// (pooled by residue mod P), or the same profile with half the gap. The power is the
// non-central chi-squared law of the statistic, with non-centrality prompts x the
// per-prompt Kullback-Leibler divergence of the profile from its flat mean, x 2.
#include <cstdint>
#include <optional>
#include <vector>

#include "phasesim/diagnose/table.hpp"

namespace phasesim::diagnose {

struct PowerTarget {
  double gap = 0;                       ///< best - worst group of the profile
  std::optional<std::int64_t> prompts;  ///< per group; unset when the profile is flat
};

struct PowerAnalysis {
  int period = 0;
  double alpha = 0.05;
  double power = 0.8;
  PowerTarget observed;  ///< the table's profile
  PowerTarget half;      ///< the same profile with half its gap
};

/// Power of the test of period P (dividing the group count) against flat with `prompts`
/// per group when group g succeeds with accuracies[g].
double period_test_power(const std::vector<double>& accuracies, int period, std::int64_t prompts,
                         double alpha);

/// The prompts per group that reach `power` for the table's profile pooled by residue mod
/// `period`, and for half its gap.
PowerAnalysis power_analysis(const CountTable& table, int period, double alpha = 0.05,
                             double power = 0.8);

}  // namespace phasesim::diagnose
