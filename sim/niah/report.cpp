// The engine-agnostic report of `niah`: per-group accuracies, combination over heads and
// knockouts, from Monte Carlo outcomes or exact per-phase probabilities.
#include "phasesim/niah/report.hpp"

#include <algorithm>
#include <cmath>

#include "phasesim/core/contract.hpp"
#include "phasesim/model/coverage.hpp"
#include "phasesim/stats/estimate.hpp"

namespace phasesim::niah {
namespace {

// Mean change over groups and its standard error (groups are independent).
Knockout knockout_of(int head, std::vector<KnockoutGroup> groups) {
  stats::GroupMean change;
  for (const auto& g : groups) change.add(g.change, g.change_std_error);
  return {head, std::move(groups), change.mean(), change.std_error()};
}

void put_parameters(Json& doc, const NiahRun& run, const std::string& engine,
                    const std::vector<std::string>& engine_paths) {
  const auto& m = run.model;
  // Architecture runs whose heads differ give these per head, under "architecture".
  const bool one = m.one_geometry();
  doc["window"] = one ? Json(m.geometry(0).window) : Json();
  doc["stride"] = one ? Json(m.geometry(0).stride) : Json();
  // An offset, where the heads share one that is not 0 (an architecture gives each head's).
  if (one && m.geometry(0).offset != 0) doc["offset"] = m.geometry(0).offset;
  doc["heads"] = m.heads();
  doc["gates"] = Json::array();
  doc["gate_weights"] = Json::array();
  for (const auto& gate : m.gates) {
    doc["gates"].push_back(gate.spec);
    doc["gate_weights"].push_back(gate.weights);
  }
  // Split projections: each head's rho, where some head has one below 1.
  if (std::any_of(m.split_rhos.begin(), m.split_rhos.end(), [](double r) { return r != 1; })) {
    doc["split_rhos"] = m.split_rhos;
  }
  // Per-channel gates: each head's channel groups (an empty list for a head with one gate).
  if (std::any_of(m.gates.begin(), m.gates.end(), [](const Gate& g) { return g.per_channel(); })) {
    for (const auto& gate : m.gates) doc["gate_channels"].push_back(channel_groups_json(gate));
  }
  doc["beta"] = optional_json(m.beta);
  doc["dim"] = optional_json(m.dim);
  doc["query_noise"] = m.full_vector() ? Json(m.query_noise) : Json();
  doc["beta_effective"] = m.beta_effective();
  doc["context"] = m.context;
  doc["entries"] = one ? Json(m.entries(0)) : Json();
  doc["group_count"] = run.needles.groups;  // --groups; "groups" holds the per-group results
  doc["prompts"] = run.needles.prompts;
  doc["combine"] = run.combine.text;
  doc["knockout"] = optional_json(run.knockout);
  doc["content_noise"] = m.content_noise;
  doc["rms_norm"] = m.rms_norm;
  doc["engine"] = engine;
  doc["seed"] = m.seed;
  doc["needle_positions_per_group"] = run.needles.block_count;
  doc["needle_range"] = {run.needles.first_position(0),
                         run.needles.last_position(run.needles.groups - 1)};
  doc["engine_paths"] = engine_paths;
  // New in architecture runs only, so that the shorthand's documents stay as they were.
  if (run.architecture) {
    auto arch = architecture_json(*run.architecture);
    for (int h = 0; h < m.heads(); ++h)
      arch["heads"][static_cast<std::size_t>(h)]["entries"] = m.entries(h);
    doc["architecture"] = arch;
    doc["kv_cost"] = kv_cost_json(kv_cost(m.geometries, m.key_heads));
  }
}

Json knockout_json(const Knockout& k) {
  Json list = Json::array();
  for (const auto& g : k.groups) {
    list.push_back({{"group", g.group},
                    {"accuracy", g.accuracy},
                    {"change", g.change},
                    {"change_std_error", g.change_std_error}});
  }
  return {{"head", k.head},
          {"groups", list},
          {"mean_change", k.mean_change},
          {"mean_change_std_error", k.mean_change_std_error}};
}

}  // namespace

Json groups_json(const std::vector<GroupAccuracy>& groups) {
  Json list = Json::array();
  for (const auto& g : groups) {
    list.push_back({{"group", g.group},
                    {"accuracy", g.accuracy},
                    {"successes", optional_json(g.successes)},
                    {"trials", optional_json(g.trials)},
                    {"ci_low", g.ci_low},
                    {"ci_high", g.ci_high},
                    {"std_error", g.std_error}});
  }
  return list;
}

Json summary_json(const NiahSummary& s) {
  return {{"mean", s.mean},
          {"mean_std_error", s.mean_std_error},
          {"best", s.best},
          {"best_group", s.best_group},
          {"worst", s.worst},
          {"worst_group", s.worst_group},
          {"gap", s.gap},
          {"gap_std_error", s.gap_std_error},
          {"worst_over_mean", optional_json(s.worst_over_mean)},
          {"trials", optional_json(s.trials)}};
}

OutcomeTable::OutcomeTable(std::int64_t trials, int heads)
    : trials_(trials), heads_(heads), outcomes_(static_cast<std::size_t>(trials * heads), 0) {}

NiahSummary summarize(const std::vector<GroupAccuracy>& groups,
                      std::optional<std::int64_t> trials) {
  NiahSummary s;
  double variance = 0;
  for (const auto& g : groups) {
    s.mean += g.accuracy;
    variance += g.std_error * g.std_error;
    if (g.accuracy > groups[static_cast<std::size_t>(s.best_group)].accuracy) {
      s.best_group = g.group;
    }
    if (g.accuracy < groups[static_cast<std::size_t>(s.worst_group)].accuracy) {
      s.worst_group = g.group;
    }
  }
  const auto G = static_cast<double>(groups.size());
  const auto& best = groups[static_cast<std::size_t>(s.best_group)];
  const auto& worst = groups[static_cast<std::size_t>(s.worst_group)];
  s.mean /= G;
  s.mean_std_error = std::sqrt(variance) / G;
  s.best = best.accuracy;
  s.worst = worst.accuracy;
  s.gap = s.best - s.worst;
  s.gap_std_error = std::hypot(best.std_error, worst.std_error);
  if (s.mean > 0) s.worst_over_mean = s.worst / s.mean;
  s.trials = trials;
  return s;
}

NiahResult monte_carlo_result(const NiahRun& run, const OutcomeTable& table) {
  NiahResult result;
  std::vector<KnockoutGroup> knockout;
  const std::int64_t P = run.needles.prompts;
  for (int r = 0; r < run.needles.groups; ++r) {
    std::int64_t successes = 0;
    std::int64_t without = 0;
    stats::PairedDifference change;
    for (std::int64_t i = r * P; i < (r + 1) * P; ++i) {
      const bool all = combine_outcomes(table.row(i), run.combine);
      successes += all ? 1 : 0;
      if (!run.knockout) continue;
      const bool less = combine_outcomes(table.row(i), run.combine, *run.knockout);
      without += less ? 1 : 0;
      change.add(all, less);  // the same trials with and without the head
    }
    const auto e = stats::estimate_proportion(successes, P);
    result.groups.push_back({r, e.mean, e.successes, e.trials, e.std_error, e.ci_low, e.ci_high});
    if (run.knockout) {
      const double accuracy = static_cast<double>(without) / static_cast<double>(P);
      knockout.push_back({r, accuracy, change.mean(), change.std_error()});
    }
  }
  result.summary = summarize(result.groups, table.trials());
  if (run.knockout) result.knockout = knockout_of(*run.knockout, std::move(knockout));
  return result;
}

NiahResult exact_result(const NiahRun& run, const std::vector<std::vector<double>>& phase_success) {
  const auto& m = run.model;
  // A class of needle positions modulo the strides' period fixes every head's phase, so heads
  // combine class by class; classes are summed in increasing order, which for one geometry
  // is phase order.
  const auto modulus =
      stride_period(m.geometries, run.needles.last_position(run.needles.groups - 1) + 1);
  std::vector<double> heads(static_cast<std::size_t>(m.heads()));
  auto group_accuracy = [&](const std::vector<PositionClass>& classes, int excluded) {
    double sum = 0;
    for (const auto& c : classes) {
      for (int h = 0; h < m.heads(); ++h) {
        const auto phase = m.geometry(h).phase_of_position(c.position);
        heads[static_cast<std::size_t>(h)] =
            phase_success[static_cast<std::size_t>(h)][static_cast<std::size_t>(phase)];
      }
      sum += static_cast<double>(c.count) *
             combine_probabilities(heads, run.combine, excluded, m.key_heads);
    }
    return sum / static_cast<double>(run.needles.block_count);
  };
  NiahResult result;
  std::vector<KnockoutGroup> knockout;
  for (int r = 0; r < run.needles.groups; ++r) {
    const auto classes = position_classes(run.needles, modulus, r);
    const double accuracy = group_accuracy(classes, -1);
    result.groups.push_back({r, accuracy, std::nullopt, std::nullopt, 0.0, accuracy, accuracy});
    if (run.knockout) {
      const double without = group_accuracy(classes, *run.knockout);
      knockout.push_back({r, without, without - accuracy, 0.0});
    }
  }
  result.summary = summarize(result.groups, std::nullopt);
  if (run.knockout) result.knockout = knockout_of(*run.knockout, std::move(knockout));
  return result;
}

NiahResult niah_result(const NiahRun& run, const EngineOutput& output) {
  if (output.outcomes) return monte_carlo_result(run, *output.outcomes);
  PHASESIM_EXPECT(!output.phase_success.empty());  // every engine returns one kind or the other
  return exact_result(run, output.phase_success);
}

Json niah_document(const NiahRun& run, const std::string& engine,
                   const std::vector<std::string>& engine_paths, const NiahResult& result) {
  auto doc = new_document("niah");
  put_parameters(doc, run, engine, engine_paths);
  doc.update(niah_result_json(result));
  return doc;
}

std::vector<stats::GroupCount> group_counts(const NiahResult& result) {
  std::vector<stats::GroupCount> counts;
  for (const auto& g : result.groups) {
    PHASESIM_EXPECT(g.successes && g.trials);  // a Monte Carlo report
    counts.push_back({g.group, *g.successes, *g.trials});
  }
  return counts;
}

Json niah_result_json(const NiahResult& result) {
  Json doc;
  doc["groups"] = groups_json(result.groups);
  doc["summary"] = summary_json(result.summary);
  if (result.knockout) doc["knockout_result"] = knockout_json(*result.knockout);
  return doc;
}

}  // namespace phasesim::niah
