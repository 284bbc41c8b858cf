#pragma once
// One object per command, shared by every front door (the CLI, the Python module, the page
// and a sweep's cells). A command is a class C with its options struct and their table
// (option.hpp), a constructor that validates the options and bounds the work (InputError,
// before anything is computed or written), and a run that returns its result, from which it
// builds its JSON document:
//
//   struct C {
//     using Options = ...;  using Result = ...;
//     static CommandInfo info();
//     static OptionTable<Options> table(const Environment& environment);
//     C(Options options, const Environment& environment);  // validates
//     const Options& options() const;
//     Work work() const;                                   // estimate, what progress counts
//     Result run(const Context& context) const;
//     Json document(const Result& result) const;
//     std::vector<std::string> warnings() const;           // optional
//     std::vector<std::string> input_files() const;        // optional: what outputs may not name
//   };
//
// The CLI runs C itself (its tables read the typed result); Python, the page and sweeps run
// it through the type-erased Command and Prepared below, which return the document. Either
// way the sequence (parse, check the threads, validate, check the outputs, run, document) is
// written once, here.
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "phasesim/commands/option.hpp"
#include "phasesim/core/budget.hpp"
#include "phasesim/core/document.hpp"
#include "phasesim/core/parallel.hpp"
#include "phasesim/training/train.hpp"

namespace phasesim::engines {
class EngineRegistry;
}

namespace phasesim::commands {

/// What commands share with whoever runs them: the engines that --engine names, and a hook
/// called as a command is prepared step by step (a sweep's cells, which may take seconds).
struct Environment {
  std::shared_ptr<const engines::EngineRegistry> engines;
  std::function<void(std::size_t done, std::size_t total)> preparing = {};
};

/// The engines and no hook: what Python, the page and the tests run commands with.
Environment default_environment();

/// A command's name and what every front door says of it.
struct CommandInfo {
  std::string name;       ///< the words after `phasesim`: "niah", "theorem lockin"
  std::string summary;    ///< one line: the CLI's help, the README's table, the docstring's first
  bool in_python = true;  ///< also a function of the Python module and the page
  bool document = true;   ///< writes a JSON document (the CLI's --json, a sweep cell's result)
  std::string details = {};  ///< what the references and the docstring add to the summary

  /// "theorem_lockin": the Python function.
  std::string python_name() const;
};

/// What a prepared command will cost, and what its progress counts.
struct Work {
  WorkEstimate estimate = {};
  std::size_t items = 0;  ///< Parallel::progress's items over the run (0: not counted)
  std::string unit = {};  ///< "trials", "ascents", "runs", "cells"
  bool serial = false;    ///< runs on one thread, whatever the threads (what estimates assume)
};

/// What a front door hands a running command.
struct Context {
  /// The loops' policy: threads are the command's --threads; stop and progress the front
  /// door's.
  Parallel parallel;
  /// train: called every --log-every steps (the CLI's log, Python's progress).
  training::LabProgressCallback training_log = {};
  /// sweep: called once the run knows how many of its items were finished before (cells of
  /// a resumed sweep), before the first new one.
  std::function<void(std::size_t finished)> resumed = {};
};

/// A command whose options were validated: what it will cost, and its run.
class Prepared {
 public:
  virtual ~Prepared() = default;
  virtual Work work() const = 0;
  /// What the user should read before the run (also in the document).
  virtual std::vector<std::string> warnings() const = 0;
  virtual int threads() const = 0;
  virtual bool progress() const = 0;
  /// Runs and returns the command's document.
  virtual Json run(const Context& context) const = 0;
};

/// A command as every front door sees it: its options, and a way to prepare a run.
class Command {
 public:
  virtual ~Command() = default;
  virtual const CommandInfo& info() const = 0;
  virtual const std::vector<Option>& options() const = 0;
  /// The run of the `given` options (option names to typed values; read_text turns the CLI's
  /// words into them). Throws InputError naming the option at fault.
  virtual std::unique_ptr<Prepared> prepare(const Json& given) const = 0;
};

/// A file a front door writes beside the command's own outputs: the CLI's --json PATH.
struct OutputPath {
  std::string option;  ///< "--json"
  std::string path;
};

/// Checks what every command's options share before the command validates its own: the
/// threads (check_threads) and, after it, the output files (the table's and `more`): each can
/// be written, and none is the same file as an input of the command (its file options, "@FILE"
/// in a value: --gates @g.json, and the files it says it reads, `read`: a checkpoint's shards)
/// or as another output, symlinks and hard links followed. Throws InputError naming the output.
void check_threads_option(const std::vector<Option>& table, int threads);
void check_output_options(const std::vector<Option>& table, const Json& given,
                          const std::vector<OutputPath>& more = {},
                          const std::vector<std::string>& read = {});

namespace detail {

template <class C>
std::vector<std::string> warnings_of(const C& command) {
  if constexpr (requires { command.warnings(); }) {
    return command.warnings();
  } else {
    return {};
  }
}

/// The files a command reads, where it says (input_files()): outputs may not name them.
template <class C>
std::vector<std::string> input_files_of(const C& command) {
  if constexpr (requires { command.input_files(); }) {
    return command.input_files();
  } else {
    return {};
  }
}

}  // namespace detail

/// A typed command C (above) as a Command.
template <class C>
class CommandOf final : public Command {
 public:
  explicit CommandOf(Environment environment)
      : info_(C::info()), table_(C::table(environment)), environment_(std::move(environment)) {}

