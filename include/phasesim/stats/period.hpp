#pragma once
// Is there a period, and which? The one period test of phasesim, for any per-group table
// (a user's, read by `diagnose`; a trained layer's, read by `train`; docs/DIAGNOSE.md;
// MODEL.md sections 2 and 5). For every candidate P > 1 dividing the number of groups G, a
// likelihood-ratio test of "accuracy depends only on the group mod P" against "flat", with
// exact conditional p-values: given the table's margins the null distribution of a table
// does not depend on the unknown accuracy (it is multivariate hypergeometric), so Monte
// Carlo draws of it give a p-value that is valid at any sample size. Holm's correction
// covers the family of candidates, and the family of lack-of-fit tests that decide which of
// them explains the whole table.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "phasesim/core/budget.hpp"
#include "phasesim/core/document.hpp"
#include "phasesim/core/parallel.hpp"
#include "phasesim/stats/counts.hpp"

namespace phasesim::stats {

struct PeriodOptions {
  int replicates = 9999;  ///< Monte Carlo draws of each null distribution
  std::uint64_t seed = 1;
  double alpha = 0.05;
};

/// Throws InputError unless replicates is in [99, 1e6] and the work (replicates x groups x
/// (candidates + 1)) stays within 2e9 draws.
void validate_period_options(const PeriodOptions& options, int groups);

/// The time and memory of the tests of `groups` groups (core/budget.hpp).
WorkEstimate period_test_estimate(const PeriodOptions& options, int groups);

struct PeriodCandidate {
  int period = 0;
  /// 2 (log-likelihood with one accuracy per residue mod P - log-likelihood of one accuracy).
  double statistic = 0;
  int df = 0;                    ///< P - 1
  double p_value = 0;            ///< exact conditional test, (1 + exceedances) / (1 + replicates)
  double p_value_std_error = 0;  ///< Monte Carlo error of p_value
  double p_chi_squared = 0;      ///< the asymptotic chi-squared(df) p-value, for reference
  double p_holm = 0;             ///< Holm-adjusted over the candidates
  bool rejects_flat = false;     ///< p_holm <= alpha
  /// Lack of fit: the statistic of one accuracy per group against one per residue mod P
  /// (df G - P) and its exact conditional p-value given the residues' margins (1 for P = G).
  double lack_of_fit = 0;
  int lack_of_fit_df = 0;
  double lack_of_fit_p = 1;
  /// Holm-adjusted over the candidates below G: a period is passed over only on strong
  /// evidence of structure beyond it, so the true one is missed at most alpha of the time.
  double lack_of_fit_holm = 1;
  bool fits = true;  ///< lack_of_fit_holm > alpha
};

struct PeriodTest {
  PeriodOptions options;
  std::vector<PeriodCandidate> candidates;  ///< increasing P, the divisors of G above 1
  /// The smallest candidate that rejects flat (after Holm) and fits; unset when none does.
  std::optional<int> period;
};

/// 2 (log-likelihood with one accuracy per residue mod `period` - with one accuracy).
double period_statistic(const std::vector<GroupCount>& groups, int period);

/// All candidates' tests of a table of at least two groups, every group with trials. The
/// draws are keyed by (seed, replicate, candidate), so the result does not depend on the
/// threads. Throws InputError when the options are out of bounds (validate_period_options).
PeriodTest test_periods(const std::vector<GroupCount>& groups, const PeriodOptions& options,
                        const Parallel& parallel);

/// One sentence: the period found, or "no period detectable at this sample size", or that
/// some candidate beats flat but none explains the whole table.
std::string period_verdict(const PeriodTest& test);

/// The test as documents give it: {"candidates": [...], "period": P or null, "verdict": ...}.
Json period_json(const PeriodTest& test);

}  // namespace phasesim::stats
