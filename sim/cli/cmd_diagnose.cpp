// phasesim diagnose: the tables of a per-group NIAH table read back to the period, the phases
// and the model.
#include "cli/diagnose_table.hpp"
#include "cli/door.hpp"
#include "phasesim/commands/lab.hpp"

namespace phasesim::cli {

void add_diagnose_command(CLI::App& app, Action& action, const commands::Environment& environment) {
  Presenter<commands::Diagnose> present{[](const commands::Diagnose& diagnose,
                                           const diagnose::Diagnosis& diagnosis, double,
                                           std::ostream& out) {
    print_diagnosis(diagnose.options().table.name, diagnose.counts(), diagnosis, out);
  }};
  // The fit's warnings come with the result: said before the table, with --json - too.
  present.after = [](const commands::Diagnose&, const diagnose::Diagnosis& diagnosis,
                     std::ostream& out) { warn("diagnose", diagnosis.warnings, out); };
  add_command<commands::Diagnose>(app, action, environment, present);
}

}  // namespace phasesim::cli
