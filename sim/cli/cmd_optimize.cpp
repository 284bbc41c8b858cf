// phasesim optimize: the gate that maximizes J over the simplex (Theorem 1).
#include <memory>
#include <ostream>

#include "cli/command.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "cli/theory_options.hpp"
#include "phasesim/theorems/concentration.hpp"

namespace phasesim::cli {
namespace {

struct OptimizeOptions {
  theorems::OptimizeCommand command;
  bool progress = false;
  std::string json;
};

void print_optimum(const theorems::Objective& objective, const theorems::GateOptimum& best,
                   std::ostream& out) {
  Table gate({"slot", "phase", "weight"});
  for (std::size_t s = 0; s < best.gate.size(); ++s) {
    gate.add_row({std::to_string(s),
                  std::to_string(objective.geometry.phase_of_slot(static_cast<int>(s))),
                  fixed(best.gate[s], 6)});
  }
  gate.print(out);
  Table summary({"quantity", "value"});
  summary.add_row({"objective J", fixed(best.objective, 9)});
  summary.add_row({"one-hot J (slot " + std::to_string(best.onehot_slot) + ")",
                   fixed(best.onehot_objective, 9)});
  summary.add_row({"max weight", fixed(best.summary.max_weight, 6)});
  summary.add_row({"entropy (nats)", fixed(best.summary.entropy, 6)});
  summary.add_row({"k_effective (slots above 1%)", std::to_string(best.summary.k_effective)});
  summary.add_row({"k* predicted (equal-split law)", std::to_string(best.k_star_predicted)});
  summary.add_row({"best start", best.best_start});
  out << '\n';
  summary.print(out);
}

int run_optimize(const OptimizeOptions& options, std::ostream& out) {
  const auto& command = options.command;
  const auto objective = command.objective.objective();
  const auto work = command.work();
  const auto best = command.run(start_run("optimize", work.estimate, options.progress,
                                          static_cast<std::size_t>(work.ascents), "ascents", out));
  if (wants_table(options.json)) {
    out << "optimal gate, W=" << objective.geometry.window << " S=" << objective.geometry.stride
        << " beta=" << objective.beta << " N=" << objective.entries << " ("
        << command.objective.model << " model, " << best.starts << " starts)\n";
    print_optimum(objective, best, out);
  }
  write_json(options.json, command.document(best));
  return kSuccess;
}

}  // namespace

void add_optimize_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<OptimizeOptions>();
  auto* cmd = app.add_subcommand(
      "optimize", "The gate that maximizes J (L-BFGS on the logits, exact gradients, restarts)");
  add_objective_options(*cmd, options->command.objective, true,
                        "Phase weights w0,w1,... of J (default uniform)");
  add_search_options(*cmd, options->command.search,
                     "Random starts random:SEED+r:SCALE besides the equal splits");
  add_progress_option(*cmd, options->progress);
  add_json_option(*cmd, options->json);
  cmd->callback([options, &action] {
    options->command.validate();
    action = [options](std::ostream& out) { return run_optimize(*options, out); };
  });
}

}  // namespace phasesim::cli
