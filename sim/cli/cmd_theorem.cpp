// phasesim theorem concentration|lockin|diversity: a prediction of theory/THEORY.md, the
// numerical check, a verdict (exit 0 agree, 3 a counterexample inside the regime, 5 outside).
#include <ostream>

#include "cli/door.hpp"
#include "cli/theory_tables.hpp"
#include "phasesim/commands/theorems.hpp"

namespace phasesim::cli {
namespace {

// Every check's table is its verdict, and so is its exit status.
template <class C>
Presenter<C> verdict_presenter() {
  return {[](const C&, const typename C::Result& check, double, std::ostream& out) {
            print_verdict(check.verdict, out);
          },
          [](const typename C::Result& check) {
            const auto& v = check.verdict;
            return v.agree ? kSuccess : v.inside ? kPredictionFailed : kOutsideRegime;
          }};
}

}  // namespace

void add_theorem_command(CLI::App& app, Action& action, const commands::Environment& environment) {
  auto* theorem = app.add_subcommand(
      "theorem", "State a prediction of theory/THEORY.md, check it, give a verdict (exit 0/3/5)");
  theorem->require_subcommand(1);
  add_command<commands::TheoremConcentration>(*theorem, action, environment,
                                              verdict_presenter<commands::TheoremConcentration>());
  add_command<commands::TheoremLockin>(*theorem, action, environment,
                                       verdict_presenter<commands::TheoremLockin>());
  add_command<commands::TheoremDiversity>(*theorem, action, environment,
                                          verdict_presenter<commands::TheoremDiversity>());
}

}  // namespace phasesim::cli
