#include "phasesim/commands/sweep.hpp"

#include <algorithm>
#include <functional>

#include "commands/common_options.hpp"
#include "phasesim/core/error.hpp"

namespace phasesim::commands {
namespace {

const Command& command_named(const CommandRegistry& registry,
                             const std::vector<std::string>& words) {
  return registry.find(joined(words, " "));
}

// The cell's options as the command's typed values; a value that is a list (a TOML list
// inside the axis' list) gives each of its items as the CLI's words would.
Json given_options(const Command& command,
                   const std::vector<std::pair<std::string, std::string>>& cell) {
  Json given = Json::object();
  for (const auto& [name, text] : cell) {
    const auto& option = find_option(command.options(), name);
    const auto items = sweep::value_items(text);
    require(items.size() == 1 || option.list(), "invalid " + option.flag() +
                                                    " (it takes one value, not a list of " +
                                                    std::to_string(items.size()) + ")");
    if (items.size() == 1) {
      given[option.name] = read_text(option, text);
      continue;
    }
    auto& values = given[option.name] = Json::array();
    for (const auto& item : items) {
      for (auto& value : read_text(option, item)) values.push_back(std::move(value));
    }
  }
  return given;
}

}  // namespace

sweep::SweepCommand sweep_cells(const CommandRegistry& registry,
                                std::function<void(std::size_t, std::size_t)> checked) {
  const auto prepare = [&registry](const std::vector<std::string>& words,
                                   const sweep::CellOptions& cell) -> sweep::CellTask {
    const auto& command = command_named(registry, words);
    std::shared_ptr<const Prepared> prepared = command.prepare(given_options(command, cell));
    const auto work = prepared->work();
    // A cell's own loops stop when the sweep's do (Python's Ctrl-C).
    return {[prepared](const std::function<bool()>& stop) {
              Context context;
              context.parallel.stop = stop;
              return run_prepared(*prepared, context);
            },
            work.estimate};
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

namespace {

// What the cells to run need: their time summed, and the memory of the `team` largest, which
// may run at once.
WorkEstimate pending_work(const sweep::SweepPlan& plan, const std::vector<std::size_t>& pending,
                          int team) {
  WorkEstimate total;
  std::vector<double> bytes;
  for (const auto cell : pending) {
    total.seconds += plan.tasks[cell].estimate.seconds;
    bytes.push_back(plan.tasks[cell].estimate.bytes);
  }
  const auto at_once = std::min(bytes.size(), static_cast<std::size_t>(team));
  std::partial_sort(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(at_once),
                    bytes.end(), std::greater<>());
  for (std::size_t i = 0; i < at_once; ++i) total.bytes += bytes[i];
  return total;
}

}  // namespace

Sweep::Sweep(Options options, const Environment& environment)
    : options_(std::move(options)),
      registry_(std::make_shared<const CommandRegistry>(builtin_commands(environment))),
      plan_(std::make_shared<const sweep::SweepPlan>(sweep::plan_sweep(
          options_.file, options_.out, sweep_cells(*registry_, environment.preparing)))) {
  sweep::check_sweep_dir(*plan_, options_.resume);
  const auto found = sweep::survey_sweep_dir(*plan_, options_.resume);
  stale_ = found.stale;
  const int team = Parallel{options_.threads}.team();
  estimate_ = pending_work(*plan_, found.pending, team);
  check_work("the " + counted(found.pending.size(), "cell") + " to run of " + options_.file,
             estimate_, team);
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
  doc["warnings"] = stale_;
  return doc;
}

}  // namespace phasesim::commands
