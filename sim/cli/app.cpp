#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "cli/command.hpp"
#include "cli/interrupt.hpp"
#include "cli/output.hpp"
#include "cli/parse_hints.hpp"
#include "phasesim/commands/command.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/core/job.hpp"
#include "phasesim/core/simd_target.hpp"
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

// The names of the commands under `app`: "a, b, c".
std::string command_names(CLI::App& app) {
  std::string names;
  for (const auto* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    names += (names.empty() ? "" : ", ") + sub->get_name();
  }
  return names;
}

bool has_command(const CLI::App& app, const std::string& name) {
  try {
    return app.get_subcommand(name) != nullptr;
  } catch (const CLI::OptionNotFound&) {
    return false;
  }
}

// "unknown command 'theorem x' (theorem commands: a, b, ...)" when a word where a command is
// due names none, "missing command ..." when none is given; empty when the words are fine.
std::string unknown_command(CLI::App& app, int argc, char** argv) {
  CLI::App* at = &app;
  std::string path;
  for (int i = 1; at->get_require_subcommand_min() > 0; ++i) {
    const std::string kind = (path.empty() ? "" : path + " ") + "commands: " + command_names(*at);
    const std::string word = i < argc ? argv[i] : "";
    if (word == "--help" || word == "-h" || word == "--version") return {};
    if (word.empty() || word[0] == '-') {
      // `phasesim --threads 2 niah`: the command is there, after an option meant for it.
      for (int later = i + 1; !word.empty() && later < argc; ++later) {
        if (!has_command(*at, argv[later])) continue;
        return "option " + word + " comes before the command: options go after it, as in '" +
               (path.empty() ? "phasesim " : "phasesim " + path + " ") + argv[later] + " " + word +
               " ...'";
      }
      return "missing command" + (path.empty() ? "" : " after '" + path + "'") + " (" + kind + ")";
    }
    path += (path.empty() ? "" : " ") + word;
    try {
      at = at->get_subcommand(word);
    } catch (const CLI::OptionNotFound&) {
      return "unknown command '" + path + "' (" + kind + ")";
    }
  }
  return {};
}

// The command that runs (the last subcommand given).
const CLI::App& selected(const CLI::App& app) {
  const auto* at = &app;
  while (!at->get_subcommands().empty()) at = at->get_subcommands().front();
  return *at;
}

// Ctrl-C says that nothing was written (a sweep and the demo say more: cmd_sweep.cpp,
// cmd_demo.cpp). The --json PATH was checked with the command's other outputs when it was
// made (door.hpp), before any work.
void say_nothing_written(const CLI::App& app) {
  const auto* json = selected(app).get_option_no_throw("--json");
  const bool file = json != nullptr && json->count() > 0 && json->as<std::string>() != "-";
  on_interrupt(
      command_path(app) + ": interrupted; nothing was written" +
      (file ? " (--json " + json->as<std::string>() + " is written when the run ends)" : ""));
}

}  // namespace

std::unique_ptr<CLI::App> make_app(Action& action) {
  auto app = std::make_unique<CLI::App>(
      "phasesim: phase-sensitive KV-cache compression, analytically and by Monte Carlo.",
      "phasesim");
  app->set_version_flag("--version", std::string("phasesim ") + kVersion);
  app->require_subcommand(1);
  app->footer(std::string("Environment: ") + kSimdTargetVariable +
              "=NAME limits the SIMD code to NAME and the targets below it, to run an older "
              "CPU's code paths (allowed in this build: " +
              simd_target_names() + ").");
  // The engines are shared with the actions, which outlive the parser when the demo runs them.
  commands::Environment environment = commands::default_environment();
  environment.preparing = checking_progress();
  add_coverage_command(*app, action, environment);
  add_channel_command(*app, action, environment);
  add_niah_command(*app, action, environment);
  add_gpu_check_command(*app, action, environment);
  add_precision_check_command(*app, action, environment);
  add_compare_command(*app, action, environment);
  add_frontier_command(*app, action, environment);
  add_optimize_command(*app, action, environment);
  add_phase_diagram_command(*app, action, environment);
  add_dynamics_command(*app, action, environment);
  add_diversity_command(*app, action, environment);
  add_theorem_command(*app, action, environment);
  add_train_command(*app, action, environment);
  add_sweep_command(*app, action, environment);
  add_demo_command(*app, action);
  add_diagnose_command(*app, action, environment);
  add_inspect_command(*app, action, environment);
  return app;
}

