// phasesim coverage: the table of how one gate spreads its weight over the phases, or of every
// cache of an architecture (--arch).
#include <ostream>

#include "cli/door.hpp"
#include "phasesim/commands/model.hpp"

namespace phasesim::cli {
namespace {

std::string join_slots(const Json& slots) {
  std::string text;
  for (const auto& s : slots) text += (text.empty() ? "" : ",") + std::to_string(int(s));
  return text.empty() ? "-" : text;
}

// The table of a document's "phases" list.
void print_coverage_table(const Json& phases, std::ostream& out) {
  Table table({"phase", "slots", "multiplicity", "coverage", "best_weight", "best_normalized",
               "channel_share"});
  for (const auto& p : phases) {
    table.add_row({std::to_string(int(p["phase"])), join_slots(p["slots"]),
                   std::to_string(int(p["multiplicity"])), fixed(p["coverage"]),
                   fixed(p["best_weight"]), fixed(p["best_normalized"]),
                   fixed(p["channel_share"])});
  }
  table.print(out);
}

// A gate's phases; with an index gate (the read path), stage 1's (selection) after stage 2's.
void print_stages(const Json& doc, std::ostream& out) {
  if (!doc.contains("index_phases")) return print_coverage_table(doc["phases"], out);
  out << "stage 2 (attention), gate " << doc["gate"].get<std::string>() << ":\n";
  print_coverage_table(doc["phases"], out);
  out << "stage 1 (selection), index gate " << doc["index_gate"].get<std::string>() << ":\n";
  print_coverage_table(doc["index_phases"], out);
}

// "1-2, 4, 6-8": layer numbers in order, runs of consecutive ones as ranges.
std::string layer_ranges(const Json& layers) {
  std::string text;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    std::size_t j = i;
    while (j + 1 < layers.size() && int(layers[j + 1]) == int(layers[j]) + 1) ++j;
    text += (text.empty() ? "" : ", ") + std::to_string(int(layers[i]));
    if (j > i) text += "-" + std::to_string(int(layers[j]));
    i = j;
  }
  return text;
}

// A stack's layers by kind (architecture.hpp, layers_by_kind_json), one line a kind.
void print_layer_kinds(const Json& arch, std::ostream& out) {
  if (!arch.contains("layers_by_kind")) return;
  out << "layers by kind:\n";
  for (const auto& kind : arch["layers_by_kind"]) {
    out << "  " << kind["kind"].get<std::string>() << ": " << int(kind["count"]) << " (layers "
        << layer_ranges(kind["layers"]) << ")\n";
  }
  for (const auto& layer : arch.value("window_only_layers", Json::array())) {
    out << "layer " << int(layer["layer"]) << ": window-only, the last "
        << int(layer["sliding_window"])
        << " tokens raw; no compressed cache, so the engines do not run it\n";
  }
}

// Every cache's coverage, the architecture and its KV cost.
void print_architecture(const niah::Architecture& arch, const Json& doc, std::ostream& out) {
  const auto cost = niah::kv_cost(arch.geometries(), arch.key_heads(), arch.read_paths());
  out << "coverage of architecture " << arch.name << " (" << arch.file
      << "): " << counted(arch.layers, "layer") << ", "
      << heads_text(cost.heads, static_cast<int>(arch.heads.size())) << ", kv cost "
      << fixed(cost.entries_per_token, 4) << " entries per token\n";
  print_layer_kinds(doc["architecture"], out);
  // A cache read by K query heads is one compressor: one table, not K alike.
  for (std::size_t h = 0; h < arch.heads.size(); ++h) {
    const auto& head = arch.heads[h];
    if (!head.holds_cache()) continue;
    const auto& g = head.geometry;
    out << "\nlayer " << head.layer << ", head " << head.head << ": W=" << g.window
        << " S=" << g.stride << " offset " << g.offset << ", gate " << head.gate.spec;
    if (head.split_rho != 1) out << ", split rho " << head.split_rho;
    if (head.query_heads > 1) out << ", read by " << head.query_heads << " query heads";
    if (head.read_path.raw_blocks.value_or(false)) out << ", selected blocks read raw";
    const auto& json = doc["architecture"]["heads"][h];
    if (json.contains("coverage_as")) {
      const auto& as = arch.heads[json["coverage_as"].get<std::size_t>()];
      out << "; coverage as layer " << as.layer << ", head " << as.head << "\n";
      continue;
    }
    out << "\n";
    print_stages(json, out);
  }
}

void print_coverage(const commands::Coverage& command, const Json& doc, double, std::ostream& out) {
  if (command.architecture()) return print_architecture(*command.architecture(), doc, out);
  out << "coverage of W=" << command.options().window << " S=" << command.options().stride
      << " gate " << command.gate()->spec << "\n";
  print_stages(doc, out);
}

}  // namespace

void add_coverage_command(CLI::App& app, Action& action, const commands::Environment& environment) {
  add_command<commands::Coverage>(app, action, environment, {print_coverage});
}

}  // namespace phasesim::cli
