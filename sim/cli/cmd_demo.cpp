// phasesim demo: the main job, a guided tour of the model for W=8, S=4.
#include <memory>
#include <ostream>

#include "cli/command.hpp"
#include "cli/output.hpp"
#include "cli/report.hpp"
#include "phasesim/error.hpp"
#include "phasesim/phase_channel.hpp"

namespace phasesim::cli {
namespace {

struct DemoOptions {
  double beta = 5.0;
  std::int64_t context = 131072;
};

int run_demo(const DemoOptions& options, std::ostream& out) {
  const Geometry geometry{8, 4};
  const auto gate = parse_gate("last", geometry.window);
  const auto phases = phase_coverage(geometry, gate);
  const auto entries = geometry.entries_before(options.context);

  out << "Geometry W=8, S=4 with the 'last' gate (all weight on the newest slot)\n\n";
  print_coverage_table(phases, out);
  out << "\nStandardized channel, beta " << options.beta << ", " << entries << " entries (context "
      << options.context << ")\n\n";
  print_phase_channel_table(phases, gate, phase_success(geometry, gate, options.beta, entries),
                            out);
  return kSuccess;
}

}  // namespace

void add_demo_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<DemoOptions>();
  auto* cmd =
      app.add_subcommand("demo", "A guided tour: geometry, channel and per-phase retrieval");
  cmd->add_option("--beta", options->beta, "Signal strength beta")->capture_default_str();
  cmd->add_option("--context", options->context, "Context length L in tokens")
      ->capture_default_str();
  cmd->callback([options, &action] {
    require(options->context >= 8, "invalid --context " + std::to_string(options->context) +
                                       " (must be at least the window, 8)");
    action = [options](std::ostream& out) { return run_demo(*options, out); };
  });
}

}  // namespace phasesim::cli
