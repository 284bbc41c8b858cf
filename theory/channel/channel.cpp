#include "phasesim/channel/channel.hpp"

#include <algorithm>
#include <boost/math/special_functions/erf.hpp>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include "law_slope.hpp"
#include "order_law.hpp"
#include "phasesim/channel/read_path.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/core/normal.hpp"
#include "phasesim/core/portable_math.hpp"
#include "vector_quadrature.hpp"

namespace phasesim::channel {
namespace {

// Mass of the distractor maximum left outside the integration range, on each side.
constexpr double kTailMass = 1e-18;
// Gauss-Kronrod settings: relative tolerance per piece and bisection depth. Near a narrow
// entry (u close to 1) z is computed in the entry's own coordinate (see Piece), so the
// tolerance is not limited by rounding in (y - mean) / sd.
constexpr double kTolerance = 1e-12;
constexpr unsigned kMaxDepth = 12;
// Entries narrower than this get break points at +-8 sd too.
constexpr double kNarrow = 0.1;

// log P(x_s < y) for one needle entry whose standardized gap is z = (y - mean)/sd; a
// step at the mean when sd = 0.
double log_below(const NeedleEntry& e, double y, double z) {
  if (e.sd == 0) return y <= e.mean ? -std::numeric_limits<double>::infinity() : 0.0;
  return log_normal_cdf(z);
}

double log_below(const NeedleEntry& e, double y) {
  return log_below(e, y, e.sd > 0 ? (y - e.mean) / e.sd : 0.0);
}

// log of the density of the maximum of n iid N(0, 1) at y: log(n phi(y) Phi(y)^(n-1)).
double log_max_density(double y, double n) {
  const double log_below_all = n > 1 ? (n - 1) * log_normal_cdf(y) : 0.0;
  return portable::log(n) + log_normal_pdf(y) + log_below_all;
}

// Range [lo, hi] that holds all but 2 * kTailMass of the maximum of n normals.
std::pair<double, double> distractor_max_range(double n) {
  // Phi(lo)^n = kTailMass  and  1 - Phi(hi)^n = kTailMass.
  const double lo = normal_quantile_from_log_cdf(portable::log(kTailMass) / n);
  const double hi = normal_quantile_from_log_cdf(portable::log1p(-kTailMass) / n);
  return {lo, hi};
}

// What the needle must beat: the k-th largest of n iid N(0, 1), k = 1 their maximum (section
// 4, by the code above), k > 1 the top-k channel of MODEL.md section 10 (the needle passes
// selection when its best entry beats the k-th largest distractor; order_law.hpp).
struct Rival {
  detail::OrderLaw law;

