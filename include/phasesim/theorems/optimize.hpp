#pragma once
// Gate optimization (Theorem 1): maximize J(g) over the simplex with g = softmax(b), by
// L-BFGS ascent on the logits with the exact gradient, from several starts.
#include <cstdint>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "phasesim/core/budget.hpp"
#include "phasesim/core/bytes.hpp"
#include "phasesim/core/parallel.hpp"
#include "phasesim/theorems/objective.hpp"

namespace phasesim::theorems {

/// Result of one local ascent.
struct Ascent {
  std::vector<double> logits;
  ObjectiveValue at;  ///< J, P(phi) and dJ/db at the final logits
  int iterations = 0;
};

/// L-BFGS ascent on the logits from `logits`: stops when the logit gradient is below
/// 1e-10 in every coordinate, when J stops improving (relative change below 1e-15 over
/// three iterations), when a backtracking line search finds no increase, or after
/// `max_iterations`. J never decreases along the way.
Ascent lbfgs_ascent(const Objective& objective, std::vector<double> logits, int max_iterations);

struct OptimizeSettings {
  int restarts = 8;         ///< random starts random:SEED+r:init_scale, r = 0..restarts-1
  std::uint64_t seed = 1;   ///< SEED above
  double init_scale = 2.0;  ///< SCALE above
  int max_iterations = 500;
  /// Further starts (logits), e.g. the previous optimum when sweeping beta.
  std::vector<std::vector<double>> warm_starts;

  /// Throws InputError naming --restarts, --init-scale or --max-iterations.
  void validate() const;
};

struct GateOptimum {
  std::vector<double> gate;  ///< best weights found
  std::vector<double> logits;
  double objective = 0;  ///< J(gate)
  std::vector<double> per_phase;
  double onehot_objective = 0;  ///< best J over one-hot gates
  int onehot_slot = 0;
  GateSummary summary;
  int k_star_predicted = 1;  ///< equal-split law (THEORY.md, T1b)
  /// The equal-split law's J of k phases, k = 1.. (equal_split_law's values, computed once with
  /// k_star_predicted: S quadratures, 128 at HCA's W = S = 128).
  std::vector<double> equal_split_values;
  std::string best_start;  ///< which start led to the optimum
  int starts = 0;
  int iterations = 0;  ///< summed over starts
};

/// Runs lbfgs_ascent from: the equal splits over the k heaviest-weighted phases
/// (k = 1..phases with slots), every warm start and `restarts` random starts (one start
/// per item of the parallel loop), then polishes the best: its one-hot and its equal split
/// over the slots above 1% are tried as starts too. The result depends only on the
/// settings, not on the thread count (ties go to the earlier start).
GateOptimum optimize_gate(const Objective& objective, const OptimizeSettings& settings,
                          const Parallel& parallel = {});

/// How many ascents optimize_gate runs (every start, then three polishing runs): the
/// items its parallel loops report done.
std::int64_t optimize_ascents(const Objective& objective, const OptimizeSettings& settings);

/// The time and memory optimize_gate is estimated to need (phasesim/core/budget.hpp).
WorkEstimate optimize_estimate(const Objective& objective, const OptimizeSettings& settings);

/// The work of chains of optimizations (phase-diagram: one chain per N, one link per beta, each
/// link its own objective), every link after a chain's first warm-started from the one before:
/// the ascents in all (the items the parallel loops report) and the time and peak memory.
struct ChainWork {
  std::int64_t ascents = 0;
  WorkEstimate estimate;
};
ChainWork chained_optimize_work(const std::vector<std::vector<Objective>>& chains,
                                const OptimizeSettings& settings);

/// One optimization's work.
ChainWork optimize_work(const Objective& objective, const OptimizeSettings& settings);

/// The best one-hot gate: its slot and J; at ties (every slot, with uniform phase weights) the
/// `preferred` slot, e.g. the optimum's heaviest, so that a table does not name slot 0 next
/// to an optimum on slot 7.
std::pair<int, double> best_onehot(const Objective& objective, int preferred = 0);

/// Logits of a start that puts almost all weight, equally, on `slots` (the rest gets
/// e^-8 relative weight so that the ascent can still move it).
std::vector<double> split_logits(int window, const std::vector<int>& slots);

}  // namespace phasesim::theorems

// The results that cross the ranks of an MPI job (core/bytes.hpp): Fields is core's template.
namespace phasesim {

template <>
struct Fields<theorems::Ascent> {
  static auto of(auto& a) { return std::tie(a.logits, a.at, a.iterations); }
};

}  // namespace phasesim
