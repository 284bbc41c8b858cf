#pragma once
// The one OpenMP loop over trials that every CPU Monte Carlo engine runs in. An engine
// provides `workspace()` (per-thread scratch) and `retrieves(trial, needle, head, ws)`;
// the loop is a template, so there is no virtual call per trial.
#include <omp.h>

#include <cstdint>

#include "phasesim/engine.hpp"

namespace phasesim::engines {

template <typename Engine>
OutcomeTable run_trials(const Engine& engine, const NiahModel& model, const NeedlePlan& needles,
                        int threads) {
  OutcomeTable table(needles.trials(), model.heads());
  const std::int64_t trials = needles.trials();
  const int team = threads > 0 ? threads : omp_get_max_threads();
#pragma omp parallel num_threads(team)
  {
    auto workspace = engine.workspace();
#pragma omp for schedule(dynamic, 4)
    for (std::int64_t i = 0; i < trials; ++i) {
      const auto trial = static_cast<std::uint32_t>(i);
      const std::int64_t needle = needles.position(model.seed, trial);
      for (int h = 0; h < model.heads(); ++h) {
        table.set(i, h, engine.retrieves(trial, needle, h, workspace));
      }
    }
  }
  return table;
}

}  // namespace phasesim::engines
