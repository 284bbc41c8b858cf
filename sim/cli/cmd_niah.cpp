// phasesim niah: per-phase needle-in-a-haystack accuracy of a compressed cache.
#include <chrono>
#include <memory>
#include <ostream>

#include "cli/command.hpp"
#include "cli/niah_options.hpp"
#include "cli/niah_table.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/engines/plan.hpp"

namespace phasesim::cli {
namespace {

// The options as CLI11 fills them; `given` tells which ones the user gave.
struct NiahOptions {
  RunOptions run;
  int heads = 1;
  int knockout = 0;
  bool progress = false;
  std::string arch;
  const CLI::Option *heads_given, *knockout_given;

  niah::NiahSpec given_spec() const {
    auto s = run.given_spec();
    if (heads_given->count()) s.heads = heads;
    if (knockout_given->count()) s.knockout = knockout;
    if (!arch.empty()) s.architecture = niah::load_architecture(arch);
    return s;
  }
};

// The plan is made while parsing: its warnings need the options' "given" state, which lives
// in the parser that a demo or sweep action outlives.
int run_niah_command(const engines::NiahPlan& plan, const NiahOptions& o, std::ostream& out) {
  const auto& run = plan.run();
  const auto& engine = plan.engine();
  warn("niah", plan.warnings(), out);  // before a long run can hide them
  const Parallel threads{o.run.threads};
  announce_long_run("niah", plan.estimate(), threads.team(), out);
  const auto start = std::chrono::steady_clock::now();
  const auto trials = engine.monte_carlo() ? run.needles.trials() : 0;
  const auto parallel =
      with_progress(threads, o.progress, static_cast<std::size_t>(trials), "trials", "niah", out);
  const auto result = engines::run_niah(plan, parallel);
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  if (wants_table(o.run.json)) {
    print_niah_table(run, engine.name(), result, elapsed.count(), out);
  }
  write_json(o.run.json, engines::niah_plan_document(plan, result));
  return kSuccess;
}

void add_options(CLI::App& cmd, NiahOptions& o, const engines::EngineRegistry& registry) {
  add_geometry_options(cmd, o.run.spec.geometry);
  o.heads_given = cmd.add_option("--heads", o.heads, "Heads H (replicates a single --gates spec)")
                      ->capture_default_str();
  cmd.add_option("--gates,--gate", o.run.spec.gates,
                 std::string("Gate per head, ';'-separated, or @file.json: ") + kGateFormsHelp)
      ->capture_default_str();
  cmd.add_option("--split-rho", o.run.spec.split_rho,
                 "Correlation of a token's keys in its entries' newer and older slots (split "
                 "projections, MODEL.md section 9; 1: one projection; an architecture file "
                 "gives split_rho per layer or head)")
      ->capture_default_str();
  add_arch_option(cmd, o.arch, {"--window", "--stride", "--heads", "--gates", "--split-rho"});
  add_run_options(cmd, o.run, registry);
  o.knockout_given = cmd.add_option(
      "--knockout", o.knockout, "Also report each group without head H (0-based, over all layers)");
  add_progress_option(cmd, o.progress);
}

}  // namespace

void add_niah_command(CLI::App& app, Action& action,
                      std::shared_ptr<const engines::EngineRegistry> registry) {
  auto options = std::make_shared<NiahOptions>();
  auto* cmd = app.add_subcommand("niah", "Per-phase needle-in-a-haystack accuracy (engines: " +
                                             join(registry->names(), ", ") + ")");
  add_options(*cmd, *options, *registry);
  cmd->callback([options, registry, &action] {
    const auto& engine = registry->find(options->run.engine);
    check_threads(options->run.threads);
    auto plan = std::make_shared<const engines::NiahPlan>(
        engines::prepare(options->given_spec(), engine, Parallel{options->run.threads}.team()));
    action = [plan, registry, options](std::ostream& out) {
      return run_niah_command(*plan, *options, out);
    };
  });
}

}  // namespace phasesim::cli
