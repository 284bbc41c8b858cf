#pragma once
// diagnose: from a user's per-group needle-in-a-haystack table back to the idealized model
// (MODEL.md sections 2-5; docs/DIAGNOSE.md). It answers the four questions a practitioner
// brings: is there a period, and which (period.hpp); which phases are covered and how bad
// the worst is (phases.hpp); what beta and gates produce it, and under which assumption
// (fit.hpp); how many prompts would settle it (power.hpp). The period test is the shared one
// of phasesim/stats/period.hpp.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "phasesim/core/budget.hpp"
#include "phasesim/core/document.hpp"
#include "phasesim/core/parallel.hpp"
#include "phasesim/diagnose/fit.hpp"
#include "phasesim/diagnose/phases.hpp"
#include "phasesim/diagnose/power.hpp"
#include "phasesim/diagnose/table.hpp"
#include "phasesim/stats/period.hpp"

namespace phasesim::diagnose {

/// What the user knows about the model, under the CLI's option names.
struct DiagnoseSpec {
  std::optional<int> window;
  std::optional<int> stride;
  std::optional<std::int64_t> context;
  std::optional<int> heads;
  // The read path (issue 37's niah options): the fits' success under its two stages.
  std::optional<std::int64_t> top_k;
  std::optional<std::int64_t> sliding_window;
  std::optional<int> needle_tokens;  ///< 1 or 2 (the analytic engine's limit)
  stats::PeriodOptions period;
};

/// The paper's context (128K tokens), assumed when neither the options nor the table say.
inline constexpr std::int64_t kAssumedContext = 131072;

/// Where a value of the architecture came from.
enum class Source {
  given,    ///< an option
  table,    ///< the niah JSON
  assumed,  ///< a default the assumptions name
  unknown,
};

/// "given", "table", "assumed" or "unknown".
const char* source_name(Source source);

/// The architecture a diagnosis works with, each value with where it came from.
struct DiagnosedArchitecture {
  std::optional<int> window;
  Source window_source = Source::unknown;
  std::optional<int> stride;
  Source stride_source = Source::unknown;
  std::int64_t context = kAssumedContext;
  Source context_source = Source::unknown;
  int heads = 1;
  Source heads_source = Source::unknown;
  std::optional<std::int64_t> top_k;  ///< the read path, as given (FitInput's)
  std::int64_t sliding_window = 0;
  int needle_tokens = 1;
};

/// Options first, then the table's JSON, then the assumptions. Throws InputError naming the
/// option on a bad value.
DiagnosedArchitecture resolve_architecture(const CountTable& table, const DiagnoseSpec& spec);

/// What a fit assumes about where a phase's weight sits.
enum class Assumption {
  one_slot_per_phase,  ///< one head, its weight on one slot of each phase
  spread_over_slots,   ///< one head, its weight spread evenly over a phase's slots
  one_hot_heads,       ///< every head one-hot (T2 lock-in)
  two_token_needles,   ///< one head, needles of 2 tokens, one weight per phase
  two_token_heads,     ///< one-hot heads, needles of 2 tokens
};

/// "one slot per phase", "spread over the phase's slots", "one-hot heads", "2-token needles,
/// one head" or "2-token needles, one-hot heads".
const char* assumption_name(Assumption assumption);

/// Below this chi-squared p-value a fit's deviance against the table says that the model
/// cannot have made the table (a table the model made is flagged once in 1000).
inline constexpr double kMisfitP = 0.001;

/// A fit against the table group by group (a group's accuracy is its phase's fitted one):
/// the fit's deviance against the phases plus the groups' spread within each phase, on
/// (groups - phases) + the fit's own df; its chi-squared p-value, unset on 0 df.
struct TableFit {
  double deviance = 0;
  int df = 0;
  std::optional<double> p;
  bool misfit = false;  ///< p < kMisfitP
};

/// One fit of the idealized model and the assumption it rests on.
struct LabelledFit {
  Assumption assumption = Assumption::one_slot_per_phase;
  ModelFit fit;
  TableFit table;
};

/// What set the number of phases of the per-phase analysis.
enum class PhasesFrom {
  stride,  ///< the stride (with the group count)
  period,  ///< the detected period
  flat,    ///< neither: one phase
};

/// "stride", "period" or "flat".
const char* phases_from_name(PhasesFrom from);

struct Diagnosis {
  DiagnosedArchitecture architecture;
  stats::PeriodTest period;
  int phases = 1;  ///< P of the per-phase analysis: groups r, r + P, ... pool
  PhasesFrom phases_from = PhasesFrom::flat;
  std::int64_t entries = 0;  ///< N of the fits: context / (stride, or P without one)
  /// The share of the needles the fits read in the sliding window: those niah's protocol
  /// places there (window / context without the geometry); 0 without a window.
  double window_share = 0;
  PhaseProfile profile;
  std::vector<LabelledFit> fits;
  std::string fit_note;  ///< why there is no fit, when there is none
  PowerAnalysis power;
  std::vector<std::string> assumptions;  ///< every assumption the numbers rest on, in words
  /// One line when a fit does not fit the table (TableFit::misfit); the CLI prints it.
  std::vector<std::string> warnings;
};

/// What the fits cost: nothing worth counting with section 4's SuccessCurve; under the read
/// path (--top-k, --sliding-window) about 1.5 m^2 s a one-head fit (m = ceil(W / S) entries
/// holding a needle; two fits when m > 1), measured on one core (docs/DIAGNOSE.md). With
/// --needle-tokens 2, the tables of the 2-token fit, refused beyond 4 hours.
WorkEstimate fit_estimate(const CountTable& table, const DiagnoseSpec& spec);

/// The whole diagnosis. Throws InputError when the spec does not fit the table.
Diagnosis diagnose(const CountTable& table, const DiagnoseSpec& spec, const Parallel& parallel);

/// The `diagnose` document: every parameter under its option name (and where each value of
/// the architecture came from), the table, then each answer.
Json diagnose_document(const std::string& table_path, const CountTable& table,
                       const DiagnoseSpec& spec, const Diagnosis& diagnosis);

}  // namespace phasesim::diagnose
