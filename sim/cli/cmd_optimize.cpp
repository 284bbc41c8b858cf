// phasesim optimize: the table of the gate that maximizes J (Theorem 1).
#include <ostream>

#include "cli/door.hpp"
#include "phasesim/commands/theorems.hpp"

namespace phasesim::cli {
namespace {

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

void print_optimize(const commands::Optimize& command, const theorems::GateOptimum& best, double,
                    std::ostream& out) {
  const auto& options = command.options().command.objective;
  const auto objective = options.objective();
  out << "optimal gate, W=" << objective.geometry.window << " S=" << objective.geometry.stride
      << " beta=" << objective.beta << " N=" << objective.entries << " (" << options.model
      << " model, " << best.starts << " starts)\n";
  print_optimum(objective, best, out);
}

}  // namespace

void add_optimize_command(CLI::App& app, Action& action, const commands::Environment& environment) {
  add_command<commands::Optimize>(app, action, environment, {print_optimize});
}

}  // namespace phasesim::cli
