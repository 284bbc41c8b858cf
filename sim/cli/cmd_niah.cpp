// phasesim niah: per-phase needle-in-a-haystack accuracy of a compressed cache.
#include <chrono>
#include <memory>
#include <ostream>

#include "cli/command.hpp"
#include "cli/niah_table.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/engines/engine.hpp"

namespace phasesim::cli {
namespace {

// The options as CLI11 fills them; `given` tells which ones the user gave.
struct NiahOptions {
  NiahSpec spec;
  int heads = 1;
  double beta = 4.5;
  int dim = 0;
  int knockout = 0;
  int threads = 0;
  bool progress = false;
  std::string engine = "fast";
  std::string json;
  const CLI::Option *heads_given, *beta_given, *dim_given, *knockout_given;

  NiahSpec given_spec() const {
    auto s = spec;
    auto value = [](const CLI::Option* o, auto v) {
      return o->count() ? std::optional(v) : std::nullopt;
    };
    s.heads = value(heads_given, heads);
    s.beta = value(beta_given, beta);
    s.dim = value(dim_given, dim);
    s.knockout = value(knockout_given, knockout);
    return s;
  }
};

void check_niah_work(const NiahRun& run, const Engine& engine, const NiahOptions& o) {
  const auto& s = o.spec;
  check_work("--window " + std::to_string(s.geometry.window) + ", --heads " +
                 std::to_string(run.model.heads()) + ", --context " + std::to_string(s.context) +
                 ", " + std::to_string(run.needles.trials()) + " trials, --engine " + engine.name(),
             engine.estimate(run), Parallel{o.threads}.team());
}

// Said before the run, so that a long run does not hide them.
std::vector<std::string> warnings(const NiahRun& run, const Engine& engine, const NiahOptions& o) {
  auto list = niah_warnings(o.given_spec());
  if (const auto approximation = engine.approximation(run.model); !approximation.empty()) {
    list.insert(list.begin(), "--engine " + engine.name() + " computes " + approximation +
                                  ", which can be far off at --dim " + std::to_string(o.dim) +
                                  " (--engine fast or full computes the model itself)");
  }
  return list;
}

int run_niah_command(const NiahRun& run, const Engine& engine, const NiahOptions& o,
                     std::ostream& out) {
  const auto said = warn("niah", warnings(run, engine, o), out);
  announce_long_run("niah", engine.estimate(run), Parallel{o.threads}.team(), out);
  const auto start = std::chrono::steady_clock::now();
  const auto trials = engine.monte_carlo() ? run.needles.trials() : 0;
  const auto parallel = with_progress(Parallel{o.threads}, o.progress,
                                      static_cast<std::size_t>(trials), "trials", "niah", out);
  const auto result = run_niah(run, engine, parallel);
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
  if (wants_table(o.json)) print_niah_table(run, engine.name(), result, elapsed.count(), out);
  auto doc = niah_document(run, engine.name(), engine.paths(run.model), result);
  doc["warnings"] = said;
  write_json(o.json, doc);
  return kSuccess;
}

void add_options(CLI::App& cmd, NiahOptions& o, const EngineRegistry& engines) {
  auto& s = o.spec;
  add_geometry_options(cmd, s.geometry);
  o.heads_given = cmd.add_option("--heads", o.heads, "Heads H (replicates a single --gates spec)")
                      ->capture_default_str();
  cmd.add_option("--gates", s.gates,
                 std::string("Gate per head, ';'-separated, or @file.json: ") + kGateFormsHelp)
      ->capture_default_str();
  o.beta_given = cmd.add_option("--beta", o.beta, "Standardized channel: signal strength beta")
                     ->capture_default_str();
  o.dim_given =
      cmd.add_option("--dim", o.dim, "Full-vector model: key dimension d (instead of --beta)");
  cmd.add_option("--query-noise", s.query_noise, "Full-vector model: query noise sigma_q");
  cmd.add_option("--content-noise", s.content_noise, "Content noise tau of the gate")
      ->capture_default_str();
  cmd.add_flag("--rms-norm", s.rms_norm, "RMS-normalize every pooled entry");
  cmd.add_option("--context,-L", s.context, "Context length L in tokens")->capture_default_str();
  cmd.add_option("--groups,-G", s.groups, "Groups G (group = needle position mod G)")
      ->capture_default_str();
  cmd.add_option("--prompts,-P", s.prompts, "Prompts (trials) per group")->capture_default_str();
  cmd.add_option("--combine", s.combine, "Combine heads: any or vote:K")->capture_default_str();
  o.knockout_given =
      cmd.add_option("--knockout", o.knockout, "Also report each group without head H (0-based)");
  cmd.add_option("--engine", o.engine, join(engines.names(), ", "))->capture_default_str();
  cmd.add_option("--seed", s.seed, "Random seed")->capture_default_str();
  add_threads_option(cmd, o.threads);
  add_progress_option(cmd, o.progress);
  add_json_option(cmd, o.json);
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
    const auto& engine = engines->find(options->engine);
    engine.check(run.model);
    check_threads(options->threads);
    check_niah_work(run, engine, *options);
    action = [run, engines, &engine, options](std::ostream& out) {
      return run_niah_command(run, engine, *options, out);
    };
  });
}

}  // namespace phasesim::cli
