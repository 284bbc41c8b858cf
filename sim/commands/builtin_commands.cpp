#include "phasesim/commands/command.hpp"
#include "phasesim/commands/frontier.hpp"
#include "phasesim/commands/inspect.hpp"
#include "phasesim/commands/lab.hpp"
#include "phasesim/commands/model.hpp"
#include "phasesim/commands/niah.hpp"
#include "phasesim/commands/parity.hpp"
#include "phasesim/commands/sweep.hpp"
#include "phasesim/commands/theorems.hpp"

namespace phasesim::commands {

CommandRegistry builtin_commands(const Environment& environment) {
  CommandRegistry registry;
  const auto add = [&]<class C>() { registry.add(std::make_unique<CommandOf<C>>(environment)); };
  add.operator()<Coverage>();
  add.operator()<Channel>();
  add.operator()<Niah>();
  add.operator()<GpuCheck>();
  add.operator()<PrecisionCheck>();
  add.operator()<Compare>();
  add.operator()<Frontier>();
  add.operator()<Optimize>();
  add.operator()<PhaseDiagram>();
  add.operator()<Dynamics>();
  add.operator()<Diversity>();
  add.operator()<TheoremConcentration>();
  add.operator()<TheoremLockin>();
  add.operator()<TheoremDiversity>();
  add.operator()<Train>();
  add.operator()<Sweep>();
  add.operator()<Diagnose>();
  add.operator()<Inspect>();
  return registry;
}

}  // namespace phasesim::commands
