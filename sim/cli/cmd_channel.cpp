// phasesim channel: success probability of one needle in the standardized channel.
#include <memory>
#include <ostream>

#include "cli/command.hpp"
#include "cli/output.hpp"
#include "phasesim/channel/channel.hpp"

namespace phasesim::cli {
namespace {

struct ChannelOptions {
  double beta = 5.0;
  std::int64_t entries = 32768;
  std::vector<double> u{1.0};
  std::string json;
};

int run_channel(const ChannelOptions& options, std::ostream& out) {
  const auto doc = channel::channel_document(options.beta, options.u, options.entries);
  if (wants_table(options.json)) {
    const double p = doc["p_success"], chance = doc["chance"];
    out << "needle with " << counted(doc["needle_entries"].get<int>(), "entry", "entries")
        << " among " << options.entries << " (beta " << options.beta << ")\n";
    Table table({"p_success", "chance", "p_success/chance"});
    table.add_row({fixed(p, 9), fixed(chance, 9), fixed(p / chance, 3)});
    table.print(out);
  }
  write_json(options.json, doc);
  return kSuccess;
}

}  // namespace

void add_channel_command(CLI::App& app, Action& action) {
  auto options = std::make_shared<ChannelOptions>();
  auto* cmd = app.add_subcommand(
      "channel", "P(needle retrieved) in the standardized channel, by adaptive quadrature");
  cmd->add_option("--beta", options->beta, "Signal strength beta >= 0")->capture_default_str();
  cmd->add_option("--entries,-N", options->entries,
                  "Entries in all, needle entries included (N - m distractors)")
      ->capture_default_str();
  cmd->add_option("--u", options->u, "Normalized weights U1,U2,... of the needle's entries")
      ->delimiter(',')
      ->capture_default_str();
  add_json_option(*cmd, options->json);
  cmd->callback([options, &action] {
    channel::validate_channel_inputs(options->beta, options->u, options->entries);
    action = [options](std::ostream& out) { return run_channel(*options, out); };
  });
}

}  // namespace phasesim::cli
