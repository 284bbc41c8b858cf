// phasesim coverage: how one gate spreads its weight over the phases, or every head of an
// architecture (--arch).
#include <memory>
#include <ostream>

#include "cli/command.hpp"
#include "cli/output.hpp"
#include "phasesim/model/coverage.hpp"
#include "phasesim/niah/architecture.hpp"

namespace phasesim::cli {
namespace {

struct CoverageOptions {
  Geometry geometry;
  std::string gate = "last";
  std::string arch;
  std::string json;
};

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

// Every head's coverage, the architecture and its KV cost.
int run_architecture_coverage(const CoverageOptions& options, const niah::Architecture& arch,
                              std::ostream& out) {
  announce_long_run("coverage", niah::architecture_coverage_work(arch), 1, out);
  const auto doc = niah::architecture_coverage_document(options.arch, arch);
  if (wants_table(options.json)) {
    const auto cost = niah::kv_cost(arch.geometries(), arch.key_heads());
    out << "coverage of architecture " << arch.name << " (" << arch.file
        << "): " << counted(arch.layers, "layer") << ", "
        << heads_text(cost.heads, static_cast<int>(arch.heads.size())) << ", kv cost "
        << fixed(cost.entries_per_token, 4) << " entries per token\n";
    // A cache read by K query heads is one compressor: one table, not K alike.
    for (std::size_t h = 0; h < arch.heads.size(); ++h) {
      const auto& head = arch.heads[h];
      if (!head.holds_cache()) continue;
      const auto& g = head.geometry;
      out << "\nlayer " << head.layer << ", head " << head.head << ": W=" << g.window
          << " S=" << g.stride << " offset " << g.offset << ", gate " << head.gate.spec;
      if (head.split_rho != 1) out << ", split rho " << head.split_rho;
      if (head.query_heads > 1) out << ", read by " << head.query_heads << " query heads";
      out << "\n";
      print_coverage_table(doc["architecture"]["heads"][h]["phases"], out);
    }
  }
  write_json(options.json, doc);
  return kSuccess;
}

int run_coverage(const CoverageOptions& options, const Gate& gate, std::ostream& out) {
  const auto doc = coverage_document(options.geometry, gate);
  if (wants_table(options.json)) {
    out << "coverage of W=" << options.geometry.window << " S=" << options.geometry.stride
        << " gate " << gate.spec << "\n";
    print_coverage_table(doc["phases"], out);
  }
  write_json(options.json, doc);
  return kSuccess;
}

}  // namespace

void add_coverage_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<CoverageOptions>();
  auto* cmd =
      app.add_subcommand("coverage", "Per-phase slots, multiplicity and coverage of a gate");
  add_geometry_options(*cmd, options->geometry);
  cmd->add_option("--gates,--gate", options->gate, std::string("Gate: ") + kGateFormsHelp)
      ->capture_default_str();
  add_arch_option(*cmd, options->arch, {"--window", "--stride", "--gates"});
  add_json_option(*cmd, options->json);
  cmd->callback([options, &action] {
    if (!options->arch.empty()) {
      auto arch = niah::load_architecture(options->arch);
      niah::check_coverage_work(options->arch, arch);
      action = [options, arch](std::ostream& out) {
        return run_architecture_coverage(*options, arch, out);
      };
      return;
    }
    auto gate = coverage_gate(options->geometry, options->gate);
    action = [options, gate](std::ostream& out) { return run_coverage(*options, gate, out); };
  });
}

}  // namespace phasesim::cli
