#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "cli/command.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/core/job.hpp"
#include "phasesim/engines/engine.hpp"
#include "phasesim/version.hpp"

namespace phasesim::cli {
namespace {

// Name of the (sub)command the user was running, for error messages.
std::string command_path(const CLI::App& app) {
  std::string path = app.get_name();
  for (const auto* sub = &app; !sub->get_subcommands().empty();) {
    sub = sub->get_subcommands().front();
    path += " " + sub->get_name();
  }
  return path;
}

// "unknown command 'x' (commands: a, b, ...)" when the first word names no command.
std::string unknown_command(CLI::App& app, const std::string& word) {
  std::string names;
  for (const auto* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (sub->get_name() == word) return {};
    names += (names.empty() ? "" : ", ") + sub->get_name();
  }
  return "unknown command '" + word + "' (commands: " + names + ")";
}

}  // namespace

std::unique_ptr<CLI::App> make_app(Action& action) {
  auto app = std::make_unique<CLI::App>(
      "phasesim: phase-sensitive KV-cache compression, analytically and by Monte Carlo.",
      "phasesim");
  app->set_version_flag("--version", std::string("phasesim ") + kVersion);
  app->require_subcommand(1);
  add_coverage_command(*app, action);
  add_channel_command(*app, action);
  // Shared with the actions, which outlive the parser when a sweep or the demo runs them.
  const auto engines = std::make_shared<const EngineRegistry>(builtin_engines());
  add_niah_command(*app, action, engines);
  add_gpu_check_command(*app, action, engines);
  add_precision_check_command(*app, action, engines);
  add_compare_command(*app, action, engines);
  add_optimize_command(*app, action);
  add_phase_diagram_command(*app, action);
  add_dynamics_command(*app, action);
  add_diversity_command(*app, action);
  add_theorem_command(*app, action);
  add_train_command(*app, action);
  add_sweep_command(*app, action);
  add_demo_command(*app, action);
  add_diagnose_command(*app, action);
  return app;
}

Action parse_arguments(const std::vector<std::string>& arguments) {
  Action action;
  auto app = make_app(action);
  std::vector<std::string> reversed(arguments.rbegin(), arguments.rend());  // CLI11's order
  app->parse(reversed);
  return action;
}

bool command_has_option(const std::vector<std::string>& command, const std::string& option) {
  Action unused;
  auto app = make_app(unused);
  CLI::App* sub = app.get();
  std::string path = "phasesim";
  for (const auto& word : command) {
    path += " " + word;
    try {
      sub = sub->get_subcommand(word);
    } catch (const CLI::OptionNotFound&) {
      throw InputError("unknown command '" + path + "'");
    }
  }
  return sub->get_option_no_throw(option) != nullptr;
}

namespace {

// Where a command stopped short of success: its exit status and the line that says why,
// "phasesim niah: <what>" (nothing to print after --help).
struct Stop {
  int status = kSuccess;
  std::string where;
  std::string what;

  // In a job, the line names the rank that saw the failure.
  void print(const std::optional<JobRank>& rank) const {
    if (what.empty()) return;
    std::cerr << where << ": ";
    if (rank) std::cerr << "rank " << rank->rank << " of " << rank->size << ": ";
    std::cerr << what << '\n';
  }
};

// Parsing or running a command threw: bad input (exit 2) or an internal error (exit 1).
Stop stop_for(const CLI::App& app, const std::exception& e) {
  const auto where = command_path(app);
  if (dynamic_cast<const CLI::ParseError*>(&e) != nullptr) {
    return {kBadInput, where, e.what() + std::string(" (see '") + where + " --help')"};
  }
  if (dynamic_cast<const InputError*>(&e) != nullptr) return {kBadInput, where, e.what()};
  return {kInternalError, where, std::string("internal error: ") + e.what()};
}

// Parses the command line into `action`; the Stop when the command must not run.
std::optional<Stop> parse(CLI::App& app, int argc, char** argv, bool root) {
  if (argc > 1 && argv[1][0] != '-') {
    if (const auto message = unknown_command(app, argv[1]); !message.empty()) {
      return Stop{kBadInput, "phasesim", message};
    }
  }
  try {
    app.parse(argc, argv);
    return std::nullopt;
  } catch (const CLI::Success& e) {  // --help, --version: printed once, by rank 0
    return Stop{root ? app.exit(e) : kSuccess, "", ""};
  } catch (const std::exception& e) {
    return stop_for(app, e);
  }
}

constexpr int kGo = -1;  // a rank's parse status when its command may run

}  // namespace

int run(int argc, char** argv) {
  std::unique_ptr<JobSession> session;
  try {
    session = std::make_unique<JobSession>(argc, argv);
  } catch (const InputError& e) {
    std::cerr << "phasesim: " << e.what() << '\n';
    return kBadInput;
  }
  const auto me = job_rank();
  Action action;
  auto app = make_app(action);
  // Each rank checked the output paths against its own view of the file system: no rank may
  // start while another refused. The first rank that refused says why.
  const auto refused = parse(*app, argc, argv, me.root());
  const auto statuses = gather_status(refused ? refused->status : kGo);
  const auto first = std::find_if(statuses.begin(), statuses.end(), [](int s) { return s != kGo; });
  if (first != statuses.end()) {
    const bool all = std::find(statuses.begin(), statuses.end(), kGo) == statuses.end();
    if (first - statuses.begin() == me.rank) refused->print(all ? std::nullopt : std::optional(me));
    return *first;
  }
  // Every rank runs the command; rank 0 alone prints its table.
  std::ostream nowhere(nullptr);
  try {
    return action(me.root() ? std::cout : nowhere);
  } catch (const JobFailure& e) {  // thrown by every rank at once
    const Stop stop{e.input() ? kBadInput : kInternalError, command_path(*app),
                    (e.input() ? "" : "internal error: ") + std::string(e.what())};
    if (me.root()) stop.print(JobRank{e.rank(), me.size});
    return stop.status;
  } catch (const std::exception& e) {  // only this rank knows: in a job, it ends the job
    const auto stop = stop_for(*app, e);
    stop.print(me.size > 1 ? std::optional(me) : std::nullopt);
    if (me.size > 1) abort_job(stop.status);
    return stop.status;
  }
}

}  // namespace phasesim::cli
