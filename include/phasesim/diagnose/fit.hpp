#pragma once
// Maximum-likelihood fits of the idealized model (MODEL.md sections 3-4) to per-phase
// counts, with profile-likelihood intervals (docs/DIAGNOSE.md says what is identifiable):
//
//  - one head (fit_one_head): phase phi succeeds with P_phi(u_phi; beta, N), where u_phi is
//    the normalized weight of the phase's weighted slots and sum_phi weighted_phi u_phi^2 = 1.
//    With S phases this has S free parameters (beta and the S - 1 free weights) for S
//    accuracies: the fit reproduces the table, and the unit norm is what pins beta down.
//  - H one-hot heads (fit_one_hot_heads): every head puts all its weight on one slot (the
//    lock-in of T2); n_phi heads cover phase phi (sum n_phi = H) and it succeeds with
//    1 - (1 - p1)^n_phi (1 - p0)^(H - n_phi), p1 = P(1; beta, N), p0 = chance. For needles of
//    2 tokens (fit_two_token_heads) the heads on phi + 1 see the needle too.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "phasesim/channel/success_curve.hpp"
#include "phasesim/core/parallel.hpp"

namespace phasesim::diagnose {

/// One phase of the table: pooled counts, and how the phase sits in the cache.
struct PhaseData {
  std::int64_t successes = 0;
  std::int64_t trials = 0;
  channel::PhaseSlots slots;
};

struct FitInput {
  std::vector<PhaseData> phases;  ///< phase phi at index phi
  std::int64_t entries = 32768;   ///< N: entries before the query
  int heads = 1;                  ///< H (fit_one_hot_heads)
  /// The read path (MODEL.md section 10, issue 37) when given: stage 1 keeps the top_k of
  /// the entries by a selection score of the attention's gate and beta (rho = 0), stage 2
  /// reads them against sliding_window raw haystack tokens; a needle inside the window (a
  /// share window_share of the needles) is also read raw at u = 1. Neither set: section 4's
  /// argmax over every entry, the channel's SuccessCurve.
  std::optional<std::int64_t> top_k;
  std::int64_t sliding_window = 0;
  double window_share = 0;
  /// The cache's window and stride, and the needle's tokens: fit_two_token_needles reads a
  /// phase's needle where the geometry puts its tokens (the other fits need only the slots).
  int window = 0;
  int stride = 0;
  int needle_tokens = 1;
  bool read_path() const { return top_k.has_value() || sliding_window > 0; }
  /// A phase's success over the table's needles from its success far from the query and inside
  /// the window: the table mixes the two by window_share.
  double mixed(double far, double inside) const {
    return (1 - window_share) * far + window_share * inside;
  }
};

/// The largest beta a fit explores; beyond it the success of a covered phase is 1 to
/// within 1e-300 for any N up to 1e7, so a table cannot bound beta there.
inline constexpr double kMaxFitBeta = 40;

struct FittedPhase {
  int phase = 0;
  double accuracy = 0;  ///< the fitted success of the phase
  // One head: the normalized weight u of each weighted slot of the phase, its profile
  // interval, and the phase's share of the gate weight (coverage).
  std::optional<double> weight;
  std::optional<double> weight_low;
  std::optional<double> weight_high;
  std::optional<double> coverage;
  // One-hot heads: the heads covering the phase and the range the profile allows.
  std::optional<int> heads;
  std::optional<int> heads_low;
  std::optional<int> heads_high;
};

enum class FitModel { one_head, one_hot_heads };

/// "one-head" or "one-hot-heads", as the document names the model.
inline const char* model_name(FitModel model) {
  return model == FitModel::one_head ? "one-head" : "one-hot-heads";
}

struct ModelFit {
  FitModel model = FitModel::one_head;
  double beta = 0;
  double beta_low = 0;
  std::optional<double> beta_high;  ///< unset when the profile stays high up to kMaxFitBeta
  double log_likelihood = 0;
  /// 2 (log-likelihood of the per-phase saturated fit - log-likelihood of the model): 0
  /// when the model reproduces the table.
  double deviance = 0;
  int deviance_df = 0;  ///< phases - free continuous parameters (0: the model is saturated)
  /// chi-squared(deviance_df) p-value of the deviance (treating the head assignment as
  /// known); unset when deviance_df is 0.
  std::optional<double> deviance_p;
  std::vector<FittedPhase> phases;
};

/// The one-head model. Throws InputError unless there is at least one phase and every
/// phase has trials.
ModelFit fit_one_head(const FitInput& input, const Parallel& parallel);

/// The model of input.heads one-hot heads.
ModelFit fit_one_hot_heads(const FitInput& input);

/// One head reading needles of 2 tokens (docs/DIAGNOSE.md, "Needles of 2 tokens"): beta and
/// one weight u_phi per phase, every slot of phase phi weighing u_phi (W <= S: the phase's
/// slot; W > S: spread over its slots), sum_phi m_phi u_phi^2 = 1, u >= 0. A phase's success
/// is the analytic engine's read of a needle starting at that phase (channel/needle_read.hpp),
/// so phases that share a slot are coupled. Weight intervals only where two phases carry weight
/// (one free weight, e.g. W = S = 2); unset otherwise.
ModelFit fit_two_token_needles(const FitInput& input, const Parallel& parallel);

/// H one-hot heads reading needles of 2 tokens (docs/DIAGNOSE.md, "Needles of 2 tokens"): every
/// head puts all its weight on one slot; n_phi heads sit on phase phi (sum H, none on a phase
/// without a slot). A head on phase phi or phi + 1 sees one token of a needle starting at phi,
/// any other head none; each read is the analytic engine's at a one-hot gate, and the heads
/// combine as the engine combines them (independent, far from the query and in the window
/// apart). Fitted: beta and the assignment (exact, by dynamic programming around the phases),
/// with each phase's range of head counts.
ModelFit fit_two_token_heads(const FitInput& input, const Parallel& parallel);

/// The elementary steps of fit_two_token_heads' assignment at one beta, S (H + 1)^4: bounded by
/// the caller.
double two_token_heads_work(int stride, int heads);

/// The success of each phase of a 2-token needle under the fit's gate of phase weights u (any
/// scale) and beta: niah's analytic engine's, mixed over the window as the fits are.
std::vector<double> two_token_success(const FitInput& input, const std::vector<double>& u,
                                      double beta);

/// The same by the tables a fit searches over at one beta (for tests of their accuracy).
std::vector<double> two_token_tabulated(const FitInput& input, const std::vector<double>& u,
                                        double beta, const Parallel& parallel);

}  // namespace phasesim::diagnose
