#pragma once
// The standardized retrieval channel (MODEL.md section 4), by adaptive quadrature.
//
// A needle held by m entries has logits X_s = mean_s + sd_s * Z_s; each of n distractor
// entries has a logit Y ~ N(0, 1); everything is independent. The needle is retrieved
// when max_s X_s > max Y. The normalized model has mean = beta*u, sd = sqrt(1 - u^2);
// the linear-retention variant of Theorem 1a has mean = beta*c, sd = 1.
#include <cstdint>
#include <span>
#include <vector>

#include "phasesim/core/document.hpp"

namespace phasesim::channel {

/// Logit law of one entry that holds the needle: mean + sd * N(0, 1), sd in [0, 1].
struct NeedleEntry {
  double mean = 0;
  double sd = 1;
};

/// Needle entry of the normalized model: mean beta*u, sd sqrt(1 - u^2).
NeedleEntry normalized_entry(double beta, double u);

struct ChannelValue {
  double probability = 0;     ///< P(max_s X_s > max of n distractors)
  double error_estimate = 0;  ///< quadrature error estimate plus truncated tail mass
};

/// P(max_s X_s > max of `distractors` iid N(0, 1)). Exact limits: no needle entry gives
/// 0, no distractor gives 1. Works in log space; accurate to ~1e-12 for n up to 1e7
/// and beyond. Throws InputError on sd outside [0, 1] or non-finite means.
ChannelValue needle_success(std::span<const NeedleEntry> needle, std::int64_t distractors);

/// The success probability and its partial derivatives with respect to each needle
/// entry's mean and sd, from the same quadrature as needle_success.
struct ChannelGradient {
  double probability = 0;
  double error_estimate = 0;
  std::vector<double> d_mean;  ///< dP/d mean_s
  std::vector<double> d_sd;    ///< dP/d sd_s (0 at sd = 0, its limit there)
};

/// needle_success with its gradient: differentiating under the integral, the needle
/// factor 1 - prod Phi(z_s), z_s = (y - mean_s)/sd_s, gives dP/dmean_s =
/// E[phi(z_s)/sd_s prod_{s' != s} Phi(z_s')] over the distractor maximum y, and
/// dP/dsd_s the same with an extra factor z_s. An entry with sd = 0 is a step at its
/// mean, so its dP/dmean_s is the density of the maximum there times the other factors.
ChannelGradient needle_success_gradient(std::span<const NeedleEntry> needle,
                                        std::int64_t distractors);

/// Throws InputError unless beta is finite and >= 0, every u is in [0, 1] and there are
/// at least as many entries as needle entries. Messages name the CLI options.
void validate_channel_inputs(double beta, std::span<const double> u, std::int64_t entries);

/// The `channel` document: beta, entries, u, needle_entries, distractors, p_success and
/// chance (m / entries), validated as success_probability does. The CLI prints it and the
/// Python module returns it.
Json channel_document(double beta, std::span<const double> u, std::int64_t entries);

/// Success of a needle whose m entries have normalized weights `u` among `entries` in
/// all (entries - m distractors): the multi-entry integral of MODEL.md section 4.
double success_probability(double beta, std::span<const double> u, std::int64_t entries);

/// A success probability and its derivatives dP/du_s in the normalized model.
struct SuccessGradient {
  double probability = 0;
  std::vector<double> d_u;
};

/// success_probability with dP/du_s = beta dP/dmean_s - u_s/sqrt(1 - u_s^2) dP/dsd_s.
/// At u_s = 1 it is the one-sided limit beta F(beta) - F'(beta), with F the density of
/// the distractor maximum times the other entries' factors; at most one u may be 1.
/// top_k > 1: the top-k channel's (top_k_success_gradient) instead.
SuccessGradient success_gradient(double beta, std::span<const double> u, std::int64_t entries,
                                 std::int64_t top_k = 1);

/// The top-k channel (MODEL.md section 10): P(max_s X_s > the top_k-th largest of `distractors`
/// iid N(0, 1)), the needle's best entry among the k best, with its gradient as
/// needle_success_gradient's (top_k = 1 is that). 1 when top_k exceeds the distractors.
ChannelGradient top_k_success_gradient(std::span<const NeedleEntry> needle,
                                       std::int64_t distractors, std::int64_t top_k);

/// The single-entry building block A(u; beta, N): one needle entry, N entries in all.
/// A(0; beta, N) = 1/N (chance) and A(1; beta, N) = Phi(beta)^(N-1).
double single_entry_success(double u, double beta, std::int64_t entries);

/// How a needle entry's logit law follows one coordinate x in [0, 1] of its slot: mean beta x,
/// and sd sqrt(1 - x^2) (normalized: x = u = g/||g||, MODEL.md section 4), sqrt(1 - x) (shares:
/// x the share of a one-hot channel group) or 1 (linear: x = c, Theorem 1a's linear retention).
enum class EntryLaw { normalized, shares, linear };

/// The needle entry of coordinate x under `law`.
NeedleEntry law_entry(EntryLaw law, double beta, double x);

/// P and dP/dx_s of a needle held by x.size() entries of coordinates x under `law`, with
/// entries - x.size() distractors, by the quadrature: success_gradient for normalized; for
/// shares dP/dx = beta dP/dmean - dP/dsd / (2 sd) (the sd term left out at sd = 0, x = 1); for
/// linear beta dP/dmean. The reference SuccessTable (success_table.hpp) is tested against.
/// top_k > 1: against the top_k-th largest distractor (the top-k channel), as success_gradient.
SuccessGradient law_success_gradient(EntryLaw law, double beta, std::int64_t entries,
                                     std::span<const double> x, std::int64_t top_k = 1);

}  // namespace phasesim::channel
