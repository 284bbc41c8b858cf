#pragma once
// diagnose: from a user's per-group needle-in-a-haystack table back to the idealized model
// (MODEL.md sections 2-5; docs/DIAGNOSE.md). It answers the four questions a practitioner
// brings: is there a period, and which (period.hpp); which phases are covered and how bad
// the worst is (phases.hpp); what beta and gates produce it, and under which assumption
// (fit.hpp); how many prompts would settle it (power.hpp).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "phasesim/core/document.hpp"
#include "phasesim/core/parallel.hpp"
#include "phasesim/diagnose/fit.hpp"
#include "phasesim/diagnose/period.hpp"
#include "phasesim/diagnose/phases.hpp"
#include "phasesim/diagnose/power.hpp"
#include "phasesim/diagnose/table.hpp"

namespace phasesim {

/// What the user knows about the model, under the CLI's option names.
struct DiagnoseSpec {
  std::optional<int> window;
  std::optional<int> stride;
  std::optional<std::int64_t> context;
  std::optional<int> heads;
  PeriodOptions period;
};

/// The paper's context (128K tokens), assumed when neither the options nor the table say.
inline constexpr std::int64_t kAssumedContext = 131072;

/// The architecture a diagnosis works with, each value with where it came from: "given"
/// (an option), "table" (the niah JSON), "assumed" or "unknown".
struct DiagnosedArchitecture {
  std::optional<int> window;
  std::string window_source;
  std::optional<int> stride;
  std::string stride_source;
  std::int64_t context = kAssumedContext;
  std::string context_source;
  int heads = 1;
  std::string heads_source;
};

/// Options first, then the table's JSON, then the assumptions. Throws InputError naming the
/// option on a bad value.
DiagnosedArchitecture resolve_architecture(const CountTable& table, const DiagnoseSpec& spec);

/// One fit of the idealized model and the assumption it rests on.
struct LabelledFit {
  std::string
      assumption;  ///< "one slot per phase", "spread over the phase's slots", "one-hot heads"
  ModelFit fit;
};

struct Diagnosis {
  DiagnosedArchitecture architecture;
  PeriodTest period;
  int phases = 1;            ///< P of the per-phase analysis: groups r, r + P, ... pool
  std::string phases_from;   ///< "stride", "period" or "flat"
  std::int64_t entries = 0;  ///< N of the fits: context / (stride, or P without one)
  PhaseProfile profile;
  std::vector<LabelledFit> fits;
  std::string fit_note;  ///< why there is no fit, when there is none
  PowerAnalysis power;
  std::vector<std::string> assumptions;  ///< every assumption the numbers rest on, in words
};

/// The whole diagnosis. Throws InputError when the spec does not fit the table.
Diagnosis diagnose(const CountTable& table, const DiagnoseSpec& spec, const Parallel& parallel);

/// The `diagnose` document: every parameter under its option name (and where each value of
/// the architecture came from), the table, then each answer.
Json diagnose_document(const std::string& table_path, const CountTable& table,
                       const DiagnoseSpec& spec, const Diagnosis& diagnosis);

}  // namespace phasesim
