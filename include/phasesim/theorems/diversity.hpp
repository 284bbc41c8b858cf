#pragma once
// Theorem 3: the diversification gain of N heads is Theta(1/N), exactly over the
// multinomial head assignment, and what joint training of the heads does.
#include <cstdint>
#include <string>
#include <vector>

#include "phasesim/core/document.hpp"
#include "phasesim/core/parallel.hpp"
#include "phasesim/theorems/dynamics.hpp"
#include "phasesim/theorems/objective.hpp"

namespace phasesim::theorems {

/// The output loss l(z) = log(1 + M e^-z) for M competing answers, and its derivatives.
struct OutputLoss {
  double answers = 1000;  ///< M
  double value(double z) const;
  /// d^k l / dz^k for k = 1..4 (in terms of s = M e^-z / (1 + M e^-z): -s, s(1-s), ...).
  double derivative(double z, int order) const;
};

/// N heads, each one-hot on a phase; a covered phase is retrieved by each head that
/// covers it with probability p; the output sees z_phi = beta_o p n_phi / N.
struct DiversityModel {
  int stride = Geometry{}.stride;  ///< S
  double beta_out = 12;            ///< beta_o
  double success = 0.9;            ///< p
  OutputLoss loss;

  /// Throws InputError (naming the CLI options) on bad parameters.
  void validate() const;
  /// L for a head-count profile n_phi: (1/S) sum_phi l(beta_o p n_phi / N).
  double loss_of(const std::vector<int>& counts) const;
  /// C = (1/2)(beta_o p)^2 l''(beta_o p/S) (S-1)/S^2.
  double constant() const;
};

struct DiversityRow {
  int heads = 0;             ///< N
  double loss_balanced = 0;  ///< the most even split (counts differ by at most 1)
  double loss_random = 0;    ///< E[L] over the multinomial assignment, exactly
  double gap = 0;            ///< loss_random - loss_balanced
  double gap_times_n = 0;
  double constant_c = 0;
  double gap_second_order = 0;             ///< C/N + D_N/N^2 (THEORY.md, T3)
  double p_all_covered = 0;                ///< inclusion-exclusion (by a stable recursion)
  double expected_blind = 0;               ///< S (1 - 1/S)^N
  std::vector<double> blind_distribution;  ///< P(exactly j phases blind), j = 0..S
};

/// Everything exact for N heads; O(N + N S) work (diversity_estimate), asking `parallel`'s
/// stop hook as it goes (check_stop).
DiversityRow diversity_row(const DiversityModel& model, int heads, const Parallel& parallel = {});

/// "64,128,256": head counts as --heads takes them, for messages.
std::string heads_list(const std::vector<int>& heads);

/// The time and memory of the exact rows of `heads` and, with `samples` > 0, of as many
/// sampled assignments for each (sample_diversity), measured on one core.
WorkEstimate diversity_estimate(const DiversityModel& model, const std::vector<int>& heads,
                                double samples = 0);
/// The row as `diversity` reports it (with p_some_blind = 1 - p_all_covered).
Json diversity_row_json(const DiversityRow& row);

/// P(exactly j of S phases blind) after N uniform heads, j = 0..S, by the occupancy
/// recursion (all terms positive, stable where inclusion-exclusion cancels); O(N S).
std::vector<double> blind_distribution(int stride, int heads, const Parallel& parallel = {});

/// The closed form 1 - sum_k (-1)^k C(S,k) (1 - k/S)^N of P(some phase blind)'s
/// complement, for checking the recursion (it cancels badly for large S).
double p_all_covered_inclusion_exclusion(int stride, int heads);

/// Least-squares slope of log(gap) against log(N).
double log_log_slope(const std::vector<DiversityRow>& rows);

/// Monte Carlo over `samples` assignments (Philox stream head_assignment, one assignment
/// per item of the parallel loop): mean and standard error of L and of the number of
/// blind phases.
struct SampledDiversity {
  double loss_mean = 0, loss_se = 0, blind_mean = 0, blind_se = 0;
};
SampledDiversity sample_diversity(const DiversityModel& model, int heads, int samples,
                                  std::uint64_t seed, const Parallel& parallel = {});
/// sampled_loss, sampled_loss_se, sampled_blind, sampled_blind_se: what `diversity
/// --samples` adds to each row.
Json sampled_diversity_json(const SampledDiversity& sampled);

/// Joint training of H heads (T3): each head h has its own logits (init
/// random:SEED+h:SCALE) and per-phase success P_h(phi) from its own channel; the output
/// sees z_phi = beta_o (1/H) sum_h P_h(phi) and the heads descend L = (1/S) sum l(z_phi)
/// together, each step b^h -= lr (H / beta_o) dL/db^h (so that --lr means what it means
/// in `dynamics` while the loss is far from saturated), following the flow as there.
struct TrainingSettings {
  int heads = 4;
  std::uint64_t seed = 1;
  double init_scale = 0.1;
  int steps = 300;
  double lr = 20;
  double max_logit_step = 0.1;
};

struct TrainedHead {
  int init_slot = 0, final_slot = 0, init_phase = 0, final_phase = 0;
  double final_max_weight = 0;
};

struct TrainingRun {
  std::vector<TrainedHead> heads;
  std::vector<int> coverage;  ///< heads whose final slot has phase phi
  int blind = 0;              ///< phases with no head
  int initial_blind = 0;      ///< phases that no head's initial argmax covers
  int kept = 0;               ///< heads whose final phase is their initial argmax's phase
  double initial_loss = 0, final_loss = 0;
};

/// The heads' channels are evaluated in parallel, one head per item of the loop.
TrainingRun train_heads(const Objective& channel, const DiversityModel& model,
                        const TrainingSettings& settings, const Parallel& parallel = {});

/// `runs` joint trainings of settings.heads heads, run r from seed settings.seed + 1000 r,
/// one after the other: the blind phases they leave against the multinomial law of T3.
struct TrainingStatistics {
  struct Run {
    std::uint64_t seed = 0;
    TrainingRun result;
  };
  int heads = 0;
  std::vector<Run> runs;
  double blind_mean = 0, blind_se = 0;               ///< over the runs
  double blind_predicted = 0;                        ///< S (1 - 1/S)^H, the multinomial mean
  double blind_initial_mean = 0;                     ///< blind phases of the initial argmaxes
  std::vector<double> blind_distribution_observed;   ///< fraction of runs with j blind
  std::vector<double> blind_distribution_predicted;  ///< blind_distribution(S, H)
  int heads_kept = 0;   ///< heads whose final phase is their initial argmax's, in all runs
  int heads_total = 0;  ///< H times the runs
};
TrainingStatistics training_statistics(const Objective& channel, const DiversityModel& model,
                                       const TrainingSettings& settings, int runs,
                                       const Parallel& parallel);

/// The time and memory of `runs` trainings of each head count in `heads` (core/budget.hpp).
WorkEstimate training_estimate(const Objective& channel, const TrainingSettings& settings,
                               const std::vector<int>& heads, double runs);

/// Throws InputError naming --train-heads, --train-runs, --train-steps, --lr or --init-scale,
/// or saying that the trainings are beyond the limits of core/budget.hpp.
void validate_training(const Objective& channel, const TrainingSettings& settings,
                       const std::vector<int>& heads, int runs);
/// The statistics as `diversity --train-heads` reports them, every run under per_run.
Json training_json(const TrainingStatistics& statistics);

}  // namespace phasesim::theorems
