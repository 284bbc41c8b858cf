#include "phasesim/channel/success_curve.hpp"

#include <algorithm>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "phasesim/core/normal.hpp"
#include "phasesim/core/portable_math.hpp"

namespace phasesim::channel {
namespace {

// Nodes of a curve (success_curve.hpp).
int node_count(double beta) { return 33 + 6 * static_cast<int>(std::ceil(std::min(beta, 40.0))); }

// The needle's best logit t (the maximum of k standard normals) lies in [-9, 9] but for a
// mass below k 1e-19, 1e-13 for the largest window diagnose accepts (2^20 slots).
constexpr double kRange = 9;

// Nodes past the largest allowed theta when several slots share the weight (theta stays
// below pi/4 there), so that the spline's end, where its slope is only estimated, lies
// outside the range it is used on.
constexpr int kMargin = 6;

int margin(const PhaseSlots& slots) { return slots.weighted > 1 ? kMargin : 0; }

std::vector<double> tabulate(const PhaseSlots& slots, double beta, std::int64_t entries,
                             double max_theta) {
  const int nodes = node_count(beta);
  std::vector<double> values(static_cast<std::size_t>(nodes + margin(slots)));
  for (int i = 0; i < nodes + margin(slots); ++i) {
    const double u = std::sin(max_theta * i / (nodes - 1));
    values[static_cast<std::size_t>(i)] = phase_success_at(slots, std::min(u, 1.0), beta, entries);
  }
  return values;
}

}  // namespace

double needle_beats_distractors(double mean, double sd, int k, std::int64_t n) {
  if (n <= 0) return 1;
  const auto distractors = static_cast<double>(n);
  if (sd <= 0) return portable::exp(distractors * log_normal_cdf_double(mean));
  // Phi(x)^n rises from 0 to 1 around x* = its median, over a width of about 1/x* (the
  // scale of the maximum of n normals), i.e. over w / sd in t: pieces break there.
  const double median = normal_quantile_from_log_cdf(portable::log(0.5) / distractors);
  const double width = 1 / std::max(1.0, median) / sd;
  const double center = (median - mean) / sd;
  std::vector<double> points{-kRange, -3, -1.5, 0, 1.5, 3, kRange};
  for (double j : {-4.0, -1.5, 1.5, 4.0}) {
    const double t = center + j * width;
    if (t > -kRange && t < kRange) points.push_back(t);
  }
  std::sort(points.begin(), points.end());
  auto integrand = [&](double t) {
    const double log_best = portable::log(static_cast<double>(k)) + log_normal_pdf(t) +
                            (k > 1 ? (k - 1) * log_normal_cdf_double(t) : 0.0);
    return portable::exp(log_best + distractors * log_normal_cdf_double(mean + sd * t));
  };
  double sum = 0;
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    if (points[i + 1] > points[i]) {
      sum += boost::math::quadrature::gauss_kronrod<double, 15>::integrate(integrand, points[i],
                                                                           points[i + 1], 0, 0);
    }
  }
  return std::clamp(sum, 0.0, 1.0);
}

double phase_success_at(const PhaseSlots& slots, double u, double beta, std::int64_t entries) {
  if (slots.holding == 0) return 0;
  const std::int64_t standard = entries - slots.weighted;  // N(0, 1) logits besides the needle's
  if (standard <= 0) return 1;
  const double sd = std::sqrt(std::max(0.0, 1 - u * u));
  const double beats = needle_beats_distractors(beta * u, sd, slots.weighted, standard);
  const double spare =
      static_cast<double>(slots.holding - slots.weighted) / static_cast<double>(standard);
  return beats + spare * (1 - beats);
}

SuccessCurve::SuccessCurve(const PhaseSlots& slots, double beta, std::int64_t entries)
    : max_u_(1 / std::sqrt(static_cast<double>(std::max(1, slots.weighted)))), spline_([&] {
        const auto values = tabulate(slots, beta, entries, std::asin(max_u_));
        // One weighted slot: the success is even in theta about pi/2 (sin is even there, and
        // cos changes sign under the symmetric Z), so its slope there is 0. Elsewhere the
        // spline estimates the end slopes.
        const double nan = std::numeric_limits<double>::quiet_NaN();
        return boost::math::interpolators::cardinal_cubic_b_spline<double>(
            values.begin(), values.end(), 0.0, std::asin(max_u_) / (node_count(beta) - 1), nan,
            slots.weighted == 1 ? 0.0 : nan);
      }()) {}

double SuccessCurve::operator()(double u) const {
  return std::clamp(spline_(std::asin(std::clamp(u, 0.0, max_u_))), 0.0, 1.0);
}

}  // namespace phasesim::channel
