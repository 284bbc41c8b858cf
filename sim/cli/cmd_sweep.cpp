// phasesim sweep: run a command over a grid of options, in parallel, resumably.
//
// The sweep library (phasesim/sweep/run.hpp) does the work; this file declares the options,
// hands the library the CLI's parser for the cells' command lines (sweep_cells), shows the progress
// and prints the summary.
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <iostream>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/interrupt.hpp"
#include "cli/output.hpp"
#include "cli/progress.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/core/job.hpp"
#include "phasesim/sweep/run.hpp"

namespace phasesim::cli {
namespace {

struct SweepOptions {
  std::string file;
  std::string out;
  bool resume = false;
  int threads = 0;
};

// Checking every cell takes about a millisecond each: a large grid shows its progress, after
// the first second so that small sweeps stay quiet.
std::function<void(std::size_t, std::size_t)> checking_progress() {
  auto progress = std::make_shared<std::unique_ptr<Progress>>();
  const auto start = std::chrono::steady_clock::now();
  return [progress, start](std::size_t checked, std::size_t total) {
    if (!*progress && std::chrono::steady_clock::now() - start > std::chrono::seconds(1)) {
      *progress = std::make_unique<Progress>(std::cerr, total, checked - 1,
                                             ::isatty(STDERR_FILENO) == 1, "cells checked");
    }
    if (*progress) (*progress)->advance();
  };
}

int run_sweep_command(const SweepOptions& options, const sweep::SweepPlan& plan,
                      std::ostream& out) {
  on_interrupt("phasesim sweep: interrupted; the finished cells are in " +
               (plan.dir / "cells").string() + "; continue with: phasesim sweep " + options.file +
               " --out " + options.out + " --resume");
  const auto pending = sweep::prepare_sweep_dir(plan, options.resume);
  const auto resumed = plan.cells.size() - pending.size();
  Progress progress(std::cerr, plan.cells.size(), resumed, ::isatty(STDERR_FILENO) == 1);
  Parallel parallel{options.threads};
  // In an MPI job rank 0 shows the job's progress, when its own cells finish and at the end.
  const auto report = [&](std::int64_t ran) { progress.finished(static_cast<std::size_t>(ran)); };
  if (job_rank().root()) parallel.progress = report;
  const auto results = sweep::run_sweep(plan, pending, parallel);
  if (job_rank().root()) report(static_cast<std::int64_t>(pending.size()));
  out << "sweep of '" << plan.spec.command.front() << "': " << counted(plan.cells.size(), "cell")
      << " (" << pending.size() << " run, " << resumed << " resumed)\nresults: " << results.string()
      << "\n";
  return kSuccess;
}

}  // namespace

void add_sweep_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<SweepOptions>();
  auto* cmd = app.add_subcommand(
      "sweep", "Run a command over a grid of options from a TOML file, in parallel, resumably");
  cmd->add_option("file", options->file, "Sweep file (TOML): command, seed, [options]")->required();
  cmd->add_option("--out", options->out, "Directory for sweep.json, cells/ and results.csv")
      ->required();
  cmd->add_flag("--resume", options->resume, "Continue an interrupted sweep in --out");
  cmd->add_option("--threads", options->threads, "Cells run at once (default: all cores)");
  cmd->callback([options, &action] {
    check_threads(options->threads);
    auto plan = std::make_shared<sweep::SweepPlan>(
        sweep::plan_sweep(options->file, options->out, sweep_cells(checking_progress())));
    sweep::check_sweep_dir(*plan, options->resume);
    action = [options, plan](std::ostream& out) { return run_sweep_command(*options, *plan, out); };
  });
}

}  // namespace phasesim::cli
