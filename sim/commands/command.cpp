#include "phasesim/commands/command.hpp"

#include <algorithm>
#include <iostream>

#include "phasesim/core/error.hpp"
#include "phasesim/core/files.hpp"
#include "phasesim/core/job.hpp"
#include "phasesim/engines/engine.hpp"

namespace phasesim::commands {

Environment default_environment() {
  return {std::make_shared<const engines::EngineRegistry>(engines::builtin_engines())};
}

std::string CommandInfo::python_name() const {
  auto function = name;
  std::replace(function.begin(), function.end(), ' ', '_');
  std::replace(function.begin(), function.end(), '-', '_');
  return function;
}

void check_threads_option(const std::vector<Option>& table, int threads) {
  const bool has = std::any_of(table.begin(), table.end(),
                               [](const Option& o) { return o.role == Role::threads; });
  if (has) check_threads(threads);
}

void check_output_options(const std::vector<Option>& table, const Json& given,
                          const std::vector<std::string>& inputs) {
  for (const auto& option : table) {
    if (option.role != Role::output_file) continue;
    for (const auto& [name, value] : given.items()) {
      if (!option.named(name) || !value.is_string()) continue;
      const auto path = value.get<std::string>();
      if (path == "-") continue;  // standard output
      check_output_file(path);
      check_not_an_input(option.flag(), path, inputs);
    }
  }
}

void CommandRegistry::add(std::unique_ptr<Command> command) {
  commands_.push_back(std::move(command));
}

const Command& CommandRegistry::find(const std::string& name) const {
  std::string names;
  for (const auto& command : commands_) {
    if (command->info().name == name) return *command;
    names += (names.empty() ? "" : ", ") + command->info().name;
  }
  throw InputError("unknown command '" + name + "' (commands: " + names + ")");
}

void write_output(const std::string& path, const std::string& text) {
  on_root([&] {  // in an MPI job every rank has the text; rank 0 writes it
    if (path == "-") {
      std::cout << text << std::flush;
    } else {
      write_file_atomically(path, text);
    }
  });
}

void write_document(const std::string& path, const Json& document) {
  write_output(path, document.dump(2) + "\n");
}

Json run_prepared(const Prepared& prepared, Context context) {
  context.parallel.threads = prepared.threads();
  return prepared.run(context);
}

}  // namespace phasesim::commands
