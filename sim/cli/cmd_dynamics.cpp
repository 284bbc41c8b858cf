// phasesim dynamics: gradient ascent on the gate logits from random inits (Theorem 2).
#include <memory>
#include <ostream>

#include "cli/command.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "cli/theory_options.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/theorems/dynamics_batch.hpp"

namespace phasesim::cli {
namespace {

struct DynamicsCommandOptions {
  theorems::DynamicsCommand command;
  bool progress = false;
  std::string json;
};

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

int run_dynamics_command(const DynamicsCommandOptions& options, std::ostream& out) {
  const auto& command = options.command;
  const auto objective = command.objective.objective();
  const auto runs = command.dynamics.runs(objective.geometry.window).size();
  const auto batch =
      command.run(start_run("dynamics", command.estimate(), options.progress, runs, "runs", out));
  if (wants_table(options.json)) {
    const auto& d = command.dynamics;
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
  write_json(options.json, command.document(batch));
  return kSuccess;
}

}  // namespace

void add_dynamics_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<DynamicsCommandOptions>();
  auto* cmd = app.add_subcommand(
      "dynamics", "Gradient ascent on the gate logits from random inits: lock-in (T2)");
  auto& command = options->command;
  add_objective_options(*cmd, command.objective);
  add_dynamics_options(*cmd, command.dynamics,
                       "Runs from K inits (random:SEED+i:SCALE for a random --init): batch mode");
  cmd->add_option("--reweight-at", command.reweight_at,
                  "After this many steps switch J's phase weights to --weights (-1: never)")
      ->capture_default_str();
  cmd->add_option("--weights", command.weights, "Phase weights w0,w1,... from --reweight-at on")
      ->delimiter(',');
  cmd->add_option("--record-every", command.record_every, "Trajectory points every K steps")
      ->capture_default_str();
  add_progress_option(*cmd, options->progress);
  add_json_option(*cmd, options->json);
  cmd->callback([options, &action] {
    options->command.validate();
    action = [options](std::ostream& out) { return run_dynamics_command(*options, out); };
  });
}

}  // namespace phasesim::cli