  Rival(double n, std::int64_t k) : law(n, k) {}
  double log_density(double y) const {
    return law.k == 1 ? log_max_density(y, law.n) : law.log_density(y);
  }
  std::pair<double, double> range() const {
    return law.k == 1 ? distractor_max_range(law.n) : law.range(kTailMass);
  }
  double log_slope(double y) const { return law.log_slope(y); }
};

// A piece of the integration range. Inside the +-8 sd window of a narrow entry it is
// integrated in that entry's own coordinate t = (y - mean)/sd (a and b are then in t):
// computing z from y there would lose digits to rounding, a noise the adaptive rule
// cannot integrate away.
struct Piece {
  double a, b;
  int local = -1;  ///< the narrow entry whose coordinate a, b are in, or -1 for y
};

constexpr double kOffsets[] = {-8.0, -4.0, 0.0, 4.0, 8.0};

// The break points of entry e: mean + k sd for k in kOffsets (+-8 only when narrow).
std::vector<double> entry_points(const NeedleEntry& e) {
  std::vector<double> points;
  for (double k : kOffsets) {
    if (std::abs(k) <= 4 || e.sd <= kNarrow) points.push_back(e.mean + k * e.sd);
  }
  return points;
}

// t of a break point y in narrow entry e's coordinate, exact when y is one of its own.
double local_coordinate(const NeedleEntry& e, double y) {
  for (double k : kOffsets) {
    if (y == e.mean + k * e.sd) return k;
  }
  return (y - e.mean) / e.sd;
}

// Pieces between the points where the needle factor changes fastest (a jump where
// sd = 0); a narrow entry's derivative is a spike of width sd, so its tails are
// bracketed as well.
std::vector<Piece> pieces(std::span<const NeedleEntry> needle, double lo, double hi) {
  std::vector<double> points{lo, hi};
  for (const auto& e : needle) {
    for (double p : entry_points(e)) {
      if (p > lo && p < hi) points.push_back(p);
    }
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  std::vector<Piece> result;
  for (std::size_t i = 0; i + 1 < points.size(); ++i) {
    Piece piece{points[i], points[i + 1]};
    const double mid = 0.5 * (piece.a + piece.b);
    for (std::size_t s = 0; s < needle.size() && piece.local < 0; ++s) {
      const auto& e = needle[s];
      if (e.sd > 0 && e.sd <= kNarrow && std::abs(mid - e.mean) < 8 * e.sd) {
        piece = {local_coordinate(e, piece.a), local_coordinate(e, piece.b), static_cast<int>(s)};
      }
    }
    result.push_back(piece);
  }
  // A narrow entry's window holds most of its derivative: integrate it first (see
  // VectorGaussKronrod on why the order matters).
  std::stable_partition(result.begin(), result.end(), [](const Piece& p) { return p.local >= 0; });
  return result;
}

void validate(std::span<const NeedleEntry> needle) {
  for (const auto& e : needle) {
    require(std::isfinite(e.mean), "invalid needle entry (its mean must be finite)");
    require(std::isfinite(e.sd) && e.sd >= 0,
            "invalid needle entry (its standard deviation must be finite and >= 0)");
  }
}

// Writes the integrand at y: out[0] for P, then dP/dmean_s and dP/dsd_s per entry.
// Entry `local` (if >= 0) takes its z from `local_z` instead of from y.
void channel_integrand(std::span<const NeedleEntry> needle, const Rival& rival, double y, int local,
                       double local_z, std::span<double> out, std::vector<double>& z,
                       std::vector<double>& below) {
  const double log_density = rival.log_density(y);
  double log_all = 0;
  for (std::size_t s = 0; s < needle.size(); ++s) {
    const auto& e = needle[s];
    z[s] = static_cast<int>(s) == local ? local_z : e.sd > 0 ? (y - e.mean) / e.sd : 0.0;
    log_all += below[s] = log_below(e, y, z[s]);
  }
  out[0] = portable::exp(log_density) * -portable::expm1(log_all);
  if (out.size() == 1) return;
  for (std::size_t s = 0; s < needle.size(); ++s) {
    const auto& e = needle[s];
    double& d_mean = out[1 + 2 * s];
    double& d_sd = out[2 + 2 * s];
    d_mean = d_sd = 0;
    if (e.sd == 0) continue;  // a step: its delta is added outside the integral
    // Sum over the other entries directly: subtracting from log_all fails at -inf.
    double log_rest = 0;
    for (std::size_t t = 0; t < needle.size(); ++t) log_rest += t == s ? 0.0 : below[t];
    d_mean = portable::exp(log_density + log_normal_pdf(z[s]) + log_rest) / e.sd;
    d_sd = d_mean * z[s];
  }
}

// The delta of a step entry (sd = 0): density of the maximum at its mean times the
// other entries' factors there.
double step_derivative(std::span<const NeedleEntry> needle, std::size_t s, const Rival& rival) {
  const double y = needle[s].mean;
  double log_rest = rival.log_density(y);
  for (std::size_t t = 0; t < needle.size(); ++t)
    log_rest += t == s ? 0.0 : log_below(needle[t], y);
  return portable::exp(log_rest);
}

// d/dy log F(y) at y = mean_s, F = density of the maximum times the other entries'
// factors (all of which have sd > 0 when entry s has sd = 0 and u is normalized).
double log_slope(std::span<const NeedleEntry> needle, std::size_t s, const Rival& rival) {
  const double y = needle[s].mean;
  double slope = rival.log_slope(y);
  for (std::size_t t = 0; t < needle.size(); ++t) {
    if (t == s) continue;
    const double z = (y - needle[t].mean) / needle[t].sd;
    slope += portable::exp(log_normal_pdf(z) - log_normal_cdf(z)) / needle[t].sd;
  }
  return slope;
}

// With a floor c (the read path's sink): P(max X > max(M, c)) = the integral above c plus the
// atom P(M <= c) (1 - prod P(X_s <= c)); probability only (no gradient). With top_k > 1 the
// rival is the top_k-th largest distractor (no floor then); more than the distractors: 1.
ChannelGradient integrate_channel(std::span<const NeedleEntry> needle, std::int64_t distractors,
                                  bool with_gradient,
                                  double floor = -std::numeric_limits<double>::infinity(),
                                  std::int64_t top_k = 1) {
  validate(needle);
  require(distractors >= 0,
          "invalid distractor count " + std::to_string(distractors) + " (must be >= 0)");
  const std::size_t m = needle.size();
  ChannelGradient result;
  if (with_gradient) result.d_mean.assign(m, 0.0), result.d_sd.assign(m, 0.0);
  if (m == 0) return result;
  const bool floored = floor > -std::numeric_limits<double>::infinity();
  double atom = 0;  // P(M <= floor) (1 - prod P(X_s <= floor))
  if (floored) {
    double log_all = 0;
    for (const auto& e : needle) log_all += log_below(e, floor);
    const double log_max_below =
        distractors > 0 ? static_cast<double>(distractors) * log_normal_cdf(floor) : 0.0;
    atom = portable::exp(log_max_below) * -portable::expm1(log_all);
  }
  if (distractors == 0 || top_k > distractors) {
    result.probability = floored ? atom : 1.0;
    return result;
  }

  const Rival rival(static_cast<double>(distractors), top_k);
  const std::size_t components = with_gradient ? 1 + 2 * m : 1;
  std::vector<double> z(m), below(m);
  auto [lo, hi] = rival.range();
  if (floored) lo = std::max(lo, floor);
  if (lo >= hi) {
    result.probability = atom;
    return result;
  }
  const detail::VectorGaussKronrod quadrature(components, kTolerance, kMaxDepth);
  std::vector<double> sum(components, 0.0), l1(components, 0.0);
  result.error_estimate = 2 * kTailMass;
  for (const auto& piece : pieces(needle, lo, hi)) {
    if (piece.local < 0) {
      auto integrand = [&](double y, std::span<double> out) {
        channel_integrand(needle, rival, y, -1, 0.0, out, z, below);
      };
      quadrature.integrate(integrand, piece.a, piece.b, sum, l1, result.error_estimate);
      continue;
    }
    const auto& e = needle[static_cast<std::size_t>(piece.local)];
    auto integrand = [&](double t, std::span<double> out) {  // dy = sd dt
      channel_integrand(needle, rival, e.mean + e.sd * t, piece.local, t, out, z, below);
      for (double& x : out) x *= e.sd;
    };
    quadrature.integrate(integrand, piece.a, piece.b, sum, l1, result.error_estimate);
  }
  result.probability = std::clamp(sum[0] + atom, 0.0, 1.0);
  for (std::size_t s = 0; with_gradient && s < m; ++s) {
    result.d_mean[s] = sum[1 + 2 * s];
    result.d_sd[s] = sum[2 + 2 * s];
    if (needle[s].sd == 0) result.d_mean[s] = step_derivative(needle, s, rival);
  }
  return result;
}

}  // namespace

NeedleEntry normalized_entry(double beta, double u) {
  return {beta * u, std::sqrt((1 - u) * (1 + u))};
}

ChannelValue needle_success(std::span<const NeedleEntry> needle, std::int64_t distractors) {
  const auto full = integrate_channel(needle, distractors, false);
  return {full.probability, full.error_estimate};
}

double needle_success_above(std::span<const NeedleEntry> needle, std::int64_t distractors,
                            double floor) {
  return integrate_channel(needle, distractors, false, floor).probability;
}

ChannelGradient needle_success_gradient(std::span<const NeedleEntry> needle,
                                        std::int64_t distractors) {
  return integrate_channel(needle, distractors, true);
}

ChannelGradient top_k_success_gradient(std::span<const NeedleEntry> needle,
                                       std::int64_t distractors, std::int64_t top_k) {
  return integrate_channel(needle, distractors, true, -std::numeric_limits<double>::infinity(),
                           top_k);
}

void validate_channel_inputs(double beta, std::span<const double> u, std::int64_t entries) {
  require_non_negative(beta, "--beta");
  for (double x : u) {  // the line is formatted only on failure: this runs per quadrature
    if (!(x >= 0 && x <= 1))
      throw InputError("invalid --u " + format_number(x) + " (each must be in [0, 1])");
  }
  const auto m = static_cast<std::int64_t>(u.size());
  require(entries >= m, "invalid --entries " + std::to_string(entries) +
                            " (must be at least the number of needle entries, " +
                            std::to_string(m) + ")");
}

double success_probability(double beta, std::span<const double> u, std::int64_t entries) {
  validate_channel_inputs(beta, u, entries);
  std::vector<NeedleEntry> needle;
  for (double x : u) needle.push_back(normalized_entry(beta, x));
  return needle_success(needle, entries - static_cast<std::int64_t>(u.size())).probability;
}

SuccessGradient success_gradient(double beta, std::span<const double> u, std::int64_t entries,
                                 std::int64_t top_k) {
  validate_channel_inputs(beta, u, entries);
  require(std::count(u.begin(), u.end(), 1.0) <= 1,
          "invalid --u (at most one needle entry can have u = 1)");
  std::vector<NeedleEntry> needle;
  for (double x : u) needle.push_back(normalized_entry(beta, x));
  const auto n = entries - static_cast<std::int64_t>(u.size());
  const auto full =
      top_k == 1 ? needle_success_gradient(needle, n) : top_k_success_gradient(needle, n, top_k);
  SuccessGradient result{full.probability, std::vector<double>(u.size(), 0.0)};
  for (std::size_t s = 0; s < u.size(); ++s) {
    if (needle[s].sd > 0) {
      result.d_u[s] = detail::law_slope(EntryLaw::normalized, beta, u[s], needle[s].sd,
                                        full.d_mean[s], full.d_sd[s]);
    } else if (n >= top_k) {
      const Rival rival(static_cast<double>(n), top_k);
      result.d_u[s] = beta * full.d_mean[s] - full.d_mean[s] * log_slope(needle, s, rival);
    }
  }
  return result;
}

double single_entry_success(double u, double beta, std::int64_t entries) {
  const double one[] = {u};
  return success_probability(beta, one, entries);
}

NeedleEntry law_entry(EntryLaw law, double beta, double x) {
  switch (law) {
    case EntryLaw::shares:
      return {beta * x, std::sqrt(1 - x)};
    case EntryLaw::linear:
      return {beta * x, 1.0};
    case EntryLaw::normalized:
      break;
  }
  return normalized_entry(beta, x);
}

SuccessGradient law_success_gradient(EntryLaw law, double beta, std::int64_t entries,
                                     std::span<const double> x, std::int64_t top_k) {
  if (law == EntryLaw::normalized) return success_gradient(beta, x, entries, top_k);
  std::vector<NeedleEntry> needle;
  for (double v : x) needle.push_back(law_entry(law, beta, std::clamp(v, 0.0, 1.0)));
  const auto distractors = entries - static_cast<std::int64_t>(needle.size());
  const auto p = top_k == 1 ? needle_success_gradient(needle, distractors)
                            : top_k_success_gradient(needle, distractors, top_k);
  SuccessGradient result{p.probability, std::vector<double>(x.size(), 0.0)};
  for (std::size_t s = 0; s < x.size(); ++s) {
    // At sd = 0 the shares' sd term has the limit -f'(mean)/2, left out: the gate is one-hot
    // there, and its logit gradient vanishes whatever dP/dx_s is.
    result.d_u[s] = detail::law_slope(law, beta, x[s], needle[s].sd, p.d_mean[s], p.d_sd[s]);
  }
  return result;
}

Json channel_document(double beta, std::span<const double> u, std::int64_t entries) {
  const double p = success_probability(beta, u, entries);
  const auto m = static_cast<std::int64_t>(u.size());
  auto doc = new_document("channel");
  doc["beta"] = beta;
  doc["entries"] = entries;
  doc["u"] = std::vector<double>(u.begin(), u.end());
  doc["needle_entries"] = m;
  doc["distractors"] = entries - m;
  doc["p_success"] = p;
  doc["chance"] = static_cast<double>(m) / static_cast<double>(entries);
  return doc;
}

}  // namespace phasesim::channel
