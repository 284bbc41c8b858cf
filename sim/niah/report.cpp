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
  // The read path (MODEL.md section 10), where some head has one: its keys (top_k, ...) when
  // every head reads alike, as window and stride are given, so that a sweep's table has them
  // as columns; each head's, resolved, under "read_paths" otherwise.
  if (!m.read_paths.empty()) {
    Json paths = Json::array();
    for (const auto& path : m.read_paths) paths.push_back(read_path_json(path));
    const bool alike =
        std::all_of(paths.begin(), paths.end(), [&](const Json& p) { return p == paths.front(); });
    if (alike) {
      doc.update(paths.front());
    } else {
      doc["read_paths"] = paths;
    }
  }
  if (m.needle_tokens > 1) doc["needle_tokens"] = m.needle_tokens;
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
    doc["kv_cost"] = kv_cost_json(kv_cost(m.geometries, m.key_heads, m.read_paths));
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
    // Stage 1 of the read path, where some head selects (MODEL.md section 10).
    if (g.selected) list.back()["selected"] = *g.selected;
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

NiahResult monte_carlo_result(const NiahRun& run, const OutcomeTable& table,
                              const std::optional<OutcomeTable>& selected) {
  NiahResult result;
  std::vector<KnockoutGroup> knockout;
  const std::int64_t P = run.needles.prompts;
  for (int r = 0; r < run.needles.groups; ++r) {
    std::int64_t successes = 0;
    std::int64_t without = 0;
    std::int64_t passed = 0;  // stage 1 (the read path)
    stats::PairedDifference change;
    for (std::int64_t i = r * P; i < (r + 1) * P; ++i) {
      const bool all = combine_outcomes(table.row(i), run.combine);
      successes += all ? 1 : 0;
      if (selected) passed += combine_outcomes(selected->row(i), run.combine) ? 1 : 0;
      if (!run.knockout) continue;
      const bool less = combine_outcomes(table.row(i), run.combine, *run.knockout);
      without += less ? 1 : 0;
      change.add(all, less);  // the same trials with and without the head
    }
    const auto e = stats::estimate_proportion(successes, P);
    result.groups.push_back({r, e.mean, e.successes, e.trials, e.std_error, e.ci_low, e.ci_high});
    if (selected) {
      result.groups.back().selected = static_cast<double>(passed) / static_cast<double>(P);
    }
    if (run.knockout) {
      const double accuracy = static_cast<double>(without) / static_cast<double>(P);
      knockout.push_back({r, accuracy, change.mean(), change.std_error()});
    }
  }
  result.summary = summarize(result.groups, table.trials());
  if (run.knockout) result.knockout = knockout_of(*run.knockout, std::move(knockout));
  return result;
}

