#pragma once
// The per-phase needle-in-a-haystack experiment (MODEL.md sections 4 and 5): a model of H
// heads in one of two parameterizations, needles placed by group, heads combined, and the
// per-group accuracies every engine reports. See sim/ENGINES.md for what each engine does.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "phasesim/model/gate.hpp"
#include "phasesim/model/geometry.hpp"
#include "phasesim/niah/combine.hpp"
#include "phasesim/niah/needle.hpp"

namespace phasesim {

/// The retrieval model: geometry, one gate per head, and the parameterization, either
/// standardized (`beta`) or full-vector (`dim`, with `query_noise`).
struct NiahModel {
  Geometry geometry;
  std::vector<Gate> gates;  ///< one per head
  std::int64_t context = 131072;
  std::optional<double> beta = 4.5;  ///< the standardized channel's beta, or unset
  std::optional<int> dim;            ///< d of the full-vector model, or unset
  double query_noise = 0;            ///< sigma_q (full-vector only)
  double content_noise = 0;          ///< tau
  bool rms_norm = false;
  std::uint64_t seed = 1;

  int heads() const { return static_cast<int>(gates.size()); }
  bool full_vector() const { return dim.has_value(); }
  /// N_c = floor(L / S): the entries before the query.
  std::int64_t entries() const { return geometry.entries_before(context); }
  /// beta of the standardized channel; with --dim its large-d value sqrt(d / (1 + sigma_q^2)).
  double beta_effective() const;
};

/// Throws InputError (naming the CLI option) unless the model is well formed.
void validate_model(const NiahModel& model);

/// One experiment: the model, where the needles go, how heads combine, and optionally the
/// head to knock out.
struct NiahRun {
  NiahModel model;
  NeedlePlan needles;
  CombineRule combine;
  std::optional<int> knockout;
};

/// Throws InputError unless 0 <= head < heads.
void validate_knockout(int head, int heads);

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

struct NiahResult {
  std::vector<GroupAccuracy> groups;
  NiahSummary summary;
  std::vector<KnockoutGroup> knockout;  ///< empty unless a knockout was asked for
};

/// Summary of per-group accuracies (trials: total Monte Carlo trials, unset for analytic).
NiahSummary summarize(const std::vector<GroupAccuracy>& groups, std::optional<std::int64_t> trials);

}  // namespace phasesim
