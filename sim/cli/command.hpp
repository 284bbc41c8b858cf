#pragma once
// Each subcommand lives in its own file and registers itself with add_*_command: it
// declares its options on a CLI11 subcommand and, when selected, validates them (throwing
// InputError) and stores the action that runs after parsing. Actions write their table
// to `out` (a sweep passes a sink) and return the process exit status.
#include <CLI/CLI.hpp>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "phasesim/sweep/run.hpp"

namespace phasesim::engines {
class EngineRegistry;
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

void add_coverage_command(CLI::App& app, Action& action);
void add_channel_command(CLI::App& app, Action& action);
void add_niah_command(CLI::App& app, Action& action,
                      std::shared_ptr<const engines::EngineRegistry> registry);
void add_sweep_command(CLI::App& app, Action& action);
void add_demo_command(CLI::App& app, Action& action);
void add_diagnose_command(CLI::App& app, Action& action);
void add_gpu_check_command(CLI::App& app, Action& action,
                           std::shared_ptr<const engines::EngineRegistry> registry);
void add_precision_check_command(CLI::App& app, Action& action,
                                 std::shared_ptr<const engines::EngineRegistry> registry);
void add_compare_command(CLI::App& app, Action& action,
                         std::shared_ptr<const engines::EngineRegistry> registry);
// Theorems (theory/THEORY.md).
void add_optimize_command(CLI::App& app, Action& action);
void add_phase_diagram_command(CLI::App& app, Action& action);
void add_dynamics_command(CLI::App& app, Action& action);
void add_diversity_command(CLI::App& app, Action& action);
void add_theorem_command(CLI::App& app, Action& action);
// The training lab (docs/TRAINING.md).
void add_train_command(CLI::App& app, Action& action);

/// The application with every command; parsing stores the chosen command's action.
std::unique_ptr<CLI::App> make_app(Action& action);

/// Parses a command line without the program name, e.g. {"niah", "--window", "8"},
/// validates it and returns the selected command's action. Throws CLI::ParseError or
/// InputError. Used by `sweep` to check every cell before running any.
Action parse_arguments(const std::vector<std::string>& arguments);

/// True when the (sub)command named by `command` (e.g. {"niah"}) has `option`, e.g.
/// "--seed". Throws InputError when no such command exists.
bool command_has_option(const std::vector<std::string>& command, const std::string& option);

/// The cells of a sweep as command lines of this CLI (parse_arguments, command_has_option),
/// for `phasesim sweep` and the Python module's sweep(); `cell_checked` as in
/// sweep::SweepCommand.
sweep::SweepCommand sweep_cells(std::function<void(std::size_t, std::size_t)> cell_checked = {});

/// Parses argv, runs the selected command and maps errors to exit statuses.
int run(int argc, char** argv);

}  // namespace phasesim::cli
