#pragma once
// The analytic engine: P_h(phi) of the standardized channel by quadrature for every distinct
// head and phase (theory/channel), the heads in parallel; the report combines them exactly. Under
// --dim it is the large-d limit of the full-vector model, beta = sqrt(d / (1 + sigma_q^2)).
// Declared here, unlike the other engines, because code finds it by type (EngineRegistry::get) for
// what it computes.
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
  /// One quadrature per phase of each distinct head (below), then the report's combination.
  WorkEstimate estimate(const niah::NiahRun& run) const override;

  /// For each head, the head whose P_h(phi) it repeats: the first query head of its cache
  /// (no query noise tells them apart in the analytic channel), or the first head with its
  /// geometry, gate (channel groups included), split projection and read path; itself when it
  /// is the first. Every entry is a head that repeats no other: each is computed once.
  static std::vector<int> computed_as(const niah::NiahModel& model);

 protected:
  niah::EngineOutput run(const niah::NiahRun& run, const Parallel& parallel) const override;
};

}  // namespace phasesim::engines
