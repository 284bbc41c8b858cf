#pragma once
// sweep: any command over a grid of options from a TOML file, its cells run as every front
// door runs a command (the registry's objects), resumably, into one folder.
#include <filesystem>
#include <string>

#include "phasesim/commands/command.hpp"
#include "phasesim/sweep/run.hpp"

namespace phasesim::commands {

/// The commands of `registry` as a sweep runs its cells: a cell's options are read as the
/// CLI reads its words (read_text), the command is prepared (so that a bad cell stops the
/// sweep before any runs), and running the cell writes its document to its file. `registry`
/// must outlive what this returns.
sweep::SweepCommand sweep_cells(const CommandRegistry& registry,
                                std::function<void(std::size_t, std::size_t)> checked = {});

/// `sweep`: a command over a grid of options, in parallel, resumably.
class Sweep {
 public:
  struct Options {
    std::string file;
    std::string out;
    bool resume = false;
    int threads = 0;
    bool progress = false;
  };
  struct Result {
    std::size_t ran = 0;            ///< cells run now
    std::size_t resumed = 0;        ///< cells found finished in --out
    std::filesystem::path results;  ///< results.csv
  };

  static CommandInfo info();
  static OptionTable<Options> table(const Environment& environment);
  /// Reads the sweep file and checks every cell (Environment::preparing after each) and
  /// --out, and bounds the cells to run (the sum of their estimates, core/budget.hpp: their
  /// time on --threads cells at once, the memory of that many).
  Sweep(Options options, const Environment& environment);
  const Options& options() const { return options_; }
  const sweep::SweepPlan& plan() const { return *plan_; }
  Work work() const { return {estimate_, plan_->cells.size(), "cells"}; }
  /// With --resume, a line for each cell file in --out that holds no document of its cell
  /// (it runs again).
  std::vector<std::string> warnings() const { return stale_; }
  /// Prepares --out, runs the cells not finished there (Context::parallel counts them;
  /// Context::resumed hears how many were), writes results.csv.
  Result run(const Context& context) const;
  /// sweep.json's content with the run's: file, out, resume, cells_run, cells_resumed,
  /// results (the path of results.csv) and warnings.
  Json document(const Result& result) const;

 private:
  Options options_;
  std::shared_ptr<const CommandRegistry> registry_;  // the cells' commands
  std::shared_ptr<const sweep::SweepPlan> plan_;
  WorkEstimate estimate_;
  std::vector<std::string> stale_;
};

}  // namespace phasesim::commands
