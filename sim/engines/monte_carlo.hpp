#pragma once
// How a CPU Monte Carlo engine runs: a per-trial kernel with per-thread scratch, visited by
// the parallel policy over trials. The loop is a template, so there is no virtual call per
// trial; every draw is keyed by (seed, trial, head, stream), so the outcomes do not depend on
// the thread count, nor on the ranks of an MPI job.
#include <cstdint>
#include <span>
#include <vector>

#include "phasesim/core/parallel.hpp"
#include "phasesim/engines/full_vector.hpp"
#include "phasesim/niah/report.hpp"

namespace phasesim::engines {

/// One head's outcome in one trial: whether it retrieves the needle and, where the kernel
/// computes one, the entry it attends to with its logit (entry -1 otherwise).
struct HeadOutcome {
  bool retrieved = false;
  niah::Argmax argmax;
};

/// Runs `kernel` over every (trial, head) of the run. A kernel provides `workspace()` (scratch
/// for one thread), `trial(trial, needle, head, workspace)` returning a HeadOutcome, and
/// `kArgmaxes`, true when its outcomes carry argmaxes worth keeping.
template <typename Kernel>
niah::EngineOutput run_trials(const Kernel& kernel, const niah::NiahRun& run,
                              const Parallel& parallel) {
  const int heads = run.model.heads();
  const std::int64_t trials = run.needles.trials();
  // One row of outcomes per trial: rows are what the ranks of an MPI job hand each other.
  const auto rows = parallel_rows<HeadOutcome>(
      parallel, trials, heads, [&] { return kernel.workspace(); },
      [&](std::int64_t i, auto& workspace, std::span<HeadOutcome> row) {
        const auto trial = static_cast<std::uint32_t>(i);
        const std::int64_t needle = run.needles.position(run.model.seed, trial);
        // Query heads that attend alike repeat their cache's first one (keyed by its
        // streams, they would draw the same): one scan a cache, not one a query head.
        for (int h = 0; h < heads; ++h) {
          const int alike = run.model.alike_head(h);
          row[static_cast<std::size_t>(h)] = alike == h ? kernel.trial(trial, needle, h, workspace)
                                                        : row[static_cast<std::size_t>(alike)];
        }
      });
  niah::OutcomeTable table(trials, heads);
  std::vector<niah::Argmax> argmaxes(Kernel::kArgmaxes ? rows.size() : 0);
  for (std::size_t k = 0; k < rows.size(); ++k) {
    table.set(static_cast<std::int64_t>(k) / heads,
              static_cast<int>(k % static_cast<std::size_t>(heads)), rows[k].retrieved);
    if constexpr (Kernel::kArgmaxes) argmaxes[k] = rows[k].argmax;
  }
  return {{}, std::move(table), std::move(argmaxes)};
}

/// The outcomes of argmaxes (index trial * heads + head): a head retrieves when the entry
/// it attends to holds the trial's needle.
niah::OutcomeTable outcomes_of(const niah::NiahRun& run, const std::vector<niah::Argmax>& argmaxes);

/// Throws InputError unless the model is full-vector: the message names `engine`.
void require_full_vector(const niah::NiahModel& model, const std::string& engine);

}  // namespace phasesim::engines
