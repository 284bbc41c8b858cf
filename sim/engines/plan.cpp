#include "phasesim/engines/plan.hpp"

#include <string>

namespace phasesim::engines {
namespace {

// The sizes a refusal names: "--window 8, --heads 1, --context 131072, 2048 trials, --engine
// fast" (or "the heads of FILE, ...").
std::string work_label(const niah::NiahSpec& spec, const niah::NiahRun& run, const Engine& engine) {
  const auto heads = spec.architecture ? "the heads of " + spec.architecture->file
                                       : "--window " + std::to_string(spec.geometry.window) +
                                             ", --heads " + std::to_string(run.model.heads());
  return heads + ", --context " + std::to_string(spec.context) + ", " +
         counted(run.needles.trials(), "trial") + ", --engine " + engine.name();
}

std::vector<std::string> plan_warnings(const niah::NiahSpec& spec, const niah::NiahRun& run,
                                       const Engine& engine) {
  auto warnings = niah::niah_warnings(spec);
  if (const auto approximation = engine.approximation(run.model); !approximation.empty()) {
    warnings.insert(warnings.begin(), "--engine " + engine.name() + " computes " + approximation +
                                          ", which can be far off at --dim " +
                                          std::to_string(run.model.dim.value_or(0)) +
                                          " (--engine fast or full computes the model itself)");
  }
  return warnings;
}

}  // namespace

NiahPlan prepare(const niah::NiahSpec& spec, const Engine& engine, int threads) {
  auto run = niah::make_run(spec);
  engine.check(run.model);
  const auto estimate = engine.estimate(run);
  check_work(work_label(spec, run, engine), estimate, threads);
  auto warnings = plan_warnings(spec, run, engine);
  return NiahPlan(std::move(run), engine, estimate, std::move(warnings));
}

niah::EngineOutput run_engine(const NiahPlan& plan, const Parallel& parallel) {
  return plan.engine().run(plan.run(), parallel);
}

niah::NiahResult run_niah(const NiahPlan& plan, const Parallel& parallel) {
  return niah::niah_result(plan.run(), run_engine(plan, parallel));
}

Json niah_plan_document(const NiahPlan& plan, const niah::NiahResult& result) {
  const auto& engine = plan.engine();
  auto doc = niah::niah_document(plan.run(), engine.name(), engine.paths(plan.run().model), result);
  doc["warnings"] = plan.warnings();
  return doc;
}

}  // namespace phasesim::engines
