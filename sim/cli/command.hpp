#pragma once
// Each subcommand lives in its own file and registers itself with add_*_command: its options
// come from its command object's table (door.hpp) and, when selected, it validates them
// (throwing InputError) and stores the action that runs after parsing. Actions write their
// table to `out` (the demo passes its own, non-root MPI ranks a sink) and return the process
// exit status.
#include <CLI/CLI.hpp>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace phasesim::commands {
struct Environment;
}

namespace phasesim::cli {

/// Exit statuses shared by every command (the README lists them).
enum ExitStatus : int {
  kSuccess = 0,
  kInternalError = 1,
  kBadInput = 2,          ///< the user's input is invalid; nothing was written
  kPredictionFailed = 3,  ///< `theorem`: a counterexample inside the theorem's regime
  kParityFailed = 4,      ///< `gpu-check`, `precision-check`: the two engines disagree
  kOutsideRegime = 5,     ///< `theorem`: disagrees outside the regime, where nothing is claimed
  kInterrupted = 130,     ///< Ctrl-C (SIGINT), as the shell reports a job killed by it
};

using Action = std::function<int(std::ostream& out)>;

// Each command's file declares it on the application from its command object
// (phasesim/commands), with its table printer (door.hpp).
void add_coverage_command(CLI::App& app, Action& action, const commands::Environment& environment);
void add_channel_command(CLI::App& app, Action& action, const commands::Environment& environment);
void add_niah_command(CLI::App& app, Action& action, const commands::Environment& environment);
void add_gpu_check_command(CLI::App& app, Action& action, const commands::Environment& environment);
void add_precision_check_command(CLI::App& app, Action& action,
                                 const commands::Environment& environment);
void add_compare_command(CLI::App& app, Action& action, const commands::Environment& environment);
void add_frontier_command(CLI::App& app, Action& action, const commands::Environment& environment);
void add_optimize_command(CLI::App& app, Action& action, const commands::Environment& environment);
void add_phase_diagram_command(CLI::App& app, Action& action,
                               const commands::Environment& environment);
void add_dynamics_command(CLI::App& app, Action& action, const commands::Environment& environment);
void add_diversity_command(CLI::App& app, Action& action, const commands::Environment& environment);
void add_theorem_command(CLI::App& app, Action& action, const commands::Environment& environment);
void add_train_command(CLI::App& app, Action& action, const commands::Environment& environment);
void add_sweep_command(CLI::App& app, Action& action, const commands::Environment& environment);
void add_diagnose_command(CLI::App& app, Action& action, const commands::Environment& environment);
void add_inspect_command(CLI::App& app, Action& action, const commands::Environment& environment);
// The tour is the CLI's own: other commands' lines, run through this parser.
void add_demo_command(CLI::App& app, Action& action);

/// The progress of checking a large sweep's cells (Environment::preparing), shown after the
/// first second.
std::function<void(std::size_t, std::size_t)> checking_progress();

/// The application with every command; parsing stores the chosen command's action.
std::unique_ptr<CLI::App> make_app(Action& action);

/// Parses a command line without the program name, e.g. {"niah", "--window", "8"},
/// validates it and returns the selected command's action. Throws CLI::ParseError or
/// InputError. Used by `sweep` to check every cell before running any.
Action parse_arguments(const std::vector<std::string>& arguments);

/// Parses argv, runs the selected command and maps errors to exit statuses.
int run(int argc, char** argv);

}  // namespace phasesim::cli
