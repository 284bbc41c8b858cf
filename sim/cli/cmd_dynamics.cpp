// phasesim dynamics: gradient ascent on the gate logits from random inits (Theorem 2).
#include <memory>
#include <ostream>

#include "cli/command.hpp"
#include "cli/output.hpp"
#include "cli/theory_options.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/model/gate.hpp"

namespace phasesim::cli {
namespace {

struct DynamicsCommandOptions {
  ObjectiveOptions objective;
  DynamicsOptions dynamics;
  std::string init = "random:1:0.1";
  int inits = 1;
  int reweight_at = -1;
  std::vector<double> weights;
  int record_every = 200;
  std::string json;
};

struct Run {
  RunSpec spec;
  DynamicsRun result;
};

// inits x content seeds, each run sequential, the runs in parallel (deterministic:
// every run has its own seeds).
std::vector<Run> run_all(const DynamicsCommandOptions& options, const Objective& objective) {
  std::vector<Run> runs;
  for (auto& spec : run_specs(options.init, options.inits, options.dynamics.content_seeds,
                              objective.geometry.window)) {
    runs.push_back({std::move(spec), {}});
  }
  const auto count = static_cast<std::int64_t>(runs.size());
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t k = 0; k < count; ++k) {
    auto& run = runs[static_cast<std::size_t>(k)];
    auto settings = options.dynamics.settings(run.spec.content_seed);
    settings.reweight_at = options.reweight_at;
    if (options.reweight_at >= 0) {
      settings.reweight = normalized_phase_weights(options.weights, objective.geometry.stride);
    }
    settings.record_every = options.record_every;
    run.result =
        run_dynamics(objective, initial_logits(run.spec.init, objective.geometry.window), settings);
  }
  return runs;
}

Json run_json(const Run& run) {
  const auto& r = run.result;
  return {{"init", run.spec.init},
          {"content_seed", run.spec.content_seed},
          {"init_argmax", r.initial.argmax},
          {"final_argmax", r.final.argmax},
          {"final_max_weight", r.final.max_weight},
          {"final_objective", r.final_objective},
          {"k_effective", r.final.k_effective},
          {"order_condition", r.order_condition},
          {"argmax_at_reweight", r.at_reweight.argmax},
          {"max_weight_at_reweight", r.at_reweight.max_weight},
          {"evaluations", r.evaluations}};
}

void print_trajectory(const DynamicsRun& run, std::ostream& out) {
  Table table({"step", "J", "max_weight", "argmax", "gate"});
  for (const auto& p : run.trajectory) {
    const auto s = summarize_gate(p.gate);
    std::string gate;
    for (double g : p.gate) gate += (gate.empty() ? "" : " ") + fixed(g, 4);
    table.add_row({std::to_string(p.step), fixed(p.objective, 6), fixed(s.max_weight, 4),
                   std::to_string(s.argmax), gate});
  }
  table.print(out);
}

void print_runs(const std::vector<Run>& runs, std::ostream& out) {
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
  const auto runs = run_all(options, objective);
  int kept = 0;
  Json list = Json::array();
  for (const auto& run : runs) {
    kept += run.result.final.argmax == run.result.initial.argmax ? 1 : 0;
    list.push_back(run_json(run));
  }
  const auto& first = runs.front().result;

  auto doc = new_document("dynamics");
  put_objective(doc, options.objective);
  put_dynamics(doc, options.dynamics);
  doc["init"] = options.init;
  doc["inits"] = options.inits;
  doc["reweight_at"] = options.reweight_at;
  doc["weights"] = options.weights;
  doc["record_every"] = options.record_every;
  Json trajectory = Json::array();
  for (const auto& p : first.trajectory) {
    trajectory.push_back({{"step", p.step}, {"objective", p.objective}, {"gate", p.gate}});
  }
  doc["trajectory"] = trajectory;
  doc["init_argmax"] = first.initial.argmax;
  doc["final_argmax"] = first.final.argmax;
  doc["final_max_weight"] = first.final.max_weight;
  doc["runs"] = list;
  doc["lock_in_count"] = kept;
  doc["runs_total"] = runs.size();
  doc["lock_in_fraction"] = static_cast<double>(kept) / static_cast<double>(runs.size());

  if (wants_table(options.json)) {
    out << "dynamics, W=" << objective.geometry.window << " S=" << objective.geometry.stride
        << " beta=" << objective.beta << " N=" << objective.entries << ", "
        << options.dynamics.update << " ascent, lr " << options.dynamics.lr << ", "
        << options.dynamics.steps << " steps\n";
    if (runs.size() == 1) {
      print_trajectory(first, out);
    } else {
      print_runs(runs, out);
    }
    out << "\nfinal slot = initial argmax in " << kept << " of " << runs.size() << " runs\n";
  }
  write_json(options.json, doc);
  return kSuccess;
}

void validate(const DynamicsCommandOptions& options) {
  const auto objective = options.objective.objective();
  validate_dynamics_options(options.dynamics, objective);
  run_specs(options.init, options.inits, options.dynamics.content_seeds, objective.geometry.window);
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
    normalized_phase_weights(options.weights, objective.geometry.stride);
}

}  // namespace

void add_dynamics_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<DynamicsCommandOptions>();
  auto* cmd = app.add_subcommand(
      "dynamics", "Gradient ascent on the gate logits from random inits: lock-in (T2)");
  add_objective_options(*cmd, options->objective);
  add_dynamics_options(*cmd, options->dynamics);
  cmd->add_option("--init", options->init, std::string("Initial gate: ") + kGateFormsHelp)
      ->capture_default_str();
  cmd->add_option("--inits", options->inits,
                  "Runs from K inits (random:SEED+i:SCALE for a random --init): batch mode")
      ->capture_default_str();
  cmd->add_option("--reweight-at", options->reweight_at,
                  "After this many steps switch J's phase weights to --weights (-1: never)")
      ->capture_default_str();
  cmd->add_option("--weights", options->weights, "Phase weights w0,w1,... from --reweight-at on")
      ->delimiter(',');
  cmd->add_option("--record-every", options->record_every, "Trajectory points every K steps")
      ->capture_default_str();
  add_json_option(*cmd, options->json);
  cmd->callback([options, &action] {
    validate(*options);
    action = [options](std::ostream& out) { return run_dynamics_command(*options, out); };
  });
}

}  // namespace phasesim::cli
