// The frontier's document (every parameter, the space, the rows) and its architecture files.
#include <filesystem>

#include "phasesim/core/files.hpp"
#include "phasesim/frontier/frontier.hpp"

namespace phasesim::frontier {

namespace {

Json space_json(const DesignSpace& s) {
  return {{"ratios", s.ratios},
          {"overlaps", s.overlaps},
          {"gate_families", s.gates},
          {"caches", s.heads},
          {"top_k", s.top_k},
          {"sliding_windows", s.sliding_windows},
          {"designs", designs(s).size()}};
}

void design_columns(Json& json, const std::optional<Design>& d) {
  json["window"] = d ? Json(d->window) : Json();
  json["stride"] = d ? Json(d->stride) : Json();
  json["gate"] = d ? Json(d->gate) : Json();
  json["caches"] = d ? Json(d->heads) : Json();
  json["top_k"] = d && d->top_k ? Json(d->top_k) : Json();
  json["sliding_window"] = d ? Json(d->sliding_window) : Json();
}

Json row_json(const FrontierPlan& plan, const Row& row) {
  const auto& c = plan.candidates[row.candidate];
  const auto& s = row.summary;
  Json json{{"name", c.name}, {"kind", c.preset ? "preset" : "design"}};
  json["on_frontier"] = row.on_frontier;
  json["below_floor"] = row.below_floor;
  json["dominated_by"] = row.dominated_by.empty() ? Json() : Json(row.dominated_by);
  design_columns(json, c.design);
  json["kv_entries_per_token"] = row.cost.entries_per_token;
  json["read_entries_per_query"] = row.read_entries;
  json["mean"] = s.mean;
  json["worst"] = s.worst;
  json["worst_group"] = s.worst_group;
  json["best"] = s.best;
  json["score"] = row.score;
  json["engine"] = c.plan.engine().name();
  json["exact"] = !s.trials.has_value();
  json["trials"] = optional_json(s.trials);
  json["mean_std_error"] = s.mean_std_error;
  json["worst_std_error"] = row.worst_std_error;
  json["group_count"] = c.plan.run().needles.groups;
  json["architecture"] = c.preset ? Json(c.name) : Json(c.toml);
  return json;
}

}  // namespace

Json frontier_document(const FrontierPlan& plan, const FrontierResult& result) {
  const auto& m = plan.spec.model;
  auto doc = new_document("frontier");
  doc["beta"] = m.beta.value_or(kDefaultBeta);
  doc["context"] = m.context;
  doc["needle_tokens"] = m.needle_tokens;
  doc["index_beta"] = optional_json(m.read.index_beta);
  doc["index_rho"] = optional_json(m.read.index_rho);
  doc["sink"] = optional_json(m.read.sink);
  doc["prompts"] = m.prompts;
  doc["combine"] = m.combine;
  doc["seed"] = m.seed;
  doc["floor"] = optional_json(plan.spec.floor);
  doc["weight"] = optional_json(plan.spec.weight);
  doc["space"] = space_json(plan.spec.space);
  std::size_t below = 0;
  for (const auto& row : result.rows)
    below += !plan.candidates[row.candidate].preset && row.below_floor;
  doc["designs_below_floor"] = below;
  doc["frontier_size"] = result.frontier.size();
  doc["rows"] = Json::array();
  for (const auto f : result.frontier) doc["rows"].push_back(row_json(plan, result.rows[f]));
  for (const auto& row : result.rows)
    if (plan.candidates[row.candidate].preset) doc["rows"].push_back(row_json(plan, row));
  doc["warnings"] = plan.warnings;
  return doc;
}

std::vector<std::string> write_frontier_files(const FrontierPlan& plan,
                                              const FrontierResult& result,
                                              const std::string& dir) {
  std::filesystem::create_directories(dir);
  std::vector<std::string> paths;
  for (const auto f : result.frontier) {
    const auto& c = plan.candidates[f];
    const auto path = (std::filesystem::path(dir) / (c.name + ".toml")).string();
    write_file_atomically(path, c.toml);
    paths.push_back(path);
  }
  return paths;
}

}  // namespace phasesim::frontier
