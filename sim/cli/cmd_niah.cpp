// phasesim niah: per-phase needle-in-a-haystack accuracy of a compressed cache.
#include <chrono>
#include <memory>
#include <ostream>

#include "cli/command.hpp"
#include "cli/niah_options.hpp"
#include "cli/niah_table.hpp"
#include "cli/output.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/engines/engine.hpp"

namespace phasesim::cli {
namespace {

// The options as CLI11 fills them; `given` tells which ones the user gave.
struct NiahOptions {
  RunOptions run;
  int heads = 1;
  int knockout = 0;
  std::string arch;
  const CLI::Option *heads_given, *knockout_given;

  NiahSpec given_spec() const {
    auto s = run.given_spec();
    if (heads_given->count()) s.heads = heads;
    if (knockout_given->count()) s.knockout = knockout;
    if (!arch.empty()) s.architecture = load_architecture(arch);
    return s;
  }
};

int run_niah_command(const NiahRun& run, const Engine& engine, const NiahOptions& o,
                     std::ostream& out) {
  const auto start = std::chrono::steady_clock::now();
  const auto result = run_niah(run, engine, Parallel{o.run.threads});
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  if (wants_table(o.run.json)) {
    print_niah_table(run, engine.name(), result, elapsed.count(), out);
  }
  write_json(o.run.json, niah_document(run, engine.name(), engine.paths(run.model), result));
  return kSuccess;
}

void add_options(CLI::App& cmd, NiahOptions& o, const EngineRegistry& engines) {
  add_geometry_options(cmd, o.run.spec.geometry);
  o.heads_given = cmd.add_option("--heads", o.heads, "Heads H (replicates a single --gates spec)")
                      ->capture_default_str();
  cmd.add_option("--gates", o.run.spec.gates,
                 std::string("Gate per head, ';'-separated, or @file.json: ") + kGateFormsHelp)
      ->capture_default_str();
  add_arch_option(cmd, o.arch, {"--window", "--stride", "--heads", "--gates"});
  add_run_options(cmd, o.run, engines);
  o.knockout_given = cmd.add_option(
      "--knockout", o.knockout, "Also report each group without head H (0-based, over all layers)");
}

}  // namespace

void add_niah_command(CLI::App& app, Action& action,
                      std::shared_ptr<const EngineRegistry> engines) {
  auto options = std::make_shared<NiahOptions>();
  auto* cmd = app.add_subcommand("niah", "Per-phase needle-in-a-haystack accuracy (engines: " +
                                             join(engines->names(), ", ") + ")");
  add_options(*cmd, *options, *engines);
  cmd->callback([options, engines, &action] {
    const auto run = make_run(options->given_spec());
    const auto& engine = engines->find(options->run.engine);
    engine.check(run.model);
    check_threads(options->run.threads);
    action = [run, engines, &engine, options](std::ostream& out) {
      return run_niah_command(run, engine, *options, out);
    };
  });
}

}  // namespace phasesim::cli