Action parse_arguments(const std::vector<std::string>& arguments) {
  Action action;
  auto app = make_app(action);
  std::vector<std::string> reversed(arguments.rbegin(), arguments.rend());  // CLI11's order
  app->parse(reversed);
  return action;
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
  if (dynamic_cast<const CLI::ConversionError*>(&e) != nullptr) {
    // Only a whole number beyond the option's own range gets here (see reads_as); CLI11
    // says "Could not convert: --prompts = 99999999999".
    std::string what = e.what();
    const auto at = what.find(": ");
    if (at != std::string::npos) what = what.substr(at + 2);
    const auto eq = what.find(" = ");
    if (eq == std::string::npos) return {kBadInput, where, e.what()};
    const auto value = what.substr(eq + 3);
    const bool number = !value.empty() && (std::isdigit(value[0]) != 0 || value[0] == '-');
    return {kBadInput, where,
            "invalid " + what.replace(eq, 3, " ") +
                (number ? " (out of range for this option)" : " (a flag takes =true or =false)")};
  }
  if (dynamic_cast<const CLI::ParseError*>(&e) != nullptr) {
    return {kBadInput, where, e.what() + std::string(" (see '") + where + " --help')"};
  }
  if (dynamic_cast<const InputError*>(&e) != nullptr) return {kBadInput, where, e.what()};
  return {kInternalError, where, std::string("internal error: ") + e.what()};
}

// "--help" anywhere: the command's words and "--help", so that help is printed before any
// value is checked (`niah --help --prompts abc` prints help); empty without "--help".
std::vector<std::string> help_request(const CLI::App& app, const std::vector<std::string>& words) {
  const auto help = [](const std::string& word) { return word == "--help" || word == "-h"; };
  if (std::none_of(words.begin(), words.end(), help)) return {};
  std::vector<std::string> request;
  const CLI::App* at = &app;
  for (const auto& word : words) {
    if (!has_command(*at, word)) break;
    request.push_back(word);
    at = at->get_subcommand(word);
  }
  request.push_back("--help");
  return request;
}

// CLI11's "The following arguments were not expected: 4 prompts" and "--gates: At Most 1
// required but received 2" name no option: the line from the words as typed instead (empty
// when the error is another one).
std::string parse_hint(const CLI::App& app, const CLI::ParseError& e,
                       const std::vector<std::string>& words) {
  const auto& command = selected(app);
  std::size_t depth = 0;  // the command's own words
  for (const auto* at = &app; at != &command; at = at->get_subcommands().front()) ++depth;
  const std::vector<std::string> after(words.begin() + static_cast<std::ptrdiff_t>(depth),
                                       words.end());
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    return unexpected_word(command, command_path(app), after);
  }
  const std::string what = e.what();
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr &&
      what.find(": At Most 1 required but received ") != std::string::npos) {
    return repeated_option(command, what.substr(0, what.find(':')), after);
  }
  return {};
}

// Parses the command line into `action`; the Stop when the command must not run.
std::optional<Stop> parse(CLI::App& app, int argc, char** argv, bool root) {
  if (const auto message = unknown_command(app, argc, argv); !message.empty()) {
    return Stop{kBadInput, "phasesim", message};
  }
  const std::vector<std::string> words(argv + std::min(argc, 1), argv + argc);
  try {
    if (auto help = help_request(app, words); !help.empty()) {
      std::reverse(help.begin(), help.end());  // CLI11's order
      app.parse(help);
    }
    app.parse(argc, argv);
    say_nothing_written(app);
    return std::nullopt;
  } catch (const CLI::Success& e) {  // --help, --version: printed once, by rank 0
    return Stop{root ? app.exit(e) : kSuccess, "", ""};
  } catch (const CLI::ParseError& e) {
    if (const auto hint = parse_hint(app, e, words); !hint.empty()) {
      return Stop{kBadInput, command_path(app), hint};
    }
    return stop_for(app, e);
  } catch (const std::exception& e) {
    return stop_for(app, e);
  }
}

constexpr int kGo = -1;  // a rank's parse status when its command may run

// A table or JSON that did not reach stdout (a full disk, /dev/full) fails the run, as a
// --json file that cannot be written does, instead of exiting 0 with the output lost.
int checked_stdout(const CLI::App& app, int status) {
  errno = 0;
  std::cout.flush();
  const bool failed = std::fflush(stdout) != 0 || std::ferror(stdout) != 0 || !std::cout;
  if (!failed) return status;
  const int error = errno;  // 0 when the write that failed came earlier
  Stop{kBadInput, command_path(app),
       "cannot write to standard output" +
           (error != 0 ? std::string(" (") + std::strerror(error) + ")" : std::string())}
      .print(std::nullopt);
  return kBadInput;
}

}  // namespace

int run(int argc, char** argv) {
  std::unique_ptr<JobSession> session;
  try {
    limit_simd_target_from_environment();  // before any work picks a SIMD target
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
    return checked_stdout(*app, action(me.root() ? std::cout : nowhere));
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
