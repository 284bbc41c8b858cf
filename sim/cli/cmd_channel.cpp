// phasesim channel: the table of one needle's success probability.
#include <ostream>

#include "cli/door.hpp"
#include "phasesim/commands/model.hpp"

namespace phasesim::cli {
namespace {

void print_channel(const commands::Channel& command, const Json& doc, double, std::ostream& out) {
  const auto& o = command.options();
  const double p = doc["p_success"], chance = doc["chance"];
  out << "needle with " << counted(doc["needle_entries"].get<int>(), "entry", "entries")
      << " among " << o.entries << " (beta " << o.beta << ")\n";
  Table table({"p_success", "chance", "p_success/chance"});
  table.add_row({fixed(p, 9), fixed(chance, 9), fixed(p / chance, 3)});
  table.print(out);
}

}  // namespace

void add_channel_command(CLI::App& app, Action& action, const commands::Environment& environment) {
  add_command<commands::Channel>(app, action, environment, {print_channel});
}

}  // namespace phasesim::cli
