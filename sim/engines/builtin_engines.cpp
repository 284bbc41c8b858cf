// The engines phasesim ships. Each engine's file defines its factory; registering an engine
// is its line below (the declarations only say that the factory exists).
#include "phasesim/engines/engine.hpp"

namespace phasesim::engines {

std::unique_ptr<Engine> make_analytic_engine();  // analytic_engine.hpp declares its class
std::unique_ptr<Engine> make_fast_engine();
std::unique_ptr<Engine> make_full_engine();
std::unique_ptr<Engine> make_full_double_engine();
std::unique_ptr<Engine> make_gpu_engine();

EngineRegistry builtin_engines() {
  EngineRegistry registry;
  registry.add(make_analytic_engine());
  registry.add(make_fast_engine());
  registry.add(make_full_engine());
  registry.add(make_full_double_engine());
  registry.add(make_gpu_engine());
  return registry;
}

}  // namespace phasesim::engines
