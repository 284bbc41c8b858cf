#pragma once
// A fast version of the channel's per-phase success (MODEL.md section 4), for callers that
// evaluate it thousands of times per answer (diagnose's fits) and need 1e-8, not the 1e-12 of
// needle_success (channel.hpp), which it approximates:
//  - needle_beats_distractors integrates over the needle's best logit instead of the
//    distractor maximum (smooth for every u) with fixed-order Gauss-Kronrod on pieces:
//    within 1e-8 of needle_success for k needle entries of equal law;
//  - SuccessCurve tabulates it once per beta as a cubic spline in theta = asin(u): within
//    5e-6 of phase_success_at up to beta = 40.
// Both bounds are checked against needle_success in tests/channel/success_curve_test.cpp.
#include <boost/math/interpolators/cardinal_cubic_b_spline.hpp>
#include <cstdint>

namespace phasesim::channel {

/// P(mean + sd * M_k > M_n), M_j the maximum of j iid N(0, 1): the best of k needle entries
/// with logits mean + sd Z beats n distractors. Gauss-Kronrod on pieces around the
/// transition of Phi(mean + sd t)^n; absolute error below 1e-8. k >= 1, n >= 0, sd in [0, 1].
double needle_beats_distractors(double mean, double sd, int k, std::int64_t n);

/// How a phase sits in the cache: `holding` entries hold a needle of the phase (m_phi) and
/// `weighted` of them (1 <= weighted <= holding) carry its normalized weight u, the others 0.
struct PhaseSlots {
  int holding = 1;
  int weighted = 1;
};

/// Success of a needle of that phase with `entries` entries in all: the weighted entries
/// score beta u + sqrt(1 - u^2) Z, the other holding entries and every distractor N(0, 1).
/// By symmetry, when the weighted entries lose, an unweighted holding entry wins the
/// remaining N - weighted standard normals with probability (holding - weighted) / (N -
/// weighted). Chance (u = 0) is holding / N.
double phase_success_at(const PhaseSlots& slots, double u, double beta, std::int64_t entries);

/// phase_success_at for one beta as a function of u in [0, 1/sqrt(weighted)] (the largest
/// u the unit norm allows): a cubic B-spline on nodes uniform in theta = asin(u), where the
/// success is smooth up to u = 1/sqrt(weighted); 33 + 6 ceil(beta) nodes, as the success
/// turns from chance to 1 over a width of about 1/beta in u. Interpolation error below
/// 5e-6 up to beta = 40 (tests/channel/success_curve_test.cpp).
class SuccessCurve {
 public:
  SuccessCurve(const PhaseSlots& slots, double beta, std::int64_t entries);
  /// Success at u (clamped to the allowed range), within [0, 1].
  double operator()(double u) const;
  double max_u() const { return max_u_; }

 private:
  double max_u_;
  boost::math::interpolators::cardinal_cubic_b_spline<double> spline_;
};

}  // namespace phasesim::channel
