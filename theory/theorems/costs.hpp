#pragma once
// What the searches of this layer cost, for their up-front estimates (internal to theory/:
// optimize, phase-diagram, dynamics, the theorem checks, T3's joint training). Measured in CPU
// time on one core of the project's AVX-512 EPYC (benchmarks/commands_benchmark.cpp; the
// recorded run is benchmarks/recorded/commands.json, and tests/commands/estimate_test.cpp
// holds every estimate to within a factor 2 of it).
#include <algorithm>

#include "phasesim/model/geometry.hpp"

namespace phasesim::theorems::detail {

/// One evaluation of J and its gradient from the success tables, per slot of the window (the
/// lookups and the O(W) chain rule: 0.22 us at W = 8 to 64 with two slots a phase; a table of
/// one coordinate, W = S, is read in one pass: 0.08 us at W = S = 128).
inline constexpr double kEvaluationPerSlot = 0.25e-6;
inline constexpr double kEvaluationPerSlotOne = 0.08e-6;
/// One quadrature (the reports' values at the optimum, the one-hot gates, the equal splits).
inline constexpr double kQuadrature = 1.1e-4;
/// A phase held by more than two slots has no table: the success rule (channel/success_rule.hpp,
/// 40 to 80 nodes, Phi and phi from a table of polynomials), per slot of the phase and evaluation.
inline constexpr double kRulePerSlot = 0.5e-6;
/// A phase of more than two slots with a slot near one-hot (sd below 0.25: where a run locks
/// in) is integrated on a composite rule of its own from that slot's step up, about 250 nodes,
/// with M's density at the half of them below the shared composite rule's pieces.
inline constexpr double kNarrowRulePhase = 2e-5;
/// Evaluations per L-BFGS iteration (the line search's halvings) and per dynamics step.
inline constexpr double kEvaluationsPerIteration = 1.2;
/// Iterations of an ascent from an equal split, a warm start or a polish (5 to 130 measured,
/// most near 15); random starts at beta >= 6 run to --max-iterations, which is what is assumed.
inline constexpr double kShortAscent = 15;

/// One evaluation of J: the table lookups, and the rule for each phase of more slots.
inline double evaluation_seconds(const Geometry& geometry) {
  double seconds = 0;
  for (int phi = 0; phi < geometry.stride; ++phi) {
    const int slots = geometry.multiplicity(phi);
    seconds += (slots == 1 ? kEvaluationPerSlotOne : kEvaluationPerSlot) * slots;
    if (slots > 2) seconds += kRulePerSlot * slots;
  }
  return seconds;
}

/// The most slots any phase has.
inline int most_slots(const Geometry& geometry) {
  int most = 0;
  for (int phi = 0; phi < geometry.stride; ++phi) most = std::max(most, geometry.multiplicity(phi));
  return most;
}

/// The success tables a search builds: two slots a phase make patches of 289 nodes, one slot
/// of 25 (channel/success_table.hpp); a search visits part of either.
inline double table_seconds(const Geometry& geometry, double two_slots) {
  return most_slots(geometry) >= 2 ? two_slots : 2e-3;
}

}  // namespace phasesim::theorems::detail
