#pragma once
// The one validation boundary of a NIAH run (docs/ARCHITECTURE.md, "Where a run is
// validated"). prepare() takes a spec as the user states it and checks it once: the run
// (model, needles, combination, knockout: make_run), that the engine computes the model
// (Engine::check), and the work it will take against the limits (Engine::estimate,
// check_work). What it returns, a NiahPlan, is the only thing an engine runs, so nothing
// downstream validates or estimates again:
//
//   const auto plan = prepare(spec, registry.find("fast"), Parallel{threads}.team());
//   const auto result = run_niah(plan, Parallel{threads});
#include <string>
#include <utility>
#include <vector>

#include "phasesim/core/budget.hpp"
#include "phasesim/core/parallel.hpp"
#include "phasesim/engines/engine.hpp"
#include "phasesim/niah/report.hpp"
#include "phasesim/niah/run.hpp"

namespace phasesim::engines {

/// A run that prepare() checked, with the engine that will run it and what it will cost.
class NiahPlan {
 public:
  const niah::NiahRun& run() const { return run_; }
  const Engine& engine() const { return *engine_; }
  /// The time and memory the engine was estimated to need (within the limits).
  const WorkEstimate& estimate() const { return estimate_; }
  /// What the user should read before the run: the engine's approximation, if it makes one,
  /// then what the spec cannot show (niah_warnings).
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  friend NiahPlan prepare(const niah::NiahSpec& spec, const Engine& engine, int threads);
  NiahPlan(niah::NiahRun run, const Engine& engine, WorkEstimate estimate,
           std::vector<std::string> warnings)
      : run_(std::move(run)),
        engine_(&engine),
        estimate_(estimate),
        warnings_(std::move(warnings)) {}

  niah::NiahRun run_;
  const Engine* engine_;  ///< outlives the plan (registries live as long as the program)
  WorkEstimate estimate_;
  std::vector<std::string> warnings_;
};

/// The checked plan of `spec` on `engine`, bounded for `threads` threads (Parallel::team()).
/// Throws InputError, one line naming the option at fault, when the spec is invalid, the
/// engine cannot compute its model, or the work is beyond the limits of budget.hpp.
NiahPlan prepare(const niah::NiahSpec& spec, const Engine& engine, int threads);

/// The engine's output for the plan: exact probabilities or per-trial outcomes. Same seed,
/// same output, whatever the parallel policy.
niah::EngineOutput run_engine(const NiahPlan& plan, const Parallel& parallel);

/// The experiment end to end: the plan's engine, then the report per group.
niah::NiahResult run_niah(const NiahPlan& plan, const Parallel& parallel);

/// The `niah` document of a plan's result (niah::niah_document with the engine's name and
/// paths), ending with the plan's "warnings": what the CLI writes and Python returns.
Json niah_plan_document(const NiahPlan& plan, const niah::NiahResult& result);

}  // namespace phasesim::engines
