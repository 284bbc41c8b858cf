#pragma once
// The single-head objective J(g) = sum_phi w_phi P(phi; g) of MODEL.md section 6, with
// its exact gradient, in the normalized (physical), the linear-retention and the
// channel-share model.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "phasesim/channel/success_table.hpp"
#include "phasesim/core/bytes.hpp"
#include "phasesim/model/beta.hpp"
#include "phasesim/model/geometry.hpp"

namespace phasesim::theorems {

/// How a phase's success depends on the gate.
///  normalized: P(phi) = P(max_{s in Slots(phi)} beta u_s + sqrt(1 - u_s^2) Z_s > max of
///              N - m_phi distractors), u = g / ||g||_2 (MODEL.md section 4);
///  linear:     P(phi) = A_lin(c_phi) = P(beta c_phi + Z > max of N - 1 distractors), with
///              c_phi the largest gate weight among the slots of phi (MODEL.md section 6);
///  channels:   the W weights x are the shares of one-hot channel groups, group s pooling
///              slot s only (THEORY.md, "T1 for channel allocations"): P(phi) = P(max_{s in
///              Slots(phi)} beta x_s + sqrt(1 - x_s) Z_s > max of N - m_phi distractors).
/// N counts all entries; a phase without slots has P = 0 in all three.
enum class RetentionModel { normalized, linear, channels };

/// "normalized", "linear" or "channels"; throws InputError naming --model otherwise.
RetentionModel parse_retention_model(std::string_view name);
std::string to_string(RetentionModel model);

/// Everything J depends on besides the gate.
struct Objective {
  Geometry geometry;
  double beta = kDefaultBeta;
  std::int64_t entries = 32768;  ///< N, entries in all
  RetentionModel model = RetentionModel::normalized;
  std::vector<double> phase_weights;  ///< w_phi, summing to 1; empty means uniform 1/S
  /// T1 under selection (MODEL.md section 10): a phase succeeds when its best entry ranks in
  /// the top k, i.e. beats the k-th largest distractor (the top-k channel); 1 is section 4's
  /// argmax.
  std::int64_t top_k = 1;
  /// Where P(phi) comes from: unset, the channel's quadrature (exact to about 1e-12: what a
  /// report prints); set, these success tables (channel/success_table.hpp: within 1e-10, each
  /// phase a few lookups instead of a quadrature), shared by the copies of this objective and
  /// their threads. The searches (optimize, dynamics, T3's joint training) set them: tabled().
  /// The tables hold the argmax channel: with top_k > 1 every phase is integrated.
  std::shared_ptr<channel::SuccessTables> tables;
  /// Whether an evaluation of J computes P(phi) of the phases of weight 0 too (per_phase). Such
  /// a phase adds exactly 0 to J and its gradient, so the searches, which read only those, leave
  /// it out (tabled()), and its per_phase is NaN: T2 re-weighted onto one phase (the page's)
  /// then evaluates that phase alone.
  bool every_phase = true;

  /// Throws InputError (naming the CLI options) on bad parameters.
  void validate() const;
  /// w_phi for phi = 0..S-1 (uniform when phase_weights is empty).
  std::vector<double> weights() const;
};

/// The objective the searches evaluate: P(phi) from success tables (its own, or new ones when it
/// has none), phases of weight 0 left out (every_phase false).
Objective tabled(Objective objective);

/// Phase weights from the user's --weights list: S finite non-negative numbers, not all
/// zero, normalized to sum 1. Throws InputError naming `option`.
std::vector<double> normalized_phase_weights(std::span<const double> raw, int stride,
                                             const std::string& option = "--weights");

struct ObjectiveValue {
  double value = 0;               ///< J
  std::vector<double> per_phase;  ///< P(phi)
  std::vector<double> gradient;   ///< dJ/dg_s (gate weights) or dJ/db_s (logits)
};

/// Phase successes computed by the quadrature, kept across evaluations of one objective: the W
/// one-hot gates of best_onehot share one phase value per distinct coordinate vector (2 at
/// W = S, m + 1 for phases of m slots) instead of 2 quadratures each. Unused with tables.
struct SuccessMemo {
  std::vector<std::pair<std::vector<double>, channel::SuccessGradient>> computed;
};

/// J at gate weights g (non-negative, summing to 1) and dJ/dg_s, treating the W weights
/// as free coordinates (the simplex constraint is the caller's: project or use logits).
/// A memo, when given, keeps the quadrature's phase values for the next call on `objective`.
ObjectiveValue evaluate_weights(const Objective& objective, std::span<const double> weights,
                                SuccessMemo* memo = nullptr);

/// P(phi) for every phase and their derivatives with respect to the gate weights: the building
/// block of J (and of the multi-head loss of T3, which weighs the phases by the output loss).
/// Kept in O(W), not as an S x W matrix: slot s's coordinate x_s (u_s = g_s/||g|| in the
/// normalized model, the weight itself in the others) moves only the P of its own phase.
struct PhaseGradients {
  std::vector<double> success;  ///< P(phi)
  std::vector<int> phase;       ///< the phase of each slot
  std::vector<double> slope;    ///< dP(phase of s)/dx_s for each slot s (0 where x_s is unused)
  std::vector<double> gate;     ///< g, for the normalized model's chain rule; empty otherwise

  /// d/dg_t of sum_phi a_phi P(phi) for every slot t, O(W).
  std::vector<double> weighted_gradient(std::span<const double> a) const;
  /// dP(phi)/dg_t, O(W).
  double derivative(int phi, int t) const;
};
PhaseGradients phase_gradients(const Objective& objective, std::span<const double> weights,
                               SuccessMemo* memo = nullptr);

/// J at g = softmax(b) and dJ/db_t = g_t (dJ/dg_t - sum_s g_s dJ/dg_s).
ObjectiveValue evaluate_logits(const Objective& objective, std::span<const double> logits);

/// Building blocks of the chain rule. dJ/dg from dJ/du with u = g/||g||_2:
/// dJ/dg_t = (dJ/du_t - u_t sum_s u_s dJ/du_s) / ||g||.
std::vector<double> normalized_backprop(std::span<const double> g, std::span<const double> d_u);
/// dJ/db from dJ/dg with g = softmax(b): dJ/db_t = g_t (dJ/dg_t - sum_s g_s dJ/dg_s).
std::vector<double> softmax_backprop(std::span<const double> g, std::span<const double> d_g);

/// Logits of a gate spec (log of its weights; softmax gives the gate back), the way
/// every optimizer and dynamics run starts from --init / random:SEED:SCALE.
std::vector<double> initial_logits(const std::string& spec, int window);

/// What the commands report about a gate's shape.
struct GateSummary {
  int argmax = 0;         ///< heaviest slot (the first one at ties)
  double max_weight = 0;  ///< its weight
  double entropy = 0;     ///< -sum g log g, in nats (0 for a one-hot gate)
  int k_effective = 0;    ///< slots holding more than kEffectiveWeight
};

/// A slot counts towards k_effective when it holds more than 1% of the weight.
inline constexpr double kEffectiveWeight = 0.01;

GateSummary summarize_gate(std::span<const double> weights);

}  // namespace phasesim::theorems

// The results that cross the ranks of an MPI job (core/bytes.hpp): Fields is core's template.
namespace phasesim {

template <>
struct Fields<theorems::ObjectiveValue> {
  static auto of(auto& v) { return std::tie(v.value, v.per_phase, v.gradient); }
};

template <>
struct Fields<theorems::PhaseGradients> {
  static auto of(auto& p) { return std::tie(p.success, p.phase, p.slope, p.gate); }
};

}  // namespace phasesim
