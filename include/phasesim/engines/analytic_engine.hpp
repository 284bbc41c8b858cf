#pragma once
// The analytic engine: P_h(phi) of the standardized channel by quadrature for every head and
// phase (theory/channel); the report combines them exactly. Under --dim it is the large-d
// limit of the full-vector model, beta = sqrt(d / (1 + sigma_q^2)). Declared here, unlike the
// other engines, because code finds it by type (EngineRegistry::get) for what it computes.
#include <string>
#include <vector>

#include "phasesim/engines/engine.hpp"

namespace phasesim::engines {

class AnalyticEngine final : public Engine {
 public:
  std::string name() const override { return "analytic"; }
  bool monte_carlo() const override { return false; }
  void check(const niah::NiahModel& model) const override;
  std::string approximation(const niah::NiahModel& model) const override;
  std::vector<std::string> paths(const niah::NiahModel& model) const override;

 protected:
  niah::EngineOutput run(const niah::NiahRun& run, const Parallel& parallel) const override;
};

}  // namespace phasesim::engines
