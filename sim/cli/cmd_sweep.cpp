// phasesim sweep: the progress of a sweep's cells and its summary line.
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <ostream>

#include "cli/door.hpp"
#include "cli/interrupt.hpp"
#include "cli/progress.hpp"
#include "phasesim/commands/sweep.hpp"
#include "phasesim/core/job.hpp"

namespace phasesim::cli {
namespace {

using SweepProgress = std::shared_ptr<std::unique_ptr<Progress>>;

// Ctrl-C says how to resume; the cells' progress shows on stderr always (lines every 5 s when
// it is not a terminal), counting the resumed cells as done. In an MPI job rank 0 shows the
// job's progress, when its own cells finish and at the end.
void start_sweep(const SweepProgress& progress, const commands::Sweep& sweep,
                 commands::Context& context) {
  const auto& o = sweep.options();
  on_interrupt("phasesim sweep: interrupted; the finished cells are in " +
               (sweep.plan().dir / "cells").string() + "; continue with: phasesim sweep " + o.file +
               " --out " + o.out + " --resume");
  if (!job_rank().root()) return;
  const auto total = sweep.plan().cells.size();
  context.resumed = [progress, total](std::size_t resumed) {
    *progress = std::make_unique<Progress>(std::cerr, total, resumed, ::isatty(STDERR_FILENO) == 1);
  };
  context.parallel.progress = [progress](std::int64_t ran) {
    (*progress)->finished(static_cast<std::size_t>(ran));
  };
}

void print_sweep(const commands::Sweep& sweep, const commands::Sweep::Result& result, double,
                 std::ostream& out) {
  const auto& plan = sweep.plan();
  out << "sweep of '" << join(plan.spec.command, " ") << "': " << counted(plan.cells.size(), "cell")
      << " (" << result.ran << " run, " << result.resumed
      << " resumed)\nresults: " << result.results.string() << "\n";
}

}  // namespace

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

void add_sweep_command(CLI::App& app, Action& action, const commands::Environment& environment) {
  const auto progress = std::make_shared<std::unique_ptr<Progress>>();
  Presenter<commands::Sweep> present{print_sweep};
  present.before = [progress](const commands::Sweep& sweep, commands::Context& context, bool,
                              std::ostream&) { start_sweep(progress, sweep, context); };
  present.after = [progress](const commands::Sweep&, const commands::Sweep::Result& result,
                             std::ostream&) {
    if (*progress) (*progress)->finished(result.ran);  // the job's last cells, on rank 0
  };
  add_command<commands::Sweep>(app, action, environment, present);
}

}  // namespace phasesim::cli
