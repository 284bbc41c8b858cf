#pragma once
// The engines behind `phasesim niah`, interchangeable and chosen at run time:
//   analytic  exact per-phase probabilities by quadrature, combined exactly over heads
//   fast      exact Monte Carlo in O(d + W) per trial where the model allows (sim/ENGINES.md)
//   full      Monte Carlo of the full-vector model: keys, pooled entries, argmax
// Monte Carlo engines fill a trials x heads table of retrieval outcomes; one shared layer
// turns it (or the analytic probabilities) into per-group accuracies, combination over
// heads and knockouts. A batch engine (e.g. on a GPU) slots in by filling the same table.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "phasesim/niah.hpp"

namespace phasesim {

enum class EngineKind { analytic, fast, full };

/// Parses analytic | fast | full; throws InputError naming --engine otherwise.
EngineKind parse_engine(std::string_view name);
std::string engine_name(EngineKind kind);

/// Throws InputError (one line, pointing to an engine that can) unless `kind` can run
/// `model` exactly as defined: full needs --dim; analytic has no content noise; fast has no
/// exact reduction for --rms-norm when entries share weighted tokens.
void check_engine(EngineKind kind, const NiahModel& model);

/// How the engine computes each head, e.g. "quadrature", "conditional", "streaming-tokens".
std::vector<std::string> engine_paths(EngineKind kind, const NiahModel& model);

/// Retrieval outcome of every (trial, head): 1 when the head retrieves the needle.
class OutcomeTable {
 public:
  OutcomeTable(std::int64_t trials, int heads);
  std::int64_t trials() const { return trials_; }
  int heads() const { return heads_; }
  void set(std::int64_t trial, int head, bool retrieved) {
    outcomes_[static_cast<std::size_t>(trial * heads_ + head)] = retrieved ? 1 : 0;
  }
  /// The heads' outcomes of one trial.
  std::span<const std::uint8_t> row(std::int64_t trial) const {
    return {outcomes_.data() + trial * heads_, static_cast<std::size_t>(heads_)};
  }

 private:
  std::int64_t trials_;
  int heads_;
  std::vector<std::uint8_t> outcomes_;
};

/// Runs a Monte Carlo engine (fast or full) on `threads` OpenMP threads (0: the OpenMP
/// default). Every draw is keyed by (seed, trial, head, stream), so the table does not
/// depend on the thread count.
OutcomeTable simulate(EngineKind kind, const NiahModel& model, const NeedlePlan& needles,
                      int threads);

/// P_h(phi) for every head h and phase phi of the standardized channel (beta_effective).
std::vector<std::vector<double>> analytic_phase_success(const NiahModel& model);

/// The experiment end to end: validates, runs the engine and reports per group.
NiahResult run_niah(const NiahRun& run, EngineKind kind, int threads);

}  // namespace phasesim
