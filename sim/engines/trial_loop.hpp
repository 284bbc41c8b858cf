#pragma once
// The one OpenMP loop over trials that every CPU Monte Carlo engine runs in. An engine
// provides `workspace()` (per-thread scratch); the loop is a template, so there is no
// virtual call per trial.
#include <omp.h>

#include <cstdint>

#include "phasesim/engines/engine.hpp"

namespace phasesim::engines {

/// Calls visit(trial, needle, workspace) for every trial on `threads` OpenMP threads (0: the
/// OpenMP default), each thread with its own engine.workspace().
template <typename Engine, typename Visit>
void for_each_trial(const Engine& engine, const NiahModel& model, const NeedlePlan& needles,
                    int threads, Visit visit) {
  const std::int64_t trials = needles.trials();
  const int team = threads > 0 ? threads : omp_get_max_threads();
#pragma omp parallel num_threads(team)
  {
    auto workspace = engine.workspace();
#pragma omp for schedule(dynamic, 4)
    for (std::int64_t i = 0; i < trials; ++i) {
      const auto trial = static_cast<std::uint32_t>(i);
      visit(trial, needles.position(model.seed, trial), workspace);
    }
  }
}

/// The outcome table of an engine with `retrieves(trial, needle, head, workspace)`.
template <typename Engine>
OutcomeTable run_trials(const Engine& engine, const NiahModel& model, const NeedlePlan& needles,
                        int threads) {
  OutcomeTable table(needles.trials(), model.heads());
  for_each_trial(engine, model, needles, threads,
                 [&](std::uint32_t trial, std::int64_t needle, auto& workspace) {
                   for (int h = 0; h < model.heads(); ++h) {
                     table.set(trial, h, engine.retrieves(trial, needle, h, workspace));
                   }
                 });
  return table;
}

}  // namespace phasesim::engines
