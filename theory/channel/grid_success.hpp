#pragma once
// The success at every point of a tensor grid of coordinates, from one quadrature shared by
// the whole grid (internal to theory/channel: the nodes of a SuccessTable's patch).
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "phasesim/channel/channel.hpp"

namespace phasesim::channel::detail {

/// The logit law of one needle entry, mean + sd N(0, 1), as a step Phi((y - mean) / sd) in y.
struct Step {
  double mean, sd;
};

/// A composite Gauss-Legendre rule over M, the maximum of `distractors` N(0, 1), covering all
/// but 1e-18 of its mass on each side: sum_j weight_j g(y_j) ~ E[g(M)]. Its pieces (16 nodes
/// each) are at most `density_scales` scales of M long (1/median(M), at most 1), at most
/// `widest`, and at most `step_sds` sd within 8 sd of each step's mean.
/// What the rule takes from the distractor count alone: M's quantiles at 1e-18, 1 - 1e-18 and
/// 1/2 (three erfc_inv, in long double: in WebAssembly that is binary128 in software, about as
/// much as the rest of a 350-node rule), computed once by whoever builds many rules for one N.
struct MaximumRange {
  double n, log_n, lo, hi, median;
};
MaximumRange maximum_range(std::int64_t distractors);

/// Nodes a piece of a composite rule has (16-point Gauss-Legendre).
inline constexpr std::size_t kPieceNodes = 16;

struct MaximumRule {
  std::vector<double> y;
  std::vector<double> weight;  ///< the rule's weight times the density of M at y
  MaximumRange range{};        ///< the range it was built over
  std::vector<double> starts;  ///< where each piece starts (piece k: nodes kPieceNodes k on)
};
MaximumRule maximum_rule(const MaximumRange& range, std::span<const Step> steps,
                         double widest = std::numeric_limits<double>::infinity(),
                         double density_scales = 1, double step_sds = 2);
inline MaximumRule maximum_rule(std::int64_t distractors, std::span<const Step> steps,
                                double widest = std::numeric_limits<double>::infinity(),
                                double density_scales = 1, double step_sds = 2) {
  return maximum_rule(maximum_range(distractors), steps, widest, density_scales, step_sds);
}

/// P(x_1, ..., x_m) = 1 - E[prod_s Phi((M - mean_s) / sd_s)], M the maximum of `distractors`
/// N(0, 1), at every point of the grid axes[0] x ... x axes[m-1] (m = axes.size(), 1 or 2;
/// row-major, the last axis fastest), each x_s's entry being law_entry(law, beta, x_s). One
/// composite Gauss-Legendre rule over M serves every point: its pieces are short enough for
/// the narrowest step Phi((y - mean)/sd) of any grid value where that step is not flat, and for
/// the density of M. Absolute error about 1e-14 for sd above 1e-9 (against needle_success in
/// tests/channel/success_table_test.cpp). distractors >= 1.
std::vector<double> grid_success(EntryLaw law, double beta, std::int64_t distractors,
                                 std::span<const std::vector<double>> axes);

}  // namespace phasesim::channel::detail
