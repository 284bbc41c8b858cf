#pragma once
// `gpu-check` as a library: the gpu engine against the CPU full engine on one run, draw for
// draw. Both compute the argmax entry and logit of every (trial, head) from the same random
// streams, so they must pick the same entries with logits equal to rounding.
#include <cstdint>
#include <string>

#include "phasesim/core/document.hpp"
#include "phasesim/engines/engine.hpp"

namespace phasesim {

/// Logits are O(1) to O(sqrt(d)); CUDA's and glibc's sin, cos, log and exp differ by an ulp
/// at most, which moves a logit by about 1e-15. A larger difference is a bug, not rounding.
inline constexpr double kParityLogitTolerance = 1e-9;

/// The two engines' argmaxes, (trial, head) by (trial, head).
struct ArgmaxComparison {
  std::int64_t pairs = 0;
  std::int64_t outcomes_differing = 0;
  std::int64_t entries_differing = 0;
  std::int64_t logits_bitwise_equal = 0;  ///< among pairs with the same entry
  double max_logit_difference = 0;        ///< likewise
  bool candidate_repeatable = true;       ///< two candidate runs gave the same bits
  bool parity() const {
    return entries_differing == 0 && max_logit_difference <= kParityLogitTolerance &&
           candidate_repeatable;
  }
};

/// Wall time of one engine run and the throughput it implies.
struct EngineTiming {
  double seconds = 0;
  double trials_per_second = 0;
  double key_vectors_per_second = 0;  ///< keys_per_trial x trials per second
};

struct ParityCheck {
  NiahResult reference, candidate;  ///< per-group reports, heads combined by the run's rule
  ArgmaxComparison comparison;
  EngineTiming reference_time, candidate_time;
  std::int64_t keys_per_trial = 0;  ///< key vectors one trial generates over all heads
};

/// Runs `reference` once and `candidate` twice on `run` (the first candidate run pays for
/// start-up, e.g. the CUDA context, and shows whether the engine repeats itself; the second
/// is timed) and compares their argmaxes. Both engines must produce argmaxes; the caller has
/// checked that both can run the model.
ParityCheck check_parity(const NiahRun& run, const Engine& reference, const Engine& candidate,
                         const Parallel& parallel);

/// Key vectors one trial of the full-vector model generates over all heads (the query's
/// aside): the work behind a key-vectors-per-second figure.
std::int64_t full_vector_keys_per_trial(const NiahModel& model);

/// The `gpu-check` document: the run's parameters (`gate` as the user gave it), the device,
/// per-group accuracies of both engines, the comparison, the timings and the verdict.
Json parity_document(const NiahRun& run, const std::string& gate, const Parallel& parallel,
                     const std::string& device, const ParityCheck& check);

}  // namespace phasesim
