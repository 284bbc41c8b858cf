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
#include "phasesim/engines/engine.hpp"

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

  NiahSpec given_spec() const {
    auto s = run.given_spec();
    if (heads_given->count()) s.heads = heads;
    if (knockout_given->count()) s.knockout = knockout;
    if (!arch.empty()) s.architecture = load_architecture(arch);
    return s;
  }
};

void check_niah_work(const NiahRun& run, const Engine& engine, const NiahOptions& o) {
  const auto& s = o.run.spec;
  const auto heads = o.arch.empty() ? "--window " + std::to_string(s.geometry.window) +
                                          ", --heads " + std::to_string(run.model.heads())
                                    : "the heads of " + o.arch;
  check_work(heads + ", --context " + std::to_string(s.context) + ", " +
                 std::to_string(run.needles.trials()) + " trials, --engine " + engine.name(),
             engine.estimate(run), Parallel{o.run.threads}.team());
}

// Said before the run, so that a long run does not hide them. Found while parsing: the
// options' "given" state lives in the parser, which a demo or sweep action outlives.
std::vector<std::string> warnings(const NiahSpec& given, const NiahRun& run, const Engine& engine,
                                  const NiahOptions& o) {
  auto list = niah_warnings(given);
  if (const auto approximation = engine.approximation(run.model); !approximation.empty()) {
    list.insert(list.begin(), "--engine " + engine.name() + " computes " + approximation +
                                  ", which can be far off at --dim " + std::to_string(o.run.dim) +
                                  " (--engine fast or full computes the model itself)");
  }
  return list;
}

int run_niah_command(const NiahRun& run, const Engine& engine, const NiahOptions& o,
                     const std::vector<std::string>& warnings, std::ostream& out) {
  const auto said = warn("niah", warnings, out);
  announce_long_run("niah", engine.estimate(run), Parallel{o.run.threads}.team(), out);
  const auto start = std::chrono::steady_clock::now();
  const auto trials = engine.monte_carlo() ? run.needles.trials() : 0;
  const auto parallel = with_progress(Parallel{o.run.threads}, o.progress,
                                      static_cast<std::size_t>(trials), "trials", "niah", out);
  const auto result = run_niah(run, engine, parallel);
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  if (wants_table(o.run.json)) {
    print_niah_table(run, engine.name(), result, elapsed.count(), out);
  }
  auto doc = niah_document(run, engine.name(), engine.paths(run.model), result);
  doc["warnings"] = said;
  write_json(o.run.json, doc);
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
  add_progress_option(cmd, o.progress);
}

}  // namespace

void add_niah_command(CLI::App& app, Action& action,
                      std::shared_ptr<const EngineRegistry> engines) {
  auto options = std::make_shared<NiahOptions>();
  auto* cmd = app.add_subcommand("niah", "Per-phase needle-in-a-haystack accuracy (engines: " +
                                             join(engines->names(), ", ") + ")");
  add_options(*cmd, *options, *engines);
  cmd->callback([options, engines, &action] {
    const auto given = options->given_spec();
    const auto run = make_run(given);
    const auto& engine = engines->find(options->run.engine);
    engine.check(run.model);
    check_threads(options->run.threads);
    check_niah_work(run, engine, *options);
    action = [run, engines, &engine, options, said = warnings(given, run, engine, *options)](
                 std::ostream& out) { return run_niah_command(run, engine, *options, said, out); };
  });
}

}  // namespace phasesim::cli
