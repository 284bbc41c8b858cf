#include "phasesim/theorems/dynamics_batch.hpp"

#include <algorithm>

#include "phasesim/core/error.hpp"
#include "phasesim/model/gate.hpp"

namespace phasesim::theorems {
namespace {

Json run_json(const BatchRun& run) {
  const auto& r = run.result;
  return {{"init", run.spec.init},
          {"content_seed", run.spec.content_seed},
          {"init_argmax", r.initial.argmax},
          {"final_argmax", r.final.argmax},
          {"final_max_weight", r.final.max_weight},
          {"final_objective", r.final_objective},
          {"k_effective", r.final.k_effective},
          {"order_condition", r.order_condition},
          {"argmax_at_reweight", r.at_reweight.argmax},
          {"max_weight_at_reweight", r.at_reweight.max_weight},
          {"evaluations", r.evaluations}};
}

Json trajectory_json(const std::vector<TrajectoryPoint>& trajectory) {
  Json points = Json::array();
  for (const auto& p : trajectory) {
    points.push_back({{"step", p.step}, {"objective", p.objective}, {"gate", p.gate}});
  }
  return points;
}

}  // namespace

std::vector<RunSpec> run_specs(const std::string& init, int inits,
                               const std::vector<std::uint64_t>& content_seeds, int window) {
  require_at_least(inits, 1, "--inits");
  require(!content_seeds.empty(), "invalid --content-seed (give at least one seed)");
  const auto base = parse_gate(init, window);
  require_one_gate(base, "--init");
  // A tied largest weight (uniform, weights:1,1,...) has no initial argmax to lock in, and
  // a symmetric start is a fixed point of the flow: the run would count as locked in while
  // never moving. Random inits (the default) never tie.
  const double top = *std::max_element(base.weights.begin(), base.weights.end());
  const auto tied = std::count_if(base.weights.begin(), base.weights.end(),
                                  [&](double w) { return w >= top * (1 - 1e-12); });
  require(tied == 1, "invalid --init " + init + " (its largest weight is shared by " +
                         counted(tied, "slot") +
                         ": no initial argmax, and a symmetric start may never move; use "
                         "random:SEED[:SCALE] or a gate with one largest weight)");
  std::vector<RunSpec> runs;
  for (int i = 0; i < inits; ++i) {
    for (auto seed : content_seeds) runs.push_back({replicate_gate(base, i).spec, seed});
  }
  return runs;
}

DynamicsBatch run_dynamics_batch(const Objective& objective, const std::vector<RunSpec>& specs,
                                 const DynamicsSettings& settings, const Parallel& parallel) {
  DynamicsBatch batch;
  const auto shared = tabled(objective);  // one set of success tables for every run
  batch.runs = parallel_map(parallel, static_cast<std::int64_t>(specs.size()), [&](std::int64_t i) {
    const auto& spec = specs[static_cast<std::size_t>(i)];
    auto run_settings = settings;
    run_settings.content.seed = spec.content_seed;
    const auto logits = initial_logits(spec.init, objective.geometry.window);
    return BatchRun{spec, run_dynamics(shared, logits, run_settings, parallel)};
  });
  for (const auto& run : batch.runs) {
    batch.kept += run.result.final.argmax == run.result.initial.argmax ? 1 : 0;
  }
  return batch;
}

Json dynamics_batch_json(const DynamicsBatch& batch) {
  const auto& first = batch.runs.front().result;
  Json runs = Json::array();
  for (const auto& run : batch.runs) runs.push_back(run_json(run));
  const auto total = batch.runs.size();
  return {{"trajectory", trajectory_json(first.trajectory)},
          {"init_argmax", first.initial.argmax},
          {"final_argmax", first.final.argmax},
          {"final_max_weight", first.final.max_weight},
          {"runs", runs},
          {"lock_in_count", batch.kept},
          {"runs_total", total},
          {"lock_in_fraction", static_cast<double>(batch.kept) / static_cast<double>(total)}};
}

}  // namespace phasesim::theorems
