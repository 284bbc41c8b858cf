// phasesim phase-diagram: the optimal k and max weight over (beta, N), and beta*(N).
#include <memory>
#include <ostream>

#include "cli/command.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "cli/theory_options.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/theorems/concentration.hpp"
#include "phasesim/theorems/optimize.hpp"

namespace phasesim::cli {
namespace {

// Every cell also starts from the equal splits and the previous beta's optimum.
theorems::OptimizeSettings fewer_restarts() {
  theorems::OptimizeSettings settings;
  settings.restarts = 2;
  return settings;
}

struct PhaseDiagramOptions {
  ObjectiveOptions objective;
  std::string betas = "4:12:1";
  std::vector<std::int64_t> entries{1024, 32768, 1000000};
  theorems::OptimizeSettings search = fewer_restarts();
  bool progress = false;
  std::string json;
};

struct Cell {
  double beta;
  std::int64_t entries;
  theorems::GateOptimum optimum;
};

// Sweeps beta upwards for one N, each optimization warm-started from the previous one.
std::vector<Cell> sweep(const PhaseDiagramOptions& options, const std::vector<double>& betas,
                        std::int64_t entries, const Parallel& parallel) {
  auto objective = options.objective.objective();
  objective.entries = entries;
  auto search = options.search;
  std::vector<Cell> cells;
  for (double beta : betas) {
    objective.beta = beta;
    cells.push_back({beta, entries, theorems::optimize_gate(objective, search, parallel)});
    search.warm_starts = {cells.back().optimum.logits};
  }
  return cells;
}

Json cell_json(const Cell& c) {
  return {{"beta", c.beta},
          {"entries", c.entries},
          {"k_effective", c.optimum.summary.k_effective},
          {"k_star_predicted", c.optimum.k_star_predicted},
          {"max_weight", c.optimum.summary.max_weight},
          {"objective", c.optimum.objective},
          {"onehot_objective", c.optimum.onehot_objective},
          {"concentrated", c.optimum.summary.max_weight >= 0.99},
          {"gate", c.optimum.gate}};
}

int run_phase_diagram(const PhaseDiagramOptions& options, std::ostream& out) {
  const auto betas = parse_range(options.betas, "--beta");
  const auto work = theorems::chained_optimize_work(
      options.objective.objective(), options.search, static_cast<std::int64_t>(betas.size()),
      static_cast<std::int64_t>(options.entries.size()));
  const auto parallel = start_run("phase-diagram", work.estimate, options.progress,
                                  static_cast<std::size_t>(work.ascents), "ascents", out);
  auto doc = new_document("phase-diagram");
  put_objective(doc, options.objective, false);
  doc["beta"] = betas;
  doc["entries"] = options.entries;
  put_search(doc, options.search);
  Json rows = Json::array(), stars = Json::array();
  Table table({"N", "beta", "k_optimal", "k*_law", "max_weight", "J", "one-hot J"});
  for (auto entries : options.entries) {
    const double star = theorems::critical_beta(entries);
    stars.push_back({{"entries", entries}, {"beta_star", star}});
    for (const auto& c : sweep(options, betas, entries, parallel)) {
      rows.push_back(cell_json(c));
      table.add_row(
          {std::to_string(entries), fixed(c.beta, 3), std::to_string(c.optimum.summary.k_effective),
           std::to_string(c.optimum.k_star_predicted), fixed(c.optimum.summary.max_weight, 6),
           fixed(c.optimum.objective, 6), fixed(c.optimum.onehot_objective, 6)});
    }
  }
  doc["rows"] = rows;
  doc["beta_star"] = stars;
  if (wants_table(options.json)) {
    out << "phase diagram, W=" << options.objective.window << " S=" << options.objective.stride
        << " (" << options.objective.model
        << " model): k_optimal = slots above 1% in the optimum, k*_law = argmax_k of the "
           "equal split\n";
    table.print(out);
    out << "\nbeta*(N) of the linear-retention model (T1a: one-hot optimal for beta <= beta*):\n";
    Table star_table({"N", "beta*"});
    for (const auto& s : stars) {
      star_table.add_row({std::to_string(s["entries"].get<std::int64_t>()),
                          fixed(s["beta_star"].get<double>(), 4)});
    }
    star_table.print(out);
  }
  write_json(options.json, doc);
  return kSuccess;
}

}  // namespace

void add_phase_diagram_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<PhaseDiagramOptions>();
  auto* cmd = app.add_subcommand(
      "phase-diagram", "Optimal k and max weight over (beta, N), and the critical beta*(N)");
  add_objective_options(*cmd, options->objective, false);
  cmd->add_option("--beta", options->betas, "Betas: a:b:step (inclusive) or a comma list")
      ->capture_default_str();
  cmd->add_option("--entries,-N", options->entries, "Entry counts N1,N2,... (entries in all)")
      ->delimiter(',')
      ->capture_default_str();
  add_search_options(*cmd, options->search,
                     "Random starts per cell besides the equal splits and the warm start");
  add_progress_option(*cmd, options->progress);
  add_json_option(*cmd, options->json);
  cmd->callback([options, &action] {
    auto objective = options->objective.objective();
    options->search.validate();
    require(!options->entries.empty(), "invalid --entries (give at least one N)");
    const auto betas = parse_range(options->betas, "--beta");
    for (double beta : betas) {
      objective.beta = beta;
      for (auto n : options->entries) {
        objective.entries = n;
        objective.validate();
      }
    }
    check_optimize_work(objective, options->search, static_cast<std::int64_t>(betas.size()),
                        static_cast<std::int64_t>(options->entries.size()));
    action = [options](std::ostream& out) { return run_phase_diagram(*options, out); };
  });
}

}  // namespace phasesim::cli
