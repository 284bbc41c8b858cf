// phasesim precision-check: the float full engine against full-double on the same trials,
// draw for draw: the argmaxes that differ, each with the gap between its top two logits, and
// the speed of each.
#include "cli/parity_table.hpp"

namespace phasesim::cli {

void add_precision_check_command(CLI::App& app, Action& action,
                                 const commands::Environment& environment) {
  add_command<commands::PrecisionCheck>(
      app, action, environment,
      parity_presenter<commands::PrecisionCheck>({"full-double", "full"}));
}

}  // namespace phasesim::cli
