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

Json coverage_json(const std::vector<PhaseCoverage>& phases) {
  Json list = Json::array();
  for (const auto& p : phases) {
    list.push_back({{"phase", p.phase},
                    {"slots", p.slots},
                    {"multiplicity", p.multiplicity},
                    {"coverage", p.coverage},
                    {"best_weight", p.best_weight},
                    {"best_normalized", p.best_normalized}});
  }
  return list;
}

std::string join(const std::vector<int>& slots) {
  std::string text;
  for (std::size_t i = 0; i < slots.size(); ++i) text += (i ? "," : "") + std::to_string(slots[i]);
  return text.empty() ? "-" : text;
}

void print_coverage_table(const std::vector<PhaseCoverage>& phases, std::ostream& out) {
  Table table({"phase", "slots", "multiplicity", "coverage", "best_weight", "best_normalized"});
  for (const auto& p : phases) {
    table.add_row({std::to_string(p.phase), join(p.slots), std::to_string(p.multiplicity),
                   fixed(p.coverage), fixed(p.best_weight), fixed(p.best_normalized)});
  }
  table.print(out);
}

// The table and the JSON list every slot and every phase: measured 0.7 s and 58 MB per
// million slots (W = 10^6, S = 4), and 13 us and 1 KB per phase row (64 heads of W = S = 4096:
// 3.4 s, 270 MB).
WorkEstimate coverage_work(const Geometry& geometry) {
  const double slots = geometry.window, phases = geometry.stride;
  return {7e-7 * slots + 6.5e-6 * phases, 64 * slots + 1024 * phases};
}

WorkEstimate architecture_work(const niah::Architecture& arch) {
  WorkEstimate work;
  for (const auto& head : arch.heads) work += coverage_work(head.geometry);
  return work;
}

// Every head's coverage, the architecture and its KV cost.
int run_architecture_coverage(const CoverageOptions& options, const niah::Architecture& arch,
                              std::ostream& out) {
  announce_long_run("coverage", architecture_work(arch), 1, out);
  auto doc = new_document("coverage");
  doc["arch"] = options.arch;
  doc["architecture"] = niah::architecture_json(arch);
  const auto cost = niah::kv_cost(arch.geometries());
  doc["kv_cost"] = niah::kv_cost_json(cost);
  const bool table = wants_table(options.json);
  if (table) {
    out << "coverage of architecture " << arch.name << " (" << arch.file << "): " << arch.layers
        << (arch.layers == 1 ? " layer, " : " layers, ") << cost.heads
        << (cost.heads == 1 ? " head" : " heads") << ", kv cost "
        << fixed(cost.entries_per_token, 4) << " entries per token\n";
  }
  for (std::size_t h = 0; h < arch.heads.size(); ++h) {
    const auto& head = arch.heads[h];
    const auto& g = head.geometry;
    const auto phases = phase_coverage(g, head.gate);
    doc["architecture"]["heads"][h]["gate_weights"] = head.gate.weights;
    doc["architecture"]["heads"][h]["phases"] = coverage_json(phases);
    if (!table) continue;
    out << "\nlayer " << head.layer << ", head " << head.head << ": W=" << g.window
        << " S=" << g.stride << " offset " << g.offset << ", gate " << head.gate.spec << "\n";
    print_coverage_table(phases, out);
  }
  write_json(options.json, doc);
  return kSuccess;
}

int run_coverage(const CoverageOptions& options, const Gate& gate, std::ostream& out) {
  const auto phases = phase_coverage(options.geometry, gate);
  auto doc = new_document("coverage");
  doc["window"] = options.geometry.window;
  doc["stride"] = options.geometry.stride;
  doc["gate"] = gate.spec;
  doc["gate_weights"] = gate.weights;
  doc["phases"] = coverage_json(phases);

  if (wants_table(options.json)) {
    out << "coverage of W=" << options.geometry.window << " S=" << options.geometry.stride
        << " gate " << gate.spec << "\n";
    print_coverage_table(phases, out);
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
      check_work("--arch " + options->arch + " (" + std::to_string(arch.heads.size()) +
                     (arch.heads.size() == 1 ? " head)" : " heads)"),
                 architecture_work(arch), 1);
      action = [options, arch](std::ostream& out) {
        return run_architecture_coverage(*options, arch, out);
      };
      return;
    }
    options->geometry.validate();
    check_work("--window " + std::to_string(options->geometry.window),
               coverage_work(options->geometry), 1);
    auto gate = parse_gate(options->gate, options->geometry.window);
    action = [options, gate](std::ostream& out) { return run_coverage(*options, gate, out); };
  });
}

}  // namespace phasesim::cli
