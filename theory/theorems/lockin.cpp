#include "phasesim/theorems/lockin.hpp"

#include <algorithm>
#include <string>

#include "phasesim/core/error.hpp"
#include "phasesim/model/gate.hpp"

namespace phasesim::theorems {

void validate_lockin(const Geometry& geometry, const LockinSettings& settings) {
  if (settings.reweight_steps == 0) return;
  const int phases = std::min(geometry.window, geometry.stride);
  require(phases >= 2, "invalid --" + std::string(geometry.stride < 2 ? "stride " : "window ") +
                           std::to_string(phases) +
                           " (lock-in moves all phase weight to a phase the winner does not "
                           "cover: needs --window and --stride at least 2, or --reweight-steps 0)");
}

int other_phase(const Geometry& geometry, int phi) {
  for (int k = 1; k < geometry.stride; ++k) {
    const int candidate = (phi + k) % geometry.stride;
    if (geometry.multiplicity(candidate) > 0) return candidate;
  }
  return -1;
}

bool LockinRun::locked() const {
  const int a = result.initial.argmax;
  return (reweighted_to < 0 || result.at_reweight.argmax == a) && result.final.argmax == a;
}

LockinRun lockin_run(const Objective& objective, const LockinSettings& settings, RunSpec spec,
                     const Parallel& parallel) {
  const auto& geometry = objective.geometry;
  LockinRun run{std::move(spec), -1, {}};
  const auto logits = initial_logits(run.spec.init, geometry.window);
  const auto start = summarize_gate(gate_from_logits(logits, "init").weights);
  auto dynamics = settings.dynamics;
  dynamics.content.seed = run.spec.content_seed;
  dynamics.reweight_at = -1;
  dynamics.record_every = dynamics.steps + settings.reweight_steps;
  run.reweighted_to = settings.reweight_steps > 0
                          ? other_phase(geometry, geometry.phase_of_slot(start.argmax))
                          : -1;
  if (run.reweighted_to >= 0) {
    dynamics.reweight_at = dynamics.steps;
    dynamics.reweight.assign(static_cast<std::size_t>(geometry.stride), 0.0);
    dynamics.reweight[static_cast<std::size_t>(run.reweighted_to)] = 1.0;
    dynamics.steps += settings.reweight_steps;
  }
  run.result = run_dynamics(objective, logits, dynamics, parallel);
  return run;
}

std::vector<LockinRun> lockin_runs(const Objective& objective, const LockinSettings& settings,
                                   const std::vector<RunSpec>& specs, const Parallel& parallel) {
  const auto shared = tabled(objective);  // one set of success tables for every run
  return parallel_map(parallel, static_cast<std::int64_t>(specs.size()), [&](std::int64_t i) {
    return lockin_run(shared, settings, specs[static_cast<std::size_t>(i)], parallel);
  });
}

Json lockin_run_json(const LockinRun& run) {
  const auto& r = run.result;
  return {{"init", run.spec.init},
          {"content_seed", run.spec.content_seed},
          {"init_argmax", r.initial.argmax},
          // Without a re-weighting there is no "before" to report.
          {"argmax_before_reweight", run.reweighted_to < 0 ? Json() : Json(r.at_reweight.argmax)},
          {"max_weight_before_reweight",
           run.reweighted_to < 0 ? Json() : Json(r.at_reweight.max_weight)},
          {"reweighted_to_phase", run.reweighted_to},
          {"final_argmax", r.final.argmax},
          {"final_max_weight", r.final.max_weight},
          {"order_condition", r.order_condition},
          {"locked", run.locked()}};
}

}  // namespace phasesim::theorems
