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
                          const std::vector<OutputPath>& more,
                          const std::vector<std::string>& read) {
  std::vector<OutputPath> outputs, inputs;
  for (const auto& option : table) {
    for (const auto& [name, value] : given.items()) {
      if (!option.named(name)) continue;
      for (const auto& item : value.is_array() ? value : Json::array({value})) {
        if (!item.is_string()) continue;  // a file given as its text (Python, the page)
        const auto text = item.get<std::string>();
        if (option.role == Role::output_file) outputs.push_back({option.flag(), text});
        if (option.role == Role::input_file) inputs.push_back({option.flag(), text});
        if (option.role == Role::value && text.starts_with('@'))
          inputs.push_back({option.flag(), text});
      }
    }
  }
  for (const auto& file : read) inputs.push_back({"", file});
  outputs.insert(outputs.end(), more.begin(), more.end());
  for (auto output = outputs.begin(); output != outputs.end(); ++output) {
    if (output->path == "-") continue;  // standard output
    check_output_file(output->path);
    const auto refuse = [&](const OutputPath& other, const std::string& which) {
      const auto at = other.path.starts_with('@') ? other.path.substr(1) : other.path;
      if (!same_file(output->path, at)) return;
      throw InputError("invalid " + output->option + " " + output->path + " (the same file as " +
                       which + (other.option.empty() ? "" : " " + other.option) + " " + other.path +
                       ": " +
                       (which == "the input" ? "writing it would destroy the input"
                                             : "each output needs its own file") +
                       "; give another path)");
    };
    for (const auto& input : inputs) refuse(input, "the input");
    for (auto other = outputs.begin(); other != output; ++other) refuse(*other, "the output");
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
