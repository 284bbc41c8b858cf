#pragma once
// What the searches of this layer cost, for their up-front estimates (internal to theory/:
// optimize, phase-diagram, dynamics, the theorem checks, T3's joint training). Measured in CPU
// time on one core of the project's AVX-512 EPYC (benchmarks/commands_benchmark.cpp; the
// recorded run is benchmarks/recorded/commands.json, and tests/commands/estimate_test.cpp
// holds every estimate to within a factor 2 of it).
#include <algorithm>
#include <cmath>

#include "phasesim/model/geometry.hpp"
#include "phasesim/theorems/objective.hpp"

namespace phasesim::theorems::detail {

/// One evaluation of J and its gradient from the success tables, per slot of the window (the
/// lookups and the O(W) chain rule; one or two slots a phase alike since the one-pass lookup).
inline constexpr double kEvaluationPerSlot = 0.1e-6;
/// What an L-BFGS iteration costs besides its evaluations: the gate from its logits, the
/// two-loop recursion, the line search's bookkeeping (about 4 us at W 8 to 128).
inline constexpr double kIterationOverhead = 4e-6;
/// One quadrature (the reports' values at the optimum, the one-hot gates, the equal splits).
inline constexpr double kQuadrature = 4e-5;
/// A phase held by more than two slots has no table: the success rule (channel/success_rule.hpp,
/// 40 to 80 nodes, Phi and phi from a table of polynomials, both at once in two lanes), per slot
/// of the phase and evaluation.
inline constexpr double kRulePerSlot = 0.35e-6;
/// A phase of more than two slots with a slot near one-hot (sd below 0.25: where a run locks
/// in) is integrated on a composite rule of its own from that slot's step up to M's far upper
/// tail, about 160 nodes, with M's density at the half of them below the shared composite
/// rule's pieces.
inline constexpr double kNarrowRulePhase = 0.7e-5;
/// Evaluations per L-BFGS iteration (the line search's halvings) and per dynamics step.
inline constexpr double kEvaluationsPerIteration = 1.2;
/// Iterations of an ascent from an equal split, a warm start or a polish (5 to 130 measured,
/// most near 15).
inline constexpr double kShortAscent = 15;
/// Iterations of a random start below lock-in, where it climbs to the flat optimum and stops:
/// about kFlatAscent, but some wander on the flat landscape to --max-iterations (W 8 / S 4 at
/// beta 4.5, N = 32768: 34 a start with 500 allowed; 669 with 10^5, 127 of 20004 starts running
/// to the limit).
inline constexpr double kFlatAscent = 40;
inline constexpr double kFlatTail = 0.0065;

/// Iterations of a random start: above about 1.25 sqrt(2 ln(N / k)) in beta the gate locks in
/// (T2) and the ascents run to --max-iterations (measured: from beta 5 at N = 1024, from 6 at
/// N = 32768, where the threshold is 4.65 and 5.70); below it, the flat ascent and its tail.
inline double random_ascent_iterations(const Objective& objective, int max_iterations) {
  const double distractors =
      static_cast<double>(objective.entries) / static_cast<double>(objective.top_k);
  const double lock_in = 1.25 * std::sqrt(2 * std::log(std::max(2.0, distractors)));
  if (objective.beta >= lock_in) return max_iterations;
  return std::min<double>(kFlatAscent + kFlatTail * max_iterations, max_iterations);
}

/// One evaluation of J: the table lookups, and the rule for each phase of more slots.
inline double evaluation_seconds(const Geometry& geometry) {
  double seconds = 0;
  for (int phi = 0; phi < geometry.stride; ++phi) {
    const int slots = geometry.multiplicity(phi);
    seconds += kEvaluationPerSlot * slots;
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

/// One evaluation from an equal split's start: its own phase and the rest, alike while the
/// split keeps their slots equal, are two phases computed (the searches read alike phases once).
inline double split_evaluation_seconds(const Geometry& geometry) {
  const int slots = std::min(geometry.window, 2 * most_slots(geometry));
  return kEvaluationPerSlot * slots + (slots > 4 ? kRulePerSlot * slots : 0.0);
}

/// The success tables a search builds: two slots a phase make patches of 289 nodes, one slot
/// of 25 (channel/success_table.hpp); a search visits part of either.
inline double table_seconds(const Geometry& geometry, double two_slots) {
  return most_slots(geometry) >= 2 ? two_slots : 2e-3;
}

}  // namespace phasesim::theorems::detail
