#pragma once
// Theorem 2: gradient ascent on the gate logits (replicator dynamics), optional
// re-weighting of the phases mid-run, and content noise in the gate.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "phasesim/core/budget.hpp"
#include "phasesim/core/bytes.hpp"
#include "phasesim/core/parallel.hpp"
#include "phasesim/theorems/objective.hpp"

namespace phasesim::theorems {

/// gradient:   b += lr dJ/db (plain gradient ascent on the logits; on g it is the
///             replicator equation with fitness g_s (f_s - f_bar), f = dJ/dg);
/// replicator: b += lr dJ/dg (mirror ascent; on g it is g_s' = g_s (f_s - f_bar)).
enum class UpdateRule { gradient, replicator };

/// "gradient" or "replicator"; throws InputError naming --update otherwise.
UpdateRule parse_update_rule(std::string_view name);
std::string to_string(UpdateRule rule);

/// Content noise in the gate (MODEL.md section 3): each entry that holds the needle
/// pools with g = softmax(b + tau xi), xi iid N(0, 1) per token, drawn from the Philox
/// stream (seed, step) so that a run is reproducible and independent of threads.
struct ContentNoise {
  double tau = 0;
  std::uint64_t seed = 0;
  int samples = 4;  ///< needle contexts per phase and step
};

/// J_tau(b) estimated from `samples` draws per phase (exactly J when tau = 0), with
/// its gradient in the logits. Distractor entries are N(0, 1) whatever their gates: each entry's
/// logit is standardized by its own ||g|| (RMS-normalized pooling), so noise only moves the
/// needle's entries.
ObjectiveValue content_objective(const Objective& objective, std::span<const double> logits,
                                 const ContentNoise& noise, std::uint32_t step);

struct DynamicsSettings {
  int steps = 2000;
  double lr = 20;
  /// A step that would move some logit by more than this is split into equal sub-steps,
  /// and a (sub-)step that would lower J is halved: the runs follow the gradient flow
  /// instead of overshooting it.
  double max_logit_step = 0.1;
  UpdateRule rule = UpdateRule::gradient;
  int reweight_at = -1;          ///< step after which phase_weights become `reweight`
  std::vector<double> reweight;  ///< normalized phase weights from then on
  ContentNoise content;
  int record_every = 50;  ///< trajectory points (plus the first and last step)
};

struct TrajectoryPoint {
  int step = 0;
  double objective = 0;
  std::vector<double> gate;
};

struct DynamicsRun {
  std::vector<double> init_gate, final_gate;
  GateSummary initial, final;
  double final_objective = 0;
  std::vector<TrajectoryPoint> trajectory;
  GateSummary at_reweight;  ///< the gate when the weights changed (if they did)
  /// Condition (M) of THEORY.md: at every step before any re-weighting the heaviest
  /// slot had the largest marginal value dJ/dg_s, which guarantees that it stays the
  /// heaviest.
  bool order_condition = true;
  int evaluations = 0;
};

/// Runs the dynamics from `logits` under `objective` (its phase weights until reweight_at),
/// stopping (Cancelled) between steps when `parallel` says so (check_stop).
DynamicsRun run_dynamics(Objective objective, std::vector<double> logits,
                         const DynamicsSettings& settings, const Parallel& parallel = {});

/// The time and memory of `runs` runs of `steps` steps each (phasesim/core/budget.hpp), their
/// trajectories recorded every settings.record_every steps. Counts are doubles so that
/// absurd ones (--inits 1e8 times many seeds) are estimated, not overflowed.
WorkEstimate dynamics_estimate(const Objective& objective, const DynamicsSettings& settings,
                               double runs, double steps);

/// Throws InputError (naming the CLI options) on bad settings for `objective`.
void validate_dynamics(const Objective& objective, const DynamicsSettings& settings);

}  // namespace phasesim::theorems

// The results that cross the ranks of an MPI job (core/bytes.hpp): Fields is core's template.
namespace phasesim {

template <>
struct Fields<theorems::TrajectoryPoint> {
  static auto of(auto& p) { return std::tie(p.step, p.objective, p.gate); }
};

template <>
struct Fields<theorems::DynamicsRun> {
  static auto of(auto& r) {
    return std::tie(r.init_gate, r.final_gate, r.initial, r.final, r.final_objective, r.trajectory,
                    r.at_reweight, r.order_condition, r.evaluations);
  }
};

}  // namespace phasesim
