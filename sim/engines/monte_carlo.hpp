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
  /// Stage 1 of the read path (MODEL.md section 10) passed some place of the needle: one of
  /// its entries selected, or a token of it in the sliding window.
  bool selected = true;
};

/// The values of every (trial, head), index trial * heads + head, from those of the scanned
/// heads (index trial * scanned + k for the k-th of model.scanned_heads()): a query head that
/// attends alike repeats its cache's first one (keyed by that cache's streams, it would draw
/// the same). How the CPU engines and the gpu engine scan a cache once, not once a query head.
/// Per head, the column its values take in a row of the scanned heads' (its alike head's).
inline std::vector<std::size_t> alike_columns(const niah::NiahModel& model) {
  const auto heads = static_cast<std::size_t>(model.heads());
  const auto list = model.scanned_heads();
  std::vector<std::size_t> column(heads);  // a scanned head's column in a row of `scanned`
  for (std::size_t k = 0; k < list.size(); ++k) column[static_cast<std::size_t>(list[k])] = k;
  for (std::size_t h = 0; h < heads; ++h) {
    column[h] = column[static_cast<std::size_t>(model.alike_head(static_cast<int>(h)))];
  }
  return column;
}

template <typename T>
std::vector<T> spread_alike(const niah::NiahModel& model, const std::vector<T>& scanned) {
  const auto column = alike_columns(model);
  const auto heads = column.size();
  const std::size_t width = model.scanned_heads().size();
  const std::size_t trials = scanned.size() / width;
  std::vector<T> all(trials * heads);
  for (std::size_t i = 0; i < trials; ++i) {
    for (std::size_t h = 0; h < heads; ++h) all[i * heads + h] = scanned[i * width + column[h]];
  }
  return all;
}

/// Runs `kernel` over every (trial, scanned head) of the run, then spreads the outcomes over
/// the query heads that attend alike. A kernel provides `workspace()` (scratch for one
/// thread), `trial(trial, needle, head, workspace)` returning a HeadOutcome, and `kArgmaxes`,
/// true when its outcomes carry argmaxes worth keeping.
template <typename Kernel>
niah::EngineOutput run_trials(const Kernel& kernel, const niah::NiahRun& run,
                              const Parallel& parallel) {
  const int heads = run.model.heads();
  const std::int64_t trials = run.needles.trials();
  const auto scanned = run.model.scanned_heads();
  // One row of outcomes per trial: rows are what the ranks of an MPI job hand each other.
  const auto scanned_rows = parallel_rows<HeadOutcome>(
      parallel, trials, std::ssize(scanned), [&] { return kernel.workspace(); },
      [&](std::int64_t i, auto& workspace, std::span<HeadOutcome> row) {
        const auto trial = static_cast<std::uint32_t>(i);
        const std::int64_t needle = run.needles.position(run.model.seed, trial);
        for (std::size_t k = 0; k < scanned.size(); ++k) {
          row[k] = kernel.trial(trial, needle, scanned[k], workspace);
        }
      });
  // Each head's outcome is its alike head's, read in place (spread_alike's rule): a stack's
  // query heads are thousands, and copying their outcomes cost more than the scans.
  const auto column = alike_columns(run.model);
  niah::OutcomeTable table(trials, heads);
  // Stage 1's outcomes where some head reads beyond section 4 (the read path's report).
  std::optional<niah::OutcomeTable> selected;
  if (!run.model.plain()) selected.emplace(trials, heads);
  std::vector<niah::Argmax> argmaxes(Kernel::kArgmaxes ? static_cast<std::size_t>(trials * heads)
                                                       : 0);
  for (std::int64_t trial = 0; trial < trials; ++trial) {
    const auto* row = scanned_rows.data() + trial * std::ssize(scanned);
    for (int head = 0; head < heads; ++head) {
      const auto& outcome = row[column[static_cast<std::size_t>(head)]];
      table.set(trial, head, outcome.retrieved);
      if (selected) selected->set(trial, head, outcome.selected);
      if constexpr (Kernel::kArgmaxes) {
        argmaxes[static_cast<std::size_t>(trial * heads + head)] = outcome.argmax;
      }
    }
  }
  return {{}, std::move(table), std::move(argmaxes), {}, std::move(selected)};
}

/// The outcomes of argmaxes (index trial * heads + head): a head retrieves when the entry
/// it attends to holds the trial's needle.
niah::OutcomeTable outcomes_of(const niah::NiahRun& run, const std::vector<niah::Argmax>& argmaxes);

/// Throws InputError unless the model is full-vector: the message names `engine`.
void require_full_vector(const niah::NiahModel& model, const std::string& engine);

/// Throws InputError, naming the engines that can, when some head reads raw blocks
/// (niah::ReadPath::raw_blocks): the full-vector engines materialize pooled entries only.
void refuse_raw_blocks(const niah::NiahModel& model, const std::string& engine);

}  // namespace phasesim::engines
