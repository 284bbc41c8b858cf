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

struct PhaseDiagramOptions {
  theorems::PhaseDiagramCommand command;
  bool progress = false;
  std::string json;
};

int run_phase_diagram(const PhaseDiagramOptions& options, std::ostream& out) {
  const auto& command = options.command;
  const auto work = command.work();
  const auto cells = command.run(start_run("phase-diagram", work.estimate, options.progress,
                                           static_cast<std::size_t>(work.ascents), "ascents", out));
  const auto doc = command.document(cells);
  if (wants_table(options.json)) {
    Table table({"N", "beta", "k_optimal", "k*_law", "max_weight", "J", "one-hot J"});
    for (const auto& c : cells) {
      table.add_row({std::to_string(c.entries), fixed(c.beta, 3),
                     std::to_string(c.optimum.summary.k_effective),
                     std::to_string(c.optimum.k_star_predicted),
                     fixed(c.optimum.summary.max_weight, 6), fixed(c.optimum.objective, 6),
                     fixed(c.optimum.onehot_objective, 6)});
    }
    out << "phase diagram, W=" << command.objective.window << " S=" << command.objective.stride
        << " (" << command.objective.model
        << " model): k_optimal = slots above 1% in the optimum, k*_law = argmax_k of the "
           "equal split\n";
    table.print(out);
    out << "\nbeta*(N) of the linear-retention model (T1a: one-hot optimal for beta <= beta*):\n";
    Table star_table({"N", "beta*"});
    for (const auto& s : doc["beta_star"]) {
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
  auto& command = options->command;
  add_objective_options(*cmd, command.objective, false);
  cmd->add_option("--beta", command.betas, "Betas: a:b:step (inclusive) or a comma list")
      ->capture_default_str();
  cmd->add_option("--entries,-N", command.entries, "Entry counts N1,N2,... (entries in all)")
      ->delimiter(',')
      ->capture_default_str();
  add_search_options(*cmd, command.search,
                     "Random starts per cell besides the equal splits and the warm start");
  add_progress_option(*cmd, options->progress);
  add_json_option(*cmd, options->json);
  cmd->callback([options, &action] {
    options->command.validate();
    action = [options](std::ostream& out) { return run_phase_diagram(*options, out); };
  });
}

}  // namespace phasesim::cli
