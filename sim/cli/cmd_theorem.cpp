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
int finish(const Json& doc, const Check& check, const std::string& json, std::ostream& out) {
  const auto& v = check.verdict;
  if (wants_table(json)) print_verdict(v, out);
  write_json(json, doc);
  return v.agree ? kSuccess : v.inside ? kPredictionFailed : kOutsideRegime;
}

// A check's command and the CLI's own options.
template <typename Command>
struct TheoremOptions {
  Command command;
  bool progress = false;
  std::string json;
};

int run_lockin(const TheoremOptions<theorems::LockinCommand>& options, std::ostream& out) {
  const auto& command = options.command;
  const auto parallel = start_run("theorem lockin", command.estimate(), options.progress,
                                  command.runs().size(), "runs", out);
  const auto check = command.run(parallel);
  return finish(command.document(check), check, options.json, out);
}

int run_concentration(const TheoremOptions<theorems::ConcentrationCommand>& options,
                      std::ostream& out) {
  const auto& command = options.command;
  const auto work = command.work();
  const auto check = command.run(start_run("theorem concentration", work.estimate, options.progress,
                                           static_cast<std::size_t>(work.ascents), "ascents", out));
  return finish(command.document(check), check, options.json, out);
}

// The check's table and document, for the check without progress (diversity: exact sums).
template <typename Command>
int run_check(const TheoremOptions<Command>& options, std::ostream& out) {
  const auto check = options.command.run(Parallel{});
  return finish(options.command.document(check), check, options.json, out);
}

void add_concentration(CLI::App& theorem, Action& action) {
  auto options = std::make_shared<TheoremOptions<theorems::ConcentrationCommand>>();
  auto& command = options->command;
  auto* cmd = theorem.add_subcommand(
      "concentration", "T1: the optimal gate is concentrated (one-hot in the linear model)");
  add_objective_options(*cmd, command.objective, true,
                        "Phase weights w0,w1,... of J (default uniform)");
  add_search_options(*cmd, command.check.search, "Random starts of the optimizer");
  cmd->add_option("--threshold", command.check.threshold, "Max weight that counts as concentrated")
      ->capture_default_str();
  add_progress_option(*cmd, options->progress);
  add_json_option(*cmd, options->json);
  cmd->callback([options, &action] {
    options->command.validate();
    action = [options](std::ostream& out) { return run_concentration(*options, out); };
  });
}

void add_lockin(CLI::App& theorem, Action& action) {
  auto options = std::make_shared<TheoremOptions<theorems::LockinCommand>>();
  auto& command = options->command;
  auto* cmd = theorem.add_subcommand(
      "lockin", "T2: the winner is the initial argmax and stays when the phases are re-weighted");
  add_objective_options(*cmd, command.objective);
  add_dynamics_options(*cmd, command.dynamics, "Runs from K inits (random:SEED+i:SCALE)");
  cmd->add_option("--reweight-steps", command.reweight_steps,
                  "Steps after moving all phase weight to a phase the winner does not cover")
      ->capture_default_str();
  add_progress_option(*cmd, options->progress);
  add_json_option(*cmd, options->json);
  cmd->callback([options, &action] {
    options->command.validate();
    action = [options](std::ostream& out) { return run_lockin(*options, out); };
  });
}

void add_diversity(CLI::App& theorem, Action& action) {
  auto options = std::make_shared<TheoremOptions<theorems::DiversityTheoremCommand>>();
  auto& command = options->command;
  auto* cmd = theorem.add_subcommand("diversity", "T3: the diversification gain is C/N + O(1/N^2)");
  add_diversity_model_options(*cmd, command.t3);
  cmd->add_option("--tolerance", command.check.tolerance,
                  "Allowed relative error of N*gap against C, and of the slope against -1")
      ->capture_default_str();
  add_json_option(*cmd, options->json);
  cmd->callback([options, &action] {
    options->command.validate();
    action = [options](std::ostream& out) { return run_check(*options, out); };
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
