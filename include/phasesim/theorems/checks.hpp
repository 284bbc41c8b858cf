#pragma once
// The theorem checks of `phasesim theorem` (MODEL.md section 7, theory/THEORY.md T1-T3):
// for given parameters, each check states what the theorem predicts, whether the
// parameters are inside the theorem's regime, what the numerical check found, and whether
// the two agree. The thresholds of the verdicts and the regime logic live here.
#include <optional>
#include <string>
#include <vector>

#include "phasesim/core/document.hpp"
#include "phasesim/core/parallel.hpp"
#include "phasesim/theorems/diversity.hpp"
#include "phasesim/theorems/dynamics_batch.hpp"
#include "phasesim/theorems/lockin.hpp"
#include "phasesim/theorems/objective.hpp"
#include "phasesim/theorems/optimize.hpp"

namespace phasesim::theorems {

/// What every check states and concludes.
struct Verdict {
  std::string title;       ///< the theorem and the parameters, e.g. "theorem lockin (...), W=8 ..."
  std::string prediction;  ///< what the theorem predicts for the parameters
  std::string regime;      ///< why the parameters are inside or outside its hypotheses
  std::string check;       ///< what the numerical check found
  bool inside = true;      ///< the parameters meet the theorem's hypotheses
  bool agree = true;       ///< the check agrees with the prediction
};

/// prediction, regime ("inside"/"outside"), regime_detail, check, agree and verdict
/// ("agree"/"disagree"): the last keys of every `theorem` document (the title is not one).
Json verdict_json(const Verdict& verdict);

/// T1: the optimum of J found by optimize_gate is concentrated (max weight >= threshold);
/// in the linear model it is one-hot, no better than the best one-hot gate.
struct ConcentrationCheck {
  double beta_star = 0;  ///< beta*(N) of the linear model (T1a); beta*(N, k) under top-k
  /// Under top-k selection, beta*(N/k) at k = 1: the extreme-value heuristic's guess of it.
  std::optional<double> beta_star_heuristic;
  int k_star = 1;  ///< the equal-split law's k* (T1b)
  /// Normalized model: the first-order max weight near the vertex (T1b(ii); NaN when the
  /// vertex is no maximum). Empty in the linear model.
  std::optional<double> max_weight_first_order;
  GateOptimum optimum;
  Verdict verdict;
};
struct ConcentrationCheckSettings {
  OptimizeSettings search;
  double threshold = 0.99;  ///< the max weight that counts as concentrated
  /// Throws InputError naming --threshold or the search's options.
  void validate() const;
};
/// Throws InputError for --model channels: T1a and T1b are stated for the linear and the
/// normalized model only (THEORY.md, "T1 for channel allocations").
void validate_concentration_model(const Objective& objective);
ConcentrationCheck check_concentration(const Objective& objective,
                                       const ConcentrationCheckSettings& settings,
                                       const Parallel& parallel);
/// Its results and verdict under the keys of `theorem concentration`.
Json check_json(const ConcentrationCheck& check);

/// T2: every lock-in run (lockin.hpp) keeps its initial argmax; inside where k* = 1, the
/// update is gradient ascent, and every gate re-weighted was concentrated (max weight >= 0.9)
/// before it, as T2(d) assumes.
struct LockinCheck {
  int k_star = 1;  ///< the equal-split law's k*
  std::vector<LockinRun> runs;
  int locked = 0;   ///< runs locked in
  int ordered = 0;  ///< runs along which condition (M) held
  Verdict verdict;
};
LockinCheck check_lockin(const Objective& objective, const LockinSettings& settings,
                         const std::vector<RunSpec>& specs, const Parallel& parallel);
/// Its results and verdict under the keys of `theorem lockin`.
Json check_json(const LockinCheck& check);

/// T3: N gap -> C and the log-log slope of the gap -> -1, to a relative tolerance, at
/// the last N given, the largest: inside when N >= 16 S and the second-order term D_N / N^2
/// (THEORY.md T3) moves N gap and the slope over the last two N by at most half the
/// tolerance, so that the claim should hold at the N tested; the recursion for P(all
/// covered) matches inclusion-exclusion where that does not cancel (S <= 20). A model whose
/// C is 0 or underflows (--success 0, --beta-out 0 or so large that the loss saturates) is
/// refused: there is nothing to compare.
struct DiversityCheck {
  std::vector<DiversityRow> rows;  ///< one per head count, in the given order
  double constant_c = 0;
  double relative_error = 0;  ///< |N gap - C| / C at the last N
  double slope = 0;           ///< over all rows (NaN with fewer than two)
  double local_slope = 0;     ///< over the last two rows (NaN with one)
  double inclusion_exclusion_error = 0;
  /// |N (C/N + D_N/N^2) - C| / C at the last N: how far the second-order term alone moves N gap.
  double second_order_share = 0;
  /// How far it moves the log-log slope over the last two N from -1.
  double second_order_slope = 0;
  Verdict verdict;
};
struct DiversityCheckSettings {
  double tolerance = 0.05;  ///< allowed relative error of N gap against C and of the slope
  /// Throws InputError naming --tolerance.
  void validate() const;
};
/// Throws InputError naming the option when the check cannot be made: fewer than two N, N not
/// increasing, one phase, a C of 0 or one that underflows, a bad --tolerance.
void validate_diversity_check(const DiversityModel& model, const std::vector<int>& heads,
                              const DiversityCheckSettings& settings);
DiversityCheck check_diversity(const DiversityModel& model, const std::vector<int>& heads,
                               const DiversityCheckSettings& settings,
                               const Parallel& parallel = {});
/// Its results and verdict under the keys of `theorem diversity`.
Json check_json(const DiversityCheck& check);

}  // namespace phasesim::theorems
