#pragma once
// `gpu-check` and `precision-check` as a library: one engine against another on one run,
// draw for draw (the gpu engine against the CPU full engine; the float full engine against
// full-double). Both compute the argmax entry and logit of every (trial, head) from the same
// random streams, so they must pick the same entries with logits equal to rounding, except
// where the top two logits of a (trial, head) nearly tie: there rounding may pick either.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "phasesim/core/document.hpp"
#include "phasesim/engines/plan.hpp"

namespace phasesim::engines {

/// Logits are O(1) to O(sqrt(d)) and computed from float keys: float rounding moves one by
/// about 1e-6 (the gpu and full engines compute the same float operations in the same order
/// and agree bit for bit but for the content-noise gates' exp and log; full and full-double
/// differ by float rounding). A larger difference is a bug, not rounding.
inline constexpr double kParityLogitTolerance = 1e-4;
/// Two engines may attend to different entries only where both saw the top two logits this
/// close: rounding of that size can reorder them.
inline constexpr double kNearTie = 1e-4;

/// A (trial, head) where the engines attend to different entries.
struct DifferingArgmax {
  std::int64_t trial = 0;
  int head = 0;
  niah::Argmax reference, candidate;
  bool outcome_differs = false;  ///< one retrieves the needle and the other not
  /// Both engines' top two logits within kNearTie: a difference rounding explains.
  bool near_tie() const { return reference.gap() <= kNearTie && candidate.gap() <= kNearTie; }
};

/// The two engines' argmaxes, (trial, head) by (trial, head).
struct ArgmaxComparison {
  std::int64_t pairs = 0;
  std::int64_t outcomes_differing = 0;
  std::int64_t entries_differing = 0;
  std::int64_t logits_bitwise_equal = 0;   ///< among pairs with the same entry
  double max_logit_difference = 0;         ///< likewise
  double smallest_gap = HUGE_VAL;          ///< the reference's closest top two, over all pairs
  bool candidate_repeatable = true;        ///< two candidate runs gave the same bits
  std::vector<DifferingArgmax> differing;  ///< every (trial, head) with different entries

  /// Differing entries where the top two logits did not nearly tie.
  std::int64_t not_near_ties() const;
  bool parity() const {
    return not_near_ties() == 0 && max_logit_difference <= kParityLogitTolerance &&
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
  niah::NiahResult reference, candidate;  ///< per-group reports, heads combined by the run's rule
  ArgmaxComparison comparison;
  EngineTiming reference_time, candidate_time;
  std::int64_t keys_per_trial = 0;  ///< key vectors one trial generates over all heads
};

/// Runs the reference plan once and the candidate plan twice (the first candidate run pays
/// for start-up, e.g. the CUDA context, and shows whether the engine repeats itself; the
/// second is timed) and compares their argmaxes. Both plans are prepared from one spec, and
/// both engines produce argmaxes.
ParityCheck check_parity(const NiahPlan& reference, const NiahPlan& candidate,
                         const Parallel& parallel);

/// Key vectors one trial of the full-vector model generates over all heads (the query's
/// aside): the work behind a key-vectors-per-second figure.
std::int64_t full_vector_keys_per_trial(const niah::NiahModel& model);

/// How a check names its two engines in its document and tables, and the machine it ran on.
struct ParityLabels {
  std::string command;    ///< "gpu-check"
  std::string reference;  ///< "cpu": JSON keys cpu_accuracy, cpu (timing)
  std::string candidate;  ///< "gpu"
  std::string machine;    ///< "device": key of `where`
  std::string where;      ///< the device's name, or the CPU's SIMD target
};

/// The check's document: the run's parameters (`gate` as the user gave it), the machine,
/// per-group accuracies of both engines, the comparison with every differing (trial, head)
/// and its top-two gaps, the timings and the verdict.
Json parity_document(const niah::NiahRun& run, const std::string& gate, const Parallel& parallel,
                     const ParityLabels& labels, const ParityCheck& check);

}  // namespace phasesim::engines
