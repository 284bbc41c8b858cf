#pragma once
// The lock-in experiment of Theorem 2 (theory/THEORY.md T2(d)): run the dynamics from an
// init, then move all phase weight to a phase that the initial argmax does not cover and
// run on. The gate is locked in when the initial argmax is still the argmax at the
// re-weighting and at the end.
#include <tuple>
#include <vector>

#include "phasesim/core/bytes.hpp"
#include "phasesim/core/document.hpp"
#include "phasesim/core/parallel.hpp"
#include "phasesim/model/geometry.hpp"
#include "phasesim/theorems/dynamics.hpp"
#include "phasesim/theorems/dynamics_batch.hpp"

namespace phasesim::theorems {

struct LockinSettings {
  /// The run before the re-weighting. The experiment sets the content seed (each run's),
  /// the re-weighting and the recording (start and end only).
  DynamicsSettings dynamics;
  int reweight_steps = 500;  ///< steps after the re-weighting (0: none)
};

/// Throws InputError unless the geometry has a phase to move the weight to: at least two
/// phases with slots (stride and window at least 2) when there are re-weighting steps.
void validate_lockin(const Geometry& geometry, const LockinSettings& settings);

/// The first phase after phi (cyclically) that has slots, or -1 when there is none.
int other_phase(const Geometry& geometry, int phi);

struct LockinRun {
  RunSpec spec;
  int reweighted_to = -1;  ///< the phase that got all the weight (-1: no re-weighting)
  DynamicsRun result;

  /// The initial argmax is the argmax at the re-weighting (if any) and at the end.
  bool locked() const;
};

/// One run: settings.dynamics.steps steps, then all weight to other_phase of the initial
/// argmax's phase and settings.reweight_steps steps more; `parallel`'s stop hook is asked
/// between steps.
LockinRun lockin_run(const Objective& objective, const LockinSettings& settings, RunSpec spec,
                     const Parallel& parallel = {});

/// lockin_run for every spec, one run per item of the parallel loop, in the specs' order.
std::vector<LockinRun> lockin_runs(const Objective& objective, const LockinSettings& settings,
                                   const std::vector<RunSpec>& specs, const Parallel& parallel);

/// The run as `theorem lockin` reports it.
Json lockin_run_json(const LockinRun& run);

}  // namespace phasesim::theorems

// The results that cross the ranks of an MPI job (core/bytes.hpp): Fields is core's template.
namespace phasesim {

template <>
struct Fields<theorems::LockinRun> {
  static auto of(auto& r) { return std::tie(r.spec, r.reweighted_to, r.result); }
};

}  // namespace phasesim
