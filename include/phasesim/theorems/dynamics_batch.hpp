#pragma once
// A batch of dynamics runs (Theorem 2, theory/THEORY.md T2): inits times content seeds,
// each run sequential and the runs in parallel through the parallel policy. Every run is
// keyed by its own init and content seed, so a batch gives the same runs on any number of
// threads.
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "phasesim/core/bytes.hpp"
#include "phasesim/core/document.hpp"
#include "phasesim/core/parallel.hpp"
#include "phasesim/theorems/dynamics.hpp"

namespace phasesim::theorems {

/// One dynamics run of a batch: its initial gate and content seed.
struct RunSpec {
  std::string init;
  std::uint64_t content_seed = 0;
};

/// The batch of `inits` inits (replicate_gate: random:SEED+i:SCALE for a random spec)
/// times every content seed, init-major. Throws InputError on a bad spec, inits < 1 or
/// no content seed.
std::vector<RunSpec> run_specs(const std::string& init, int inits,
                               const std::vector<std::uint64_t>& content_seeds, int window);

struct BatchRun {
  RunSpec spec;
  DynamicsRun result;
};

struct DynamicsBatch {
  std::vector<BatchRun> runs;  ///< in the order of the specs
  int kept = 0;                ///< runs whose final argmax is their initial argmax
};

/// Runs `settings` from every spec's init with the spec's content seed (in place of
/// settings.content.seed), one run per item of the parallel loop.
DynamicsBatch run_dynamics_batch(const Objective& objective, const std::vector<RunSpec>& specs,
                                 const DynamicsSettings& settings, const Parallel& parallel);

/// The batch as `dynamics` reports it: the first run's trajectory and slots, then every
/// run and the lock-in count. The batch must not be empty.
Json dynamics_batch_json(const DynamicsBatch& batch);

}  // namespace phasesim::theorems

// The results that cross the ranks of an MPI job (core/bytes.hpp): Fields is core's template.
namespace phasesim {

template <>
struct Fields<theorems::RunSpec> {
  static auto of(auto& s) { return std::tie(s.init, s.content_seed); }
};

template <>
struct Fields<theorems::BatchRun> {
  static auto of(auto& r) { return std::tie(r.spec, r.result); }
};

}  // namespace phasesim
