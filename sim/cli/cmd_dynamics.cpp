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
  ObjectiveOptions objective;
  DynamicsOptions dynamics;
  int reweight_at = -1;
  std::vector<double> weights;
  int record_every = 200;
  bool progress = false;
  std::string json;
};

theorems::DynamicsSettings settings(const DynamicsCommandOptions& options,
                                    const theorems::Objective& objective) {
  auto settings = options.dynamics.settings();
  settings.reweight_at = options.reweight_at;
  if (options.reweight_at >= 0) {
    settings.reweight =
        theorems::normalized_phase_weights(options.weights, objective.geometry.stride);
  }
  settings.record_every = options.record_every;
  return settings;
}

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
  const auto objective = options.objective.objective();
  const auto specs = options.dynamics.runs(objective.geometry.window);
  const auto parallel = start_run("dynamics", options.dynamics.estimate(objective),
                                  options.progress, specs.size(), "runs", out);
  const auto batch =
      theorems::run_dynamics_batch(objective, specs, settings(options, objective), parallel);

  auto doc = new_document("dynamics");
  put_objective(doc, options.objective);
  put_dynamics(doc, options.dynamics);
  doc["reweight_at"] = options.reweight_at;
  doc["weights"] = options.weights;
  doc["record_every"] = options.record_every;
  doc.update(theorems::dynamics_batch_json(batch));

  if (wants_table(options.json)) {
    out << "dynamics, W=" << objective.geometry.window << " S=" << objective.geometry.stride
        << " beta=" << objective.beta << " N=" << objective.entries << ", "
        << options.dynamics.update << " ascent, lr " << options.dynamics.lr << ", "
        << options.dynamics.steps << " steps\n";
    if (batch.runs.size() == 1) {
      print_trajectory(batch.runs.front().result, out);
    } else {
      print_runs(batch.runs, out);
    }
    out << "\nfinal slot = initial argmax in " << batch.kept << " of " << batch.runs.size()
        << " runs\n";
  }
  write_json(options.json, doc);
  return kSuccess;
}

void validate(const DynamicsCommandOptions& options) {
  const auto objective = options.objective.objective();
  validate_dynamics_options(options.dynamics, objective);
  require_at_least(options.record_every, 1, "--record-every");
  require(options.reweight_at >= -1, "invalid --reweight-at " +
                                         std::to_string(options.reweight_at) +
                                         " (must be >= 0, or -1 for none)");
  require(options.reweight_at < options.dynamics.steps,
          "invalid --reweight-at " + std::to_string(options.reweight_at) +
              " (must be below --steps " + std::to_string(options.dynamics.steps) + ")");
  require(options.reweight_at < 0 || !options.weights.empty(),
          "invalid --reweight-at " + std::to_string(options.reweight_at) +
              " (needs --weights, the phase weights from then on)");
  require(options.reweight_at >= 0 || options.weights.empty(),
          "invalid --weights (they apply from --reweight-at T; give T)");
  if (!options.weights.empty())
    theorems::normalized_phase_weights(options.weights, objective.geometry.stride);
}

}  // namespace

void add_dynamics_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<DynamicsCommandOptions>();
  auto* cmd = app.add_subcommand(
      "dynamics", "Gradient ascent on the gate logits from random inits: lock-in (T2)");
  add_objective_options(*cmd, options->objective);
  add_dynamics_options(*cmd, options->dynamics,
                       "Runs from K inits (random:SEED+i:SCALE for a random --init): batch mode");
  cmd->add_option("--reweight-at", options->reweight_at,
                  "After this many steps switch J's phase weights to --weights (-1: never)")
      ->capture_default_str();
  cmd->add_option("--weights", options->weights, "Phase weights w0,w1,... from --reweight-at on")
      ->delimiter(',');
  cmd->add_option("--record-every", options->record_every, "Trajectory points every K steps")
      ->capture_default_str();
  add_progress_option(*cmd, options->progress);
  add_json_option(*cmd, options->json);
  cmd->callback([options, &action] {
    validate(*options);
    action = [options](std::ostream& out) { return run_dynamics_command(*options, out); };
  });
}

}  // namespace phasesim::cli
