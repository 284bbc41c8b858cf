#include <iostream>
#include <string>

#include "cli/command.hpp"
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
  add_compare_command(*app, action, engines);
  add_optimize_command(*app, action);
  add_phase_diagram_command(*app, action);
  add_dynamics_command(*app, action);
  add_diversity_command(*app, action);
  add_theorem_command(*app, action);
  add_sweep_command(*app, action);
  add_demo_command(*app, action);
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
  if (argc > 1 && argv[1][0] != '-') {
    if (const auto message = unknown_command(*app, argv[1]); !message.empty()) {
      std::cerr << "phasesim: " << message << '\n';
      return kBadInput;
    }
  }
  try {
    app->parse(argc, argv);
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
