#pragma once
// The per-phase success of a phase held by any number of entries (W/S > 2 slots a phase, beyond
// SuccessTable's one or two coordinates) from one fixed rule over the distractor maximum, for
// the searches that evaluate it thousands of times per answer: given the gate the m needle
// entries are independent, so P(x) = 1 - E[prod_s Phi((M - mean_s) / sd_s)] (MODEL.md section
// 4), each factor a function of one coordinate. The rule's nodes and weights (M's density
// included) are built once per distractor count; an evaluation is then m normal cdfs and
// densities per node (from a table of polynomials) instead of an adaptive quadrature. Within
// kAccuracy of the quadrature (tests/channel/success_rule_test.cpp).
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "phasesim/channel/channel.hpp"

namespace phasesim::channel {

namespace detail {
struct MaximumRule;
}  // namespace detail

/// P(x) and dP/dx_s of law_success_gradient(law, beta, distractors + x.size(), x), for any
/// x.size(), from a composite Gauss-Legendre rule over M (grid_success's) whose pieces are
/// short enough for every step Phi((y - mean) / sd) with sd >= kNarrowest. A narrower entry
/// (u close to 1: a gate near one-hot) is a step the shared rule cannot resolve: such a call
/// builds its own rule, with pieces of 2 sd around each narrow step, from 8 sd below it up (M's
/// mass below in closed form): about 250 nodes against the shared rule's 40 to 80, with M's
/// density at each, five times the cost or more.
/// An entry with sd below kStep (u = 1, a one-hot gate: a step the quadrature takes as an exact
/// jump) is not served.
class SuccessRule {
 public:
  /// Largest |P_rule - P_quadrature| over the tested grid of laws, beta, N and gates
  /// (tests/channel/success_rule_test.cpp), and what the commands may rely on.
  static constexpr double kAccuracy = 1e-10;
  static constexpr double kNarrowest = 0.25;
  static constexpr double kStep = 1e-9;

  explicit SuccessRule(std::int64_t distractors);
  ~SuccessRule();
  SuccessRule(const SuccessRule&) = delete;
  SuccessRule& operator=(const SuccessRule&) = delete;

  /// P into `probability` and dP/dx_s into `slope` (x.size() of them); false, writing nothing,
  /// where not served (a coordinate outside [0, 1], or an entry narrower than kStep).
  bool lookup(EntryLaw law, double beta, std::span<const double> x, double& probability,
              std::span<double> slope) const;
  /// The shared rule's nodes (what an evaluation costs: x.size() cdfs and densities each).
  std::size_t nodes() const;

 private:
  std::unique_ptr<const detail::MaximumRule> rule_;
  double mass_;  ///< the rule's integral of M's density: 1 up to its error, which cancels
  /// The composite rule a narrow call's own rule continues with above its steps (M's density at
  /// its nodes computed once, not at every call).
  std::unique_ptr<const detail::MaximumRule> coarse_;
};

}  // namespace phasesim::channel
