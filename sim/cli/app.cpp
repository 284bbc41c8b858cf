#include <iostream>
#include <string>

#include "cli/command.hpp"
#include "cli/interrupt.hpp"
#include "cli/output.hpp"
#include "phasesim/core/error.hpp"
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

// The names of the commands under `app`: "a, b, c".
std::string command_names(CLI::App& app) {
  std::string names;
  for (const auto* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    names += (names.empty() ? "" : ", ") + sub->get_name();
  }
  return names;
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

// An empty value ('' in the shell, "1,,2" in a list) would read as 0, as no file or as a
// default: refuse it by name instead of computing something the user did not ask for.
void refuse_empty_values(CLI::App& app) {
  for (auto* option : app.get_options()) {
    if (option->get_type_size_max() == 0) continue;  // a flag
    const auto name = option->get_name();
    const auto allowed = option->get_required() ? ")" : ", or leave " + name + " out)";
    option->check(CLI::Validator(
        [name, allowed](std::string& value) {
          require(!value.empty(), "invalid " + name + " '' (an empty value: give one" + allowed);
          return std::string();
        },
        ""));
  }
  for (auto* sub : app.get_subcommands([](CLI::App*) { return true; })) refuse_empty_values(*sub);
}

// The command that runs (the last subcommand given).
const CLI::App& selected(const CLI::App& app) {
  const auto* at = &app;
  while (!at->get_subcommands().empty()) at = at->get_subcommands().front();
  return *at;
}

// A --json PATH that cannot be written is refused before any work, not after it. Only the
// command line's own: a sweep's cells write into folders the sweep makes. Ctrl-C then says
// that nothing was written (a sweep says more, see cmd_sweep.cpp).
void check_output_paths(const CLI::App& app) {
  const auto* json = selected(app).get_option_no_throw("--json");
  const bool file = json != nullptr && json->count() > 0 && json->as<std::string>() != "-";
  if (file) check_json_path(json->as<std::string>());
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
  add_coverage_command(*app, action);
  add_channel_command(*app, action);
  // Shared with the actions, which outlive the parser when a sweep or the demo runs them.
  const auto engines = std::make_shared<const EngineRegistry>(builtin_engines());
  add_niah_command(*app, action, engines);
  add_gpu_check_command(*app, action, engines);
  add_optimize_command(*app, action);
  add_phase_diagram_command(*app, action);
  add_dynamics_command(*app, action);
  add_diversity_command(*app, action);
  add_theorem_command(*app, action);
  add_sweep_command(*app, action);
  add_demo_command(*app, action);
  add_diagnose_command(*app, action);
  refuse_empty_values(*app);
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

int run(int argc, char** argv) {
  Action action;
  auto app = make_app(action);
  if (const auto message = unknown_command(*app, argc, argv); !message.empty()) {
    std::cerr << "phasesim: " << message << '\n';
    return kBadInput;
  }
  try {
    app->parse(argc, argv);
    check_output_paths(*app);
    return action(std::cout);
  } catch (const CLI::Success& e) {  // --help, --version
    return app->exit(e);
  } catch (const CLI::ParseError& e) {
    const auto where = command_path(*app);
    std::cerr << where << ": " << e.what() << " (see '" << where << " --help')\n";
    return kBadInput;
  } catch (const InputError& e) {
    std::cerr << command_path(*app) << ": " << e.what() << '\n';
    return kBadInput;
  } catch (const std::exception& e) {
    std::cerr << command_path(*app) << ": internal error: " << e.what() << '\n';
    return kInternalError;
  }
}

}  // namespace phasesim::cli
