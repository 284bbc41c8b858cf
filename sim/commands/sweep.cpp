#include "phasesim/commands/sweep.hpp"

#include <algorithm>

#include "commands/common_options.hpp"
#include "phasesim/core/error.hpp"

namespace phasesim::commands {
namespace {

const Command& command_named(const CommandRegistry& registry,
                             const std::vector<std::string>& words) {
  return registry.find(joined(words, " "));
}

// The cell's options as the command's typed values.
Json given_options(const Command& command,
                   const std::vector<std::pair<std::string, std::string>>& cell) {
  Json given = Json::object();
  for (const auto& [name, text] : cell) {
    const auto& option = find_option(command.options(), name);
    given[option.name] = read_text(option, text);
  }
  return given;
}

}  // namespace

sweep::SweepCommand sweep_cells(const CommandRegistry& registry,
                                std::function<void(std::size_t, std::size_t)> checked) {
  const auto prepare = [&registry](const std::vector<std::string>& words,
                                   const std::vector<std::pair<std::string, std::string>>& cell,
                                   const std::filesystem::path& json) -> sweep::CellTask {
    const auto& command = command_named(registry, words);
    std::shared_ptr<const Prepared> prepared = command.prepare(given_options(command, cell));
    return [prepared, json] { write_document(json.string(), run_prepared(*prepared, {})); };
  };
  // "--NAME" for a named option, "NAME" for a positional, "--json" for a document.
  const auto has_option = [&registry](const std::vector<std::string>& words,
                                      const std::string& name) {
    const auto& command = command_named(registry, words);
    if (name == "--json") return command.info().document;
    const auto& options = command.options();
    return std::any_of(options.begin(), options.end(),
                       [&](const Option& o) { return o.flag() == name; });
  };
  return {prepare, has_option, std::move(checked)};
}

CommandInfo Sweep::info() {
  CommandInfo info{"sweep",
                   "Run a command over a grid of options from a TOML file, in parallel, resumably",
                   true, false};
  info.details =
      "A grid of any command's options from a TOML file, run in parallel, resumable (--resume), "
      "one JSON per cell plus a tidy results.csv.";
  return info;
}

OptionTable<Sweep::Options> Sweep::table(const Environment&) {
  OptionTable<Options> t;
  t.add("file", &Options::file, "Sweep file (TOML): command, seed, [options]",
        {.positional = true, .required = true, .role = Role::input_file});
  t.add("out", &Options::out, "Directory for sweep.json, cells/ and results.csv",
        {.required = true});
  t.add("resume", &Options::resume, "Continue an interrupted sweep in --out");
  add_threads(t, &Options::threads, "Cells run at once (0: all cores)");
  add_progress(t, &Options::progress,
               "Show the cells done and the time left (the CLI always shows them on stderr)");
  return t;
}

Sweep::Sweep(Options options, const Environment& environment)
    : options_(std::move(options)),
      registry_(std::make_shared<const CommandRegistry>(builtin_commands(environment))),
      plan_(std::make_shared<const sweep::SweepPlan>(sweep::plan_sweep(
          options_.file, options_.out, sweep_cells(*registry_, environment.preparing)))) {
  sweep::check_sweep_dir(*plan_, options_.resume);
}

Sweep::Result Sweep::run(const Context& context) const {
  const auto pending = sweep::prepare_sweep_dir(*plan_, options_.resume);
  const auto resumed = plan_->cells.size() - pending.size();
  if (context.resumed) context.resumed(resumed);
  const auto results = sweep::run_sweep(*plan_, pending, context.parallel);
  return {pending.size(), resumed, results};
}

Json Sweep::document(const Result& result) const {
  auto doc = plan_->manifest;
  doc["file"] = options_.file;
  doc["out"] = options_.out;
  doc["resume"] = options_.resume;
  doc["cells_run"] = result.ran;
  doc["cells_resumed"] = result.resumed;
  doc["results"] = result.results.string();
  return doc;
}

}  // namespace phasesim::commands
