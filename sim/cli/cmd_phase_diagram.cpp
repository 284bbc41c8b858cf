// phasesim phase-diagram: the table of the optimal k and max weight over (beta, N), and
// beta*(N).
#include <ostream>

#include "cli/door.hpp"
#include "phasesim/commands/theorems.hpp"

namespace phasesim::cli {
namespace {

void print_phase_diagram(const commands::PhaseDiagram& command,
                         const std::vector<theorems::PhaseCell>& cells, double, std::ostream& out) {
  const auto& objective = command.options().command.objective;
  Table table({"N", "beta", "k_optimal", "k*_law", "max_weight", "J", "one-hot J"});
  for (const auto& c : cells) {
    table.add_row(
        {std::to_string(c.entries), fixed(c.beta, 3), std::to_string(c.optimum.summary.k_effective),
         std::to_string(c.optimum.k_star_predicted), fixed(c.optimum.summary.max_weight, 6),
         fixed(c.optimum.objective, 6), fixed(c.optimum.onehot_objective, 6)});
  }
  out << "phase diagram, W=" << objective.window << " S=" << objective.stride << " ("
      << objective.model
      << " model): k_optimal = slots above 1% in the optimum, k*_law = argmax_k of the "
         "equal split\n";
  table.print(out);
  out << "\nbeta*(N) of the linear-retention model (T1a: one-hot optimal for beta <= beta*):\n";
  Table star_table({"N", "beta*"});
  const auto doc = command.document(cells);
  for (const auto& s : doc["beta_star"]) {
    star_table.add_row(
        {std::to_string(s["entries"].get<std::int64_t>()), fixed(s["beta_star"].get<double>(), 4)});
  }
  star_table.print(out);
}

}  // namespace

void add_phase_diagram_command(CLI::App& app, Action& action,
                               const commands::Environment& environment) {
  add_command<commands::PhaseDiagram>(app, action, environment, {print_phase_diagram});
}

}  // namespace phasesim::cli
