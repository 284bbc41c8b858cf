// phasesim dynamics: the table of gradient ascent on the gate logits (Theorem 2).
#include <ostream>

#include "cli/door.hpp"
#include "phasesim/commands/theorems.hpp"

namespace phasesim::cli {
namespace {

void print_trajectory(const theorems::DynamicsRun& run, std::ostream& out) {
  Table table({"step", "J", "max_weight", "argmax", "gate"});
  for (const auto& p : run.trajectory) {
    const auto s = theorems::summarize_gate(p.gate);
    std::string gate;
    for (double g : p.gate) gate += (gate.empty() ? "" : " ") + fixed(g, 4);
    table.add_row({std::to_string(p.step), fixed(p.objective, 6), fixed(s.max_weight, 4),
                   std::to_string(s.argmax), gate});
  }
  table.print(out);
}

void print_runs(const std::vector<theorems::BatchRun>& runs, std::ostream& out) {
  Table table({"init", "content_seed", "init_argmax", "final_argmax", "final_max_weight", "J"});
  for (const auto& run : runs) {
    table.add_row({run.spec.init, std::to_string(run.spec.content_seed),
                   std::to_string(run.result.initial.argmax),
                   std::to_string(run.result.final.argmax), fixed(run.result.final.max_weight, 4),
                   fixed(run.result.final_objective, 6)});
  }
  table.print(out);
}

void print_dynamics(const commands::Dynamics& command, const theorems::DynamicsBatch& batch, double,
                    std::ostream& out) {
  const auto& d = command.options().command.dynamics;
  const auto objective = command.options().command.objective.objective();
  out << "dynamics, W=" << objective.geometry.window << " S=" << objective.geometry.stride
      << " beta=" << objective.beta << " N=" << objective.entries << ", " << d.update
      << " ascent, lr " << d.lr << ", " << counted(d.steps, "step") << "\n";
  if (batch.runs.size() == 1) {
    print_trajectory(batch.runs.front().result, out);
  } else {
    print_runs(batch.runs, out);
  }
  out << "\nfinal slot = initial argmax in " << batch.kept << " of "
      << counted(batch.runs.size(), "run") << "\n";
}

}  // namespace

void add_dynamics_command(CLI::App& app, Action& action, const commands::Environment& environment) {
  add_command<commands::Dynamics>(app, action, environment, {print_dynamics});
}

}  // namespace phasesim::cli