namespace {

using PhaseTable = std::vector<std::vector<double>>;  // [head][phase]

// The first position whose needle (all n tokens) reaches head h's sliding window.
std::int64_t head_reach(const NiahModel& m, int h) {
  return window_reach(m.context, m.read_path(h).sliding_window, m.needle_tokens);
}

// The modulus of the needle positions' classes: the strides' period, or past every needle.
std::int64_t class_modulus(const NiahRun& run) {
  const auto& plan = run.needles;
  return stride_period(run.model.geometries, plan.last_position(plan.groups - 1) + 1);
}

// The first position some head's window reaches.
std::int64_t nearest_reach(const NiahModel& m) {
  std::int64_t near = m.context;
  for (int h = 0; h < m.heads(); ++h) near = std::min(near, head_reach(m, h));
  return near;
}

// Per-group means of per-head probabilities at each needle position, the heads combined: far
// from the query the value of each head's phase (`far`), so that a class of positions modulo
// the strides' period fixes every head's and the heads combine class by class (classes summed
// in increasing order, which for one geometry is phase order); a needle in some head's sliding
// window position by position, that head's value from `window`.
std::vector<double> exact_means(const NiahRun& run, const PhaseTable& far, const PhaseTable& window,
                                int excluded) {
  const auto& m = run.model;
  const auto& plan = run.needles;
  const auto modulus = class_modulus(run);
  const auto near = nearest_reach(m);
  // combine_probabilities reads a cache's heads through its key head: only those are filled
  // (MoBA's 1024 heads read 32 caches).
  std::vector<int> keys;
  std::vector<std::int64_t> reach;
  for (int h = 0; h < m.heads(); ++h) {
    if (m.key_head(h) == h) keys.push_back(h);
    reach.push_back(head_reach(m, h));
  }
  std::vector<double> heads(static_cast<std::size_t>(m.heads()));
  const auto combined = [&](std::int64_t p, bool windows) {
    for (const int h : keys) {
      const auto i = static_cast<std::size_t>(h);
      const auto phase = static_cast<std::size_t>(m.geometry(h).phase_of_position(p));
      heads[i] = (windows && p >= reach[i] ? window : far)[i][phase];
    }
    return combine_probabilities(heads, run.combine, excluded, m.key_heads);
  };
  std::vector<double> means;
  for (int r = 0; r < plan.groups; ++r) {
    double sum = 0;
    for (const auto& c : position_classes(plan, modulus, r)) {
      sum += static_cast<double>(c.count) * combined(c.position, false);
    }
    // The needles that reach a window: their class counted them far from it.
    for (std::int64_t p = plan.last_position(r); p >= near && p >= plan.first_position(r);
         p -= plan.groups) {
      sum += combined(p, true) - combined(p, false);
    }
    means.push_back(sum / static_cast<double>(plan.block_count));
  }
  return means;
}

NiahResult exact_report(const NiahRun& run, const PhaseTable& far, const PhaseTable& window,
                        const PhaseTable& far_selected, const PhaseTable& window_selected) {
  NiahResult result;
  std::vector<KnockoutGroup> knockout;
  const auto accuracy = exact_means(run, far, window, -1);
  const auto without =
      run.knockout ? exact_means(run, far, window, *run.knockout) : std::vector<double>{};
  const auto selected = far_selected.empty() ? std::vector<double>{}
                                             : exact_means(run, far_selected, window_selected, -1);
  for (int r = 0; r < run.needles.groups; ++r) {
    const auto i = static_cast<std::size_t>(r);
    const double a = accuracy[i];
    result.groups.push_back({r, a, std::nullopt, std::nullopt, 0.0, a, a});
    if (!selected.empty()) result.groups.back().selected = selected[i];
    if (run.knockout) knockout.push_back({r, without[i], without[i] - a, 0.0});
  }
  result.summary = summarize(result.groups, std::nullopt);
  if (run.knockout) result.knockout = knockout_of(*run.knockout, std::move(knockout));
  return result;
}

}  // namespace

double exact_report_work(const NiahRun& run) {
  const auto& m = run.model;
  const auto& plan = run.needles;
  const auto modulus = class_modulus(run);
  const auto near = nearest_reach(m);
  double positions = 0;  // as exact_means combines: once a class, twice a reaching position
  for (int r = 0; r < plan.groups; ++r) {
    positions += static_cast<double>(position_class_count(plan, modulus)) +
                 2.0 * static_cast<double>(plan.positions_from(r, near));
  }
  const int passes = 1 + (m.plain() ? 0 : 1) + (run.knockout ? 1 : 0);
  return passes * positions * m.heads();
}

NiahResult exact_result(const NiahRun& run, const std::vector<std::vector<double>>& phase_success) {
  return exact_report(run, phase_success, phase_success, {}, {});
}

NiahResult niah_result(const NiahRun& run, const EngineOutput& output) {
  if (output.outcomes) return monte_carlo_result(run, *output.outcomes, output.selected);
  PHASESIM_EXPECT(!output.phase_success.empty());  // every engine returns one kind or the other
  const auto& window = output.window_success.empty() ? output.phase_success : output.window_success;
  const auto& window_selected =
      output.window_selected.empty() ? output.phase_selected : output.window_selected;
  return exact_report(run, output.phase_success, window, output.phase_selected, window_selected);
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
