#include "phasesim/compare/compare.hpp"

#include <cmath>

#include "phasesim/core/error.hpp"
#include "phasesim/stats/estimate.hpp"

namespace phasesim::compare {
namespace {

// Names as labels, made distinct ("base", "base (2)") so that tables and figures can tell
// the architectures apart.
std::vector<std::string> distinct_labels(const std::vector<engines::NiahPlan>& plans) {
  std::vector<std::string> labels;
  for (const auto& plan : plans) {
    const auto& name = plan.run().architecture->name;
    int same = 1;
    for (const auto& other : plans) {
      if (&other == &plan) break;
      same += other.run().architecture->name == name ? 1 : 0;
    }
    labels.push_back(same == 1 ? name : name + " (" + std::to_string(same) + ")");
  }
  return labels;
}

// Per-trial combined outcomes of a Monte Carlo output.
std::vector<bool> combined_outcomes(const niah::NiahRun& run, const niah::EngineOutput& output) {
  std::vector<bool> combined;
  for (std::int64_t i = 0; i < run.needles.trials(); ++i) {
    combined.push_back(niah::combine_outcomes(output.outcomes->row(i), run.combine));
  }
  return combined;
}

// Per-group differences against the reference: trial by trial where both have outcomes,
// else of the exact accuracies.
std::vector<PairedGroup> paired_groups(const niah::NiahRun& run, const niah::NiahResult& result,
                                       const std::vector<bool>& outcomes,
                                       const niah::NiahResult& reference,
                                       const std::vector<bool>& reference_outcomes) {
  std::vector<PairedGroup> groups;
  const std::int64_t P = run.needles.prompts;
  for (int r = 0; r < run.needles.groups; ++r) {
    const auto g = static_cast<std::size_t>(r);
    if (outcomes.empty()) {
      groups.push_back({r, result.groups[g].accuracy - reference.groups[g].accuracy, 0.0});
      continue;
    }
    stats::PairedDifference d;
    for (std::int64_t i = r * P; i < (r + 1) * P; ++i) {
      d.add(reference_outcomes[static_cast<std::size_t>(i)], outcomes[static_cast<std::size_t>(i)]);
    }
    groups.push_back({r, d.mean(), d.std_error()});
  }
  return groups;
}

void summarize_differences(ArchitectureComparison& c, const niah::NiahResult& reference) {
  stats::GroupMean difference;
  for (const auto& g : c.groups) difference.add(g.difference, g.std_error);
  c.mean_difference = difference.mean();
  c.mean_difference_std_error = difference.std_error();
  const auto& mine = c.result.summary;
  const auto& theirs = reference.summary;
  c.worst_difference = mine.worst - theirs.worst;
  c.worst_difference_std_error =
      mine.worst_group == theirs.worst_group
          ? c.groups[static_cast<std::size_t>(mine.worst_group)].std_error
          : std::hypot(c.result.groups[static_cast<std::size_t>(mine.worst_group)].std_error,
                       reference.groups[static_cast<std::size_t>(theirs.worst_group)].std_error);
}

Json difference_json(const ArchitectureComparison& c) {
  Json groups = Json::array();
  for (const auto& g : c.groups) {
    groups.push_back(
        {{"group", g.group}, {"difference", g.difference}, {"std_error", g.std_error}});
  }
  return {{"groups", groups},
          {"mean", c.mean_difference},
          {"mean_std_error", c.mean_difference_std_error},
          {"worst", c.worst_difference},
          {"worst_std_error", c.worst_difference_std_error}};
}

}  // namespace

ComparePlan prepare_compare(const CompareSpec& spec, const engines::Engine& engine, int threads) {
  require(!spec.architectures.empty(), "invalid compare (give at least one architecture file)");
  std::vector<Geometry> geometries;
  std::string files;
  for (const auto& arch : spec.architectures) {
    for (const auto& g : arch.geometries()) geometries.push_back(g);
    files += (files.empty() ? "" : ", ") + arch.file;
  }
  // Paired trials: the same needle positions for every architecture.
  const auto& m = spec.model;
  const auto needles =
      niah::plan_needles(geometries, m.context, m.groups, m.prompts, "the heads of " + files);
  std::vector<engines::NiahPlan> plans;
  WorkEstimate total;
  for (const auto& arch : spec.architectures) {
    auto one = spec.model;
    one.architecture = arch;
    one.knockout.reset();
    one.needles = needles;
    plans.push_back(engines::prepare(one, engine, threads));
    total += plans.back().estimate();
  }
  check_work("the heads of " + files + ", --context " + std::to_string(m.context) + ", " +
                 counted(needles.trials(), "trial") + " each, --engine " + engine.name(),
             total, threads);
  return {std::move(plans), total};
}

std::vector<ArchitectureComparison> run_compare(const ComparePlan& plan, const Parallel& parallel) {
  const auto& plans = plan.plans();
  const auto labels = distinct_labels(plans);
  std::vector<ArchitectureComparison> comparison;
  std::vector<bool> reference_outcomes;
  for (std::size_t a = 0; a < plans.size(); ++a) {
    const auto& run = plans[a].run();
    const auto output = engines::run_engine(plans[a], parallel);
    ArchitectureComparison c;
    c.label = labels[a];
    c.run = run;
    c.result = niah::niah_result(run, output);
    c.cost = niah::kv_cost(run.model.geometries, run.model.key_heads, run.model.read_paths);
    const auto outcomes = output.outcomes ? combined_outcomes(run, output) : std::vector<bool>{};
    if (a == 0) reference_outcomes = outcomes;
    const auto& reference = a == 0 ? c.result : comparison.front().result;
    c.groups = paired_groups(run, c.result, outcomes, reference, reference_outcomes);
    summarize_differences(c, reference);
    comparison.push_back(std::move(c));
  }
  return comparison;
}

Json compare_document(const std::vector<ArchitectureComparison>& comparison,
                      const engines::Engine& engine) {
  const auto& first = comparison.front().run;
  const auto& m = first.model;
  auto doc = new_document("compare");
  doc["beta"] = optional_json(m.beta);
  doc["dim"] = optional_json(m.dim);
  doc["query_noise"] = m.full_vector() ? Json(m.query_noise) : Json();
  doc["beta_effective"] = m.beta_effective();
  doc["context"] = m.context;
  doc["group_count"] = first.needles.groups;
  doc["prompts"] = first.needles.prompts;
  doc["combine"] = first.combine.text;
  doc["content_noise"] = m.content_noise;
  doc["rms_norm"] = m.rms_norm;
  doc["engine"] = engine.name();
  doc["seed"] = m.seed;
  doc["needle_positions_per_group"] = first.needles.block_count;
  doc["needle_range"] = {first.needles.first_position(0),
                         first.needles.last_position(first.needles.groups - 1)};
  doc["architectures"] = Json::array();
  for (const auto& c : comparison) {
    doc["architectures"].push_back({{"label", c.label},
                                    {"architecture", niah::architecture_json(*c.run.architecture)},
                                    {"kv_cost", niah::kv_cost_json(c.cost)},
                                    {"engine_paths", engine.paths(c.run.model)},
                                    {"groups", niah::groups_json(c.result.groups)},
                                    {"summary", niah::summary_json(c.result.summary)},
                                    {"difference", difference_json(c)}});
  }
  return doc;
}

}  // namespace phasesim::compare
