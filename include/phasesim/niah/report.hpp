#pragma once
// What an engine hands back for a run, and the report every engine shares (MODEL.md
// section 5): per-group accuracies with standard errors and Wilson intervals, the summary,
// combination over heads and knockouts, and the run's JSON document.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "phasesim/core/document.hpp"
#include "phasesim/niah/argmax.hpp"
#include "phasesim/niah/run.hpp"
#include "phasesim/stats/counts.hpp"

namespace phasesim::niah {

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

/// What an engine computes for a run: exact engines P_h(phi) for every head h and phase phi;
/// Monte Carlo engines the outcome of every (trial, head) and, where they compute it, the
/// entry each head attends to with its logit, at index trial * heads + head.
struct EngineOutput {
  std::vector<std::vector<double>> phase_success;  ///< exact: [head][phase]
  std::optional<OutcomeTable> outcomes;            ///< Monte Carlo
  std::vector<Argmax> argmaxes;                    ///< Monte Carlo engines that have them
  /// Where some head reads beyond section 4 (MODEL.md section 10): stage 1 passed the needle.
  /// Exact: [head][phase]; Monte Carlo: every (trial, head).
  std::vector<std::vector<double>> phase_selected = {};
  std::optional<OutcomeTable> selected = {};
  /// Exact engines with a sliding window: [head][phase] for a needle inside the head's window
  /// (empty: the same as far from it).
  std::vector<std::vector<double>> window_success = {};
  std::vector<std::vector<double>> window_selected = {};
};

/// Accuracy of one group. Monte Carlo: successes of trials, its standard error and Wilson
/// 95% interval. Analytic: the exact probability, no trial counts, zero-width interval.
struct GroupAccuracy {
  int group = 0;
  double accuracy = 0;
  std::optional<std::int64_t> successes;
  std::optional<std::int64_t> trials;
  double std_error = 0;
  double ci_low = 0;
  double ci_high = 0;
  /// The read path's stage 1 (MODEL.md section 10), where some head reads beyond section 4:
  /// the share of needles some place of which passed selection (combined over heads as the
  /// outcomes are); accuracy - selected is what stage 2 lost of them.
  std::optional<double> selected = {};
};

/// Summary over groups. Standard errors treat groups as independent; those of best, worst
/// and gap are conditional on which groups came out best and worst (the maximum of noisy
/// estimates is biased upwards, so read them as a scale, not an interval).
struct NiahSummary {
  double mean = 0;
  double mean_std_error = 0;
  double best = 0;
  int best_group = 0;
  double worst = 0;
  int worst_group = 0;
  double gap = 0;  ///< best - worst
  double gap_std_error = 0;
  std::optional<double> worst_over_mean;  ///< unset when the mean is 0
  std::optional<std::int64_t> trials;     ///< Monte Carlo trials in all; unset for analytic
};

/// The change of one group when a head is knocked out (same trials: common random numbers).
struct KnockoutGroup {
  int group = 0;
  double accuracy = 0;  ///< without the head
  double change = 0;    ///< accuracy without minus accuracy with all heads
  double change_std_error = 0;
};

/// A knockout over all groups: the mean change and its standard error (groups independent).
struct Knockout {
  int head = 0;
  std::vector<KnockoutGroup> groups;
  double mean_change = 0;
  double mean_change_std_error = 0;
};

struct NiahResult {
  std::vector<GroupAccuracy> groups;
  NiahSummary summary;
  std::optional<Knockout> knockout;  ///< when the run asks for one
};

/// Summary of per-group accuracies (trials: total Monte Carlo trials, unset for analytic).
NiahSummary summarize(const std::vector<GroupAccuracy>& groups, std::optional<std::int64_t> trials);

/// The report of a Monte Carlo outcome table: heads combined trial by trial, knockouts on
/// the same trials; `selected`, where given, stage 1's outcomes (GroupAccuracy::selected).
NiahResult monte_carlo_result(const NiahRun& run, const OutcomeTable& table,
                              const std::optional<OutcomeTable>& selected = std::nullopt);

/// The exact report from P_h(phi): heads are independent given the needle position, so they
/// combine phase by phase, and each group averages over the exact phase distribution of its
/// needle positions.
NiahResult exact_result(const NiahRun& run, const std::vector<std::vector<double>>& phase_success);

/// What the exact report of `run` costs: the heads it combines, summed over the needle positions
/// it combines them at (a class of positions far from every window, a position near one), over
/// its passes (the accuracy; stage 1's, with a read path; the knockout's). An exact engine's
/// estimate.
double exact_report_work(const NiahRun& run);

/// The report of an engine's output, whichever kind it is.
NiahResult niah_result(const NiahRun& run, const EngineOutput& output);

/// A Monte Carlo report's groups as counts, for the tests of stats/ (its period test). Expects
/// a Monte Carlo report: an exact one has no counts.
std::vector<stats::GroupCount> group_counts(const NiahResult& result);

/// The results in the `niah` document's layout: "groups", "summary" and, with a knockout,
/// "knockout_result" (for documents of other commands that report a NIAH table).
Json niah_result_json(const NiahResult& result);
/// Per-group results as the `niah` document lists them under "groups".
Json groups_json(const std::vector<GroupAccuracy>& groups);
/// The summary as the `niah` document gives it under "summary".
Json summary_json(const NiahSummary& summary);

/// The `niah` document: every parameter under its option name, the engine and the path each
/// head took (in architecture runs also the architecture and its KV cost), then the
/// per-group results, the summary and the knockout.
Json niah_document(const NiahRun& run, const std::string& engine,
                   const std::vector<std::string>& engine_paths, const NiahResult& result);

}  // namespace phasesim::niah
