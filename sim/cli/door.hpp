#pragma once
// How the CLI runs a command object (phasesim/commands/command.hpp): its options declared on
// CLI11 from the command's own table, the words the user typed read into typed values
// (commands::read_text), the command made and validated while parsing, and, when it runs, what
// every command shares: the warnings, the note of a long run, the progress, the run, the
// table, the JSON and the exit status. A command's file (cmd_*.cpp) holds its table printer.
#include <CLI/CLI.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/output.hpp"
#include "phasesim/commands/command.hpp"
#include "phasesim/core/files.hpp"

namespace phasesim::cli {

/// One command's options on its CLI11 subcommand: where CLI11 keeps the words of each.
class OptionWords {
 public:
  OptionWords(CLI::App& command, const std::vector<commands::Option>& options);
  OptionWords(const OptionWords&) = delete;
  OptionWords& operator=(const OptionWords&) = delete;
  /// The options given, each as its typed value (commands::read_text of its words).
  Json given() const;

 private:
  struct Slot {
    const commands::Option* option;
    CLI::Option* cli = nullptr;
    std::string word;                ///< a scalar's
    std::vector<std::string> words;  ///< a list's, split at commas
    bool flag = false;
  };
  std::vector<std::unique_ptr<Slot>> slots_;
};

/// How the CLI shows a command C's result.
template <class C>
struct Presenter {
  using Result = typename C::Result;
  /// The table (not with --json -, whose stdout is the document); `seconds` the run's.
  std::function<void(const C&, const Result&, double seconds, std::ostream&)> table;
  /// The exit status of a result; kSuccess when empty (theorem verdicts, parity).
  std::function<int(const Result&)> status = {};
  /// Before the run: may hook the context (train's log, a sweep's progress).
  std::function<void(const C&, commands::Context&, bool table, std::ostream&)> before = {};
  /// After the run, with or without the table (warnings that only the result knows).
  std::function<void(const C&, const Result&, std::ostream&)> after = {};
};

/// The context of a run of `command`: Parallel{threads} with a progress display of the work's
/// items on a terminal or with --progress (progress.hpp), after the note of a long run.
commands::Context start_context(const std::string& command, const commands::Work& work, int threads,
                                bool progress, const std::ostream& out);

/// The last word of a command's name: the CLI11 subcommand ("lockin" of "theorem lockin").
std::string subcommand_name(const std::string& name);

/// Runs a made command as every command runs.
template <class C>
int run_command(const commands::CommandOf<C>& type, const C& command, const Presenter<C>& present,
                const std::string& json, std::ostream& out) {
  const auto& name = type.info().name;
  warn(name, commands::detail::warnings_of(command), out);
  const auto& options = command.options();
  auto context = start_context(name, command.work(), type.table().threads(options),
                               type.table().progress(options), out);
  const bool table = wants_table(json);
  if (present.before) present.before(command, context, table, out);
  const auto start = std::chrono::steady_clock::now();
  const auto result = command.run(context);
  const std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - start;
  if (present.after) present.after(command, result, out);
  if (table && present.table) present.table(command, result, seconds.count(), out);
  if (type.info().document) write_json(json, command.document(result));
  return present.status ? present.status(result) : kSuccess;
}

/// Declares command C under `parent` and, when the user chooses it, makes it (validating its
/// options, so that bad input stops before any command runs) and stores the action that runs
/// it.
template <class C>
void add_command(CLI::App& parent, Action& action, const commands::Environment& environment,
                 Presenter<C> present) {
  auto type = std::make_shared<const commands::CommandOf<C>>(environment);
  auto* cli = parent.add_subcommand(subcommand_name(type->info().name), type->info().summary);
  auto words = std::make_shared<const OptionWords>(*cli, type->options());
  auto json = std::make_shared<std::string>();
  if (type->info().document) add_json_option(*cli, *json);
  cli->callback([type, words, json, present, &action] {
    std::vector<commands::OutputPath> more;
    if (!json->empty()) more.push_back({"--json", *json});
    std::shared_ptr<const C> command = type->make(words->given(), more);
    action = [type, command, json, present](std::ostream& out) {
      return run_command(*type, *command, present, *json, out);
    };
  });
}

}  // namespace phasesim::cli
