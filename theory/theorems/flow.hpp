#pragma once
// One step of gradient ascent that follows the gradient flow instead of overshooting
// it (internal to theory/: the single-head dynamics and the joint training of T3).
#include <algorithm>
#include <cmath>
#include <vector>

#include "phasesim/theorems/objective.hpp"

namespace phasesim::theorems::detail {

struct FlowStep {
  double lr = 1;
  double max_step = 0.1;  ///< largest change of one coordinate per sub-step
  bool exact = true;      ///< the objective is exact (not a fresh Monte Carlo estimate)
  /// The last accepted sub-step as a fraction of lr: the next one starts at twice it,
  /// so a stiff stretch of the flow does not pay for the same halvings at every step.
  double hint = 1;
};

/// Evaluations one step may spend; a step that needs more (lr far beyond what the
/// curvature allows) ends early, J still not lowered.
inline constexpr int kFlowEvaluations = 8;

inline bool lowers(const ObjectiveValue& next, const ObjectiveValue& at) {
  return next.value < at.value - 1e-15 * std::abs(at.value);
}

/// Moves x by lr * direction(at, x), in sub-steps that change no coordinate by more than
/// max_step. With an exact objective a sub-step that would lower it is halved (and the
/// step ends at a maximum, to rounding, or after kFlowEvaluations); with an estimate
/// only the cap applies and the last sub-step is not evaluated (the caller draws
/// afresh). `at` holds the value and gradient at x (stale after the last sub-step when
/// the objective is not exact).
template <typename Evaluate, typename Direction>
void flow_step(std::vector<double>& x, ObjectiveValue& at, FlowStep& step, Evaluate&& evaluate,
               Direction&& direction) {
  constexpr int kHalvings = 20;
  int evaluations = 0;
  for (double remaining = 1; remaining > 1e-12 && evaluations < kFlowEvaluations;) {
    const auto d = direction(at, x);
    double largest = 0;
    for (double v : d) largest = std::max(largest, std::abs(step.lr * v));
    if (!(largest > 0)) return;
    double fraction = std::min({remaining, step.max_step / largest, 2 * step.hint});
    const bool last = remaining - fraction <= 1e-12;
    std::vector<double> trial(x.size());
    ObjectiveValue next;
    for (int h = 0; h <= kHalvings; ++h, fraction /= 2) {
      for (std::size_t i = 0; i < x.size(); ++i) trial[i] = x[i] + fraction * step.lr * d[i];
      if (!step.exact && last) break;
      next = evaluate(trial);
      if (!step.exact || !lowers(next, at) || ++evaluations >= kFlowEvaluations) break;
    }
    if (step.exact && lowers(next, at)) return;
    if (step.exact) step.hint = fraction;
    x = std::move(trial);
    if (step.exact || !last) at = std::move(next);
    remaining -= fraction;
  }
}

}  // namespace phasesim::theorems::detail
