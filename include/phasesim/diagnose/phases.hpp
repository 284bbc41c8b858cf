#pragma once
// Per-phase accuracies of a table (MODEL.md sections 2 and 5; docs/DIAGNOSE.md): the groups
// of one residue mod P pool into one phase; each phase gets its likelihood-ratio 95%
// interval and is blind when that interval reaches the model's chance level. The worst
// phase gets an interval valid whether or not several phases tie for last.
#include <cstdint>
#include <vector>

#include "phasesim/diagnose/table.hpp"

namespace phasesim::diagnose {

struct PhaseAccuracy {
  int phase = 0;
  std::vector<int> groups;  ///< the groups pooled into this phase
  std::int64_t successes = 0;
  std::int64_t trials = 0;
  double accuracy = 0;
  double ci_low = 0;  ///< likelihood-ratio 95% interval
  double ci_high = 0;
  double chance = 0;   ///< accuracy when no head covers the phase
  bool blind = false;  ///< ci_low <= chance: not distinguishable from chance
};

/// A phase's accuracy with an interval.
struct PhaseEstimate {
  int phase = 0;
  double accuracy = 0;
  double ci_low = 0;
  double ci_high = 0;
};

struct PhaseProfile {
  std::vector<PhaseAccuracy> phases;
  /// The lowest accuracy over phases. Lower end: the smallest phase's lower limit (each a
  /// one-sided 97.5% bound). Upper end: the largest t whose summed deviance over the phases
  /// below t stays within the 95% point of the chi-bar-squared law of S tied phases.
  PhaseEstimate worst;
  PhaseEstimate best;  ///< the highest accuracy, with its own interval
  double gap = 0;      ///< best - worst
  int blind = 0;       ///< phases at chance
};

/// Pools groups r, r + P, r + 2P, ... into phase r (P = phases, dividing the group count);
/// chance[r] is phase r's chance level.
PhaseProfile phase_profile(const CountTable& table, int phases, const std::vector<double>& chance);

/// The chi-bar-squared cutoff of the worst-phase interval for S phases: c with
/// sum_{j=1..S} C(S, j) 2^-S P(chi2_j > c) = 0.025. 3.84 for S = 1.
double worst_phase_cutoff(int phases);

}  // namespace phasesim::diagnose
