// phasesim theorem concentration|lockin|diversity: a prediction of theory/THEORY.md, the
// numerical check, a verdict (exit 0 agree, 3 a counterexample inside the regime, 5 outside).
#include <memory>
#include <ostream>

#include "cli/command.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "cli/theory_options.hpp"
#include "phasesim/theorems/checks.hpp"

namespace phasesim::cli {
namespace {

// Every theorem document ends with the check's results and verdict; the table shows them.
template <typename Check>
int finish(Json& doc, const Check& check, const std::string& json, std::ostream& out) {
  doc.update(theorems::check_json(check));
  const auto& v = check.verdict;
  if (wants_table(json)) print_verdict(v, out);
  write_json(json, doc);
  return v.agree ? kSuccess : v.inside ? kPredictionFailed : kOutsideRegime;
}

struct ConcentrationOptions {
  ObjectiveOptions objective;
  theorems::ConcentrationCheckSettings check;
  bool progress = false;
  std::string json;
};

int run_concentration(const ConcentrationOptions& options, std::ostream& out) {
  const auto objective = options.objective.objective();
  const auto check =
      theorems::check_concentration(objective, options.check,
                                    start_optimize("theorem concentration", objective,
                                                   options.check.search, options.progress, out));
  auto doc = new_document("theorem concentration");
  put_objective(doc, options.objective);
  doc["weights"] = objective.weights();
  put_search(doc, options.check.search);
  doc["threshold"] = options.check.threshold;
  return finish(doc, check, options.json, out);
}

struct LockinOptions {
  ObjectiveOptions objective;
  DynamicsOptions dynamics{.inits = 4};  // four runs by default: lock-in is about every init
  int reweight_steps = 500;
  bool progress = false;
  std::string json;
};

int run_lockin(const LockinOptions& options, std::ostream& out) {
  const auto objective = options.objective.objective();
  const theorems::LockinSettings settings{options.dynamics.settings(), options.reweight_steps};
  const auto specs = options.dynamics.runs(objective.geometry.window);
  const auto parallel =
      start_run("theorem lockin", options.dynamics.estimate(objective, options.reweight_steps),
                options.progress, specs.size(), "runs", out);
  const auto check = theorems::check_lockin(objective, settings, specs, parallel);
  auto doc = new_document("theorem lockin");
  put_objective(doc, options.objective);
  put_dynamics(doc, options.dynamics);
  doc["reweight_steps"] = options.reweight_steps;
  return finish(doc, check, options.json, out);
}

struct DiversityTheoremOptions {
  DiversityModelOptions t3{{4, 12.0, 0.9, {1000.0}}, {64, 128, 256, 512, 1024}};
  theorems::DiversityCheckSettings check;
  std::string json;
};

int run_diversity_theorem(const DiversityTheoremOptions& options, std::ostream& out) {
  const auto check = theorems::check_diversity(options.t3.model, options.t3.heads, options.check);
  auto doc = new_document("theorem diversity");
  options.t3.put(doc);
  doc["tolerance"] = options.check.tolerance;
  return finish(doc, check, options.json, out);
}

void add_concentration(CLI::App& theorem, Action& action) {
  auto options = std::make_shared<ConcentrationOptions>();
  auto* cmd = theorem.add_subcommand(
      "concentration", "T1: the optimal gate is concentrated (one-hot in the linear model)");
  add_objective_options(*cmd, options->objective, true,
                        "Phase weights w0,w1,... of J (default uniform)");
  add_search_options(*cmd, options->check.search, "Random starts of the optimizer");
  cmd->add_option("--threshold", options->check.threshold, "Max weight that counts as concentrated")
      ->capture_default_str();
  add_progress_option(*cmd, options->progress);
  add_json_option(*cmd, options->json);
  cmd->callback([options, &action] {
    const auto objective = options->objective.objective();
    options->check.validate();
    check_optimize_work(objective, options->check.search);
    action = [options](std::ostream& out) { return run_concentration(*options, out); };
  });
}

void add_lockin(CLI::App& theorem, Action& action) {
  auto options = std::make_shared<LockinOptions>();
  auto* cmd = theorem.add_subcommand(
      "lockin", "T2: the winner is the initial argmax and stays when the phases are re-weighted");
  add_objective_options(*cmd, options->objective);
  add_dynamics_options(*cmd, options->dynamics, "Runs from K inits (random:SEED+i:SCALE)");
  cmd->add_option("--reweight-steps", options->reweight_steps,
                  "Steps after moving all phase weight to a phase the winner does not cover")
      ->capture_default_str();
  add_progress_option(*cmd, options->progress);
  add_json_option(*cmd, options->json);
  cmd->callback([options, &action] {
    const auto objective = options->objective.objective();
    require_at_least(options->reweight_steps, 0, "--reweight-steps");
    validate_dynamics_options(options->dynamics, objective, options->reweight_steps);
    theorems::validate_lockin(objective.geometry,
                              {options->dynamics.settings(), options->reweight_steps});
    action = [options](std::ostream& out) { return run_lockin(*options, out); };
  });
}

void add_diversity(CLI::App& theorem, Action& action) {
  auto options = std::make_shared<DiversityTheoremOptions>();
  auto* cmd = theorem.add_subcommand("diversity", "T3: the diversification gain is C/N + O(1/N^2)");
  add_diversity_model_options(*cmd, options->t3);
  cmd->add_option("--tolerance", options->check.tolerance,
                  "Allowed relative error of N*gap against C, and of the slope against -1")
      ->capture_default_str();
  add_json_option(*cmd, options->json);
  cmd->callback([options, &action] {
    options->t3.validate();
    options->check.validate();
    action = [options](std::ostream& out) { return run_diversity_theorem(*options, out); };
  });
}

}  // namespace

void add_theorem_command(CLI::App& app, Action& action) {
  auto* theorem = app.add_subcommand(
      "theorem", "State a prediction of theory/THEORY.md, check it, give a verdict (exit 0/3/5)");
  theorem->require_subcommand(1);
  add_concentration(*theorem, action);
  add_lockin(*theorem, action);
  add_diversity(*theorem, action);
}

}  // namespace phasesim::cli
