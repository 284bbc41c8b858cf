#pragma once
// The engines behind `phasesim niah`, interchangeable and chosen at run time:
//   analytic  exact per-phase probabilities by quadrature, combined exactly over heads
//   fast      exact Monte Carlo in O(d + W) per trial where the model allows (sim/ENGINES.md)
//   full      Monte Carlo of the full-vector model: keys, pooled entries, argmax
//   gpu       the same full-vector scan as a CUDA kernel, draw for draw (when built with CUDA)
// Monte Carlo engines fill a trials x heads table of retrieval outcomes; one shared layer
// turns it (or the analytic probabilities) into per-group accuracies, combination over
// heads and knockouts. The full and gpu engines fill it from the argmax of every
// (trial, head), which gpu-check compares between the two.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "phasesim/engines/full_vector.hpp"
#include "phasesim/niah/niah.hpp"

namespace phasesim {

enum class EngineKind { analytic, fast, full, gpu };

/// Parses analytic | fast | full | gpu; throws InputError naming --engine otherwise.
EngineKind parse_engine(std::string_view name);
std::string engine_name(EngineKind kind);

/// Throws InputError (one line, pointing to an engine that can) unless `kind` can run
/// `model` exactly as defined here: full and gpu need --dim; gpu needs a CUDA build and
/// device; analytic has no content noise; fast has no exact reduction for --rms-norm when
/// entries share weighted tokens.
void check_engine(EngineKind kind, const NiahModel& model);

/// Empty when the gpu engine can run here; otherwise why not, as one clause: "this build has
/// no CUDA support (...)" or "no CUDA device was found (...)".
std::string gpu_unavailable_reason();

/// The device the gpu engine runs on, e.g. "NVIDIA H200 (sm_90, 132 SMs, 139.8 GiB)". Call
/// only when gpu_unavailable_reason() is empty.
std::string gpu_device_name();

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

/// Runs a Monte Carlo engine (fast, full or gpu) on `threads` OpenMP threads (0: the OpenMP
/// default). Every draw is keyed by (seed, trial, head, stream), so the table does not
/// depend on the thread count.
OutcomeTable simulate(EngineKind kind, const NiahModel& model, const NeedlePlan& needles,
                      int threads);

/// The entry every head attends to, with its logit, in every trial of the full-vector model,
/// at index trial * heads + head: the CPU `full` engine on `threads` OpenMP threads (0: the
/// OpenMP default) or the `gpu` engine's kernel (threads unused). Both compute the same
/// numbers from the same random streams.
std::vector<Argmax> full_vector_argmaxes(EngineKind kind, const NiahModel& model,
                                         const NeedlePlan& needles, int threads);

/// The outcomes of argmaxes: a head retrieves when its entry holds the trial's needle.
OutcomeTable full_vector_outcomes(const NiahModel& model, const NeedlePlan& needles,
                                  const std::vector<Argmax>& argmaxes);

/// Keys one trial of the full-vector model generates over all heads (scanned_keys), the
/// work behind a key-vectors-per-second figure.
std::int64_t full_vector_keys_per_trial(const NiahModel& model);

/// P_h(phi) for every head h and phase phi of the standardized channel (beta_effective).
std::vector<std::vector<double>> analytic_phase_success(const NiahModel& model);

/// Per-group accuracies, combination over heads and knockout of Monte Carlo outcomes: what
/// run_niah reports for a Monte Carlo engine.
NiahResult monte_carlo_result(const NiahRun& run, const OutcomeTable& table);

/// The experiment end to end: validates, runs the engine and reports per group.
NiahResult run_niah(const NiahRun& run, EngineKind kind, int threads);

}  // namespace phasesim