  const CommandInfo& info() const override { return info_; }
  const std::vector<Option>& options() const override { return table_.options(); }

  /// The typed command, validated: what the CLI runs (`more`: its --json).
  std::shared_ptr<const C> make(const Json& given, const std::vector<OutputPath>& more = {}) const {
    auto options = table_.parse(given);
    check_threads_option(table_.options(), table_.threads(options));
    auto command = std::make_shared<const C>(std::move(options), environment_);
    check_output_options(table_.options(), given, more, detail::input_files_of(*command));
    return command;
  }

  const OptionTable<typename C::Options>& table() const { return table_; }

  std::unique_ptr<Prepared> prepare(const Json& given) const override {
    return std::make_unique<PreparedOf>(make(given), table_);
  }

 private:
  class PreparedOf final : public Prepared {
   public:
    PreparedOf(std::shared_ptr<const C> command, const OptionTable<typename C::Options>& table)
        : command_(std::move(command)),
          threads_(table.threads(command_->options())),
          progress_(table.progress(command_->options())) {}
    Work work() const override { return command_->work(); }
    std::vector<std::string> warnings() const override { return detail::warnings_of(*command_); }
    int threads() const override { return threads_; }
    bool progress() const override { return progress_; }
    Json run(const Context& context) const override {
      return command_->document(command_->run(context));
    }

   private:
    std::shared_ptr<const C> command_;
    int threads_;
    bool progress_;
  };

  CommandInfo info_;
  OptionTable<typename C::Options> table_;
  Environment environment_;
};

/// Every command, found by name.
class CommandRegistry {
 public:
  void add(std::unique_ptr<Command> command);
  /// The command named `name` ("theorem lockin"); throws InputError naming the commands.
  const Command& find(const std::string& name) const;
  const std::vector<std::unique_ptr<Command>>& all() const { return commands_; }

 private:
  std::vector<std::unique_ptr<Command>> commands_;
};

/// phasesim's commands, in the order the CLI lists them.
CommandRegistry builtin_commands(const Environment& environment);

/// Writes `text` to `path` atomically (core/files.hpp), or to standard output for "-"; in an
/// MPI job rank 0 alone writes.
void write_output(const std::string& path, const std::string& text);
/// A document as write_output writes it: indented by 2, with a final newline.
void write_document(const std::string& path, const Json& document);

/// Runs a prepared command on the front door's `context` (its stop hook and progress), with
/// the command's own threads.
Json run_prepared(const Prepared& prepared, Context context);

}  // namespace phasesim::commands
