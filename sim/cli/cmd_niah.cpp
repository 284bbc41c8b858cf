// phasesim niah: the table of per-phase needle-in-a-haystack accuracy.
#include "cli/door.hpp"
#include "cli/niah_table.hpp"
#include "phasesim/commands/niah.hpp"

namespace phasesim::cli {

void add_niah_command(CLI::App& app, Action& action, const commands::Environment& environment) {
  add_command<commands::Niah>(app, action, environment,
                              {[](const commands::Niah& niah, const niah::NiahResult& result,
                                  double seconds, std::ostream& out) {
                                print_niah_table(niah.plan().run(), niah.plan().engine().name(),
                                                 result, seconds, out);
                              }});
}

}  // namespace phasesim::cli
