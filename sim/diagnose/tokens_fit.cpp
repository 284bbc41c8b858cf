// The one-head fit of 2-token needles (fit.hpp, fit_two_token_needles).
//
// A needle of 2 tokens starting at phase phi lies on slots of phases phi and phi + 1: with
// W = S it is one entry (aligned) unless it straddles an entry boundary (phi = S - 1: two
// entries, their noises tied). So a phase's success depends on two phase weights and the
// phases are coupled through them; the split by phase of the one-token fit does not apply.
// For each beta the fit maximizes the log-likelihood over the positive orthant of the unit
// sphere in y_phi = sqrt(m_phi) u_phi by cyclic rotations in the plane of two coordinates
// (a scan of the angle, then Brent), which keep the norm and the signs exactly. A phase's
// success is tabulated once per beta as a function of its two weights (a cubic B-spline in
// the angle, and in asin of the radius when other phases share the norm), each node the
// analytic engine's read of the needle (channel/needle_read.hpp); the fitted accuracies are
// the engine's read itself at the fitted gate.
#include <algorithm>
#include <array>
#include <boost/math/interpolators/cardinal_cubic_b_spline.hpp>
#include <cmath>
#include <limits>
#include <map>
#include <numbers>
#include <optional>

#include "curve.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/diagnose/fit.hpp"
#include "profile.hpp"

namespace phasesim::diagnose {
namespace {

using Spline = boost::math::interpolators::cardinal_cubic_b_spline<double>;

constexpr double kHalfPi = std::numbers::pi / 2;
constexpr int kPairScan = 24;  // angles scanned in a rotation before Brent
constexpr int kMaxSweeps = 200;

// A spline through values at spacing h, its end slopes from fourth-order one-sided differences
// (boost's own estimate, first order, left errors of 1e-3 near the ends at 41 nodes).
Spline spline_of(std::vector<double>::const_iterator first, int count, double h) {
  const auto f = [&](int i) { return *(first + i); };
  const auto g = [&](int i) { return *(first + (count - 1 - i)); };
  const double start = (-25 * f(0) + 48 * f(1) - 36 * f(2) + 16 * f(3) - 3 * f(4)) / (12 * h);
  const double end = (25 * g(0) - 48 * g(1) + 36 * g(2) - 16 * g(3) + 3 * g(4)) / (12 * h);
  return Spline(first, first + count, 0.0, h, start, end);
}

// As the channel's SuccessCurve: the success turns from chance to 1 over about 1/beta.
int node_count(double beta) { return 21 + 3 * static_cast<int>(std::ceil(beta)); }

// The fit's gate: slot s weighs u of its phase, normalized to sum 1.
Gate fit_gate(const FitInput& input, const std::vector<double>& u) {
  const Geometry g{input.window, input.stride};
  Gate gate;
  gate.spec = "fit";
  double total = 0;
  for (int s = 0; s < g.window; ++s) {
    gate.weights.push_back(u[static_cast<std::size_t>(g.phase_of_slot(s))]);
    total += gate.weights.back();
  }
  for (double& w : gate.weights) w /= total;
  return gate;
}

// Which phases carry weight (their slots exist), and each phase's partner: the phase of its
// second token when that phase carries weight and differs, else -1.
struct Layout {
  std::vector<int> active;
  std::vector<int> partner;
  std::vector<int> slots;  // m_phi
};

Layout layout_of(const FitInput& input) {
  Layout l;
  const auto stride = static_cast<int>(input.phases.size());
  for (const auto& p : input.phases) l.slots.push_back(p.slots.weighted);
  for (int phi = 0; phi < stride; ++phi) {
    if (l.slots[static_cast<std::size_t>(phi)] > 0) l.active.push_back(phi);
    const int q = (phi + 1) % stride;
    l.partner.push_back(q != phi && l.slots[static_cast<std::size_t>(q)] > 0 ? q : -1);
  }
  return l;
}

// Phase weights u from the sphere's coordinates y (y_phi = sqrt(m_phi) u_phi).
std::vector<double> weights_of(const Layout& l, const std::vector<double>& y) {
  std::vector<double> u(y.size(), 0.0);
  for (int phi : l.active) {
    const auto i = static_cast<std::size_t>(phi);
    u[i] = y[i] / std::sqrt(static_cast<double>(l.slots[i]));
  }
  return u;
}

// A phase's success at one beta as a function of the coordinates of the phases its tokens
// fall in that carry weight: a (its own, or its partner's when it has no slot) and b (the
// partner's, when both carry weight). The other active phases share what is left of the norm
// (where they sit does not change this phase's laws). Shapes: a constant (nothing can move),
// a curve in the angle of (a, b) on the circle, a curve in asin(a), or a surface in (asin of
// the radius, angle).
class TokenCurve {
 public:
  TokenCurve(const FitInput& input, const Layout& l, int phi, double beta, bool symmetric,
             const Parallel& parallel)
      : phi_(phi) {
    const int partner = l.partner[static_cast<std::size_t>(phi)];
    const bool own = l.slots[static_cast<std::size_t>(phi)] > 0;
    first_ = own ? phi : partner;
    second_ = own ? partner : -1;
    const bool has_rest = l.active.size() > moving();
    if (first_ < 0) {
      constant_ = node(input, l, beta, 0, 0);
      return;
    }
    const int n = node_count(beta);
    radial_ = has_rest ? n : 1;
    angular_ = second_ >= 0 ? n : 1;
    if (radial_ == 1 && angular_ == 1) {
      constant_ = node(input, l, beta, 1, 0);
      return;
    }
    values_.resize(static_cast<std::size_t>(radial_ * angular_));
    // A symmetric table reads its angles up to pi/4 and mirrors the rest.
    const int read = symmetric && angular_ > 1 ? (angular_ + 1) / 2 : angular_;
    parallel_for(Parallel{parallel.threads, {}, parallel.stop}, radial_ * read,
                 [&](std::int64_t k) {
                   const auto i = static_cast<int>(k / read), j = static_cast<int>(k % read);
                   const auto [a, b] = point(i, j);
                   values_[static_cast<std::size_t>(i * angular_ + j)] = node(input, l, beta, a, b);
                 });
    for (int i = 0; i < radial_; ++i) {
      for (int j = read; j < angular_; ++j) {
        values_[static_cast<std::size_t>(i * angular_ + j)] =
            values_[static_cast<std::size_t>(i * angular_ + angular_ - 1 - j)];
      }
    }
    build();
  }

  /// The coordinates it reads: its own (or its partner's) and its partner's (-1: none).
  int first() const { return first_; }
  int second() const { return second_; }

  /// Its success at coordinates a (first) and b (second).
  double operator()(double a, double b) const {
    if (constant_) return *constant_;
    const double radius = std::min(1.0, std::hypot(a, b));
    const double psi = second_ >= 0 ? std::atan2(b, a) : 0.0;
    std::vector<double> column;
    for (int i = 0; i < radial_; ++i) {
      column.push_back(angular_ > 1 ? rows_[static_cast<std::size_t>(i)](psi)
                                    : values_[static_cast<std::size_t>(i)]);
    }
    if (radial_ == 1) return clamp(column.front());
    const auto radial = spline_of(column.cbegin(), radial_, kHalfPi / (radial_ - 1));
    return clamp(radial(std::asin(radius)));
  }

 private:
  static double clamp(double p) { return std::clamp(p, 0.0, 1.0); }

  // The coordinates this phase's success moves with (the others share the rest).
  std::size_t moving() const { return (first_ >= 0 ? 1U : 0U) + (second_ >= 0 ? 1U : 0U); }

  // The node (i, j): radius sin(theta_i), angle psi_j.
  std::pair<double, double> point(int i, int j) const {
    const double radius = radial_ == 1 ? 1.0 : std::sin(kHalfPi * i / (radial_ - 1));
    const double psi = angular_ == 1 ? 0.0 : kHalfPi * j / (angular_ - 1);
    return {radius * std::cos(psi), radius * std::sin(psi)};
  }

  double node(const FitInput& input, const Layout& l, double beta, double a, double b) const {
    std::vector<double> y(input.phases.size(), 0.0);
    const double rest = std::max(0.0, 1 - a * a - b * b);
    const auto others = static_cast<double>(l.active.size() - moving());
    for (int p : l.active) {
      y[static_cast<std::size_t>(p)] = std::sqrt(rest / std::max(1.0, others));
    }
    if (first_ >= 0) y[static_cast<std::size_t>(first_)] = a;
    if (second_ >= 0) y[static_cast<std::size_t>(second_)] = b;
    return detail::token_table_read(input, fit_gate(input, weights_of(l, y)), beta, phi_);
  }

  // One spline in the angle per radius (none without a partner: values_ is the column).
  void build() {
    if (angular_ == 1) return;
    for (int i = 0; i < radial_; ++i) {
      const auto first = values_.cbegin() + static_cast<std::ptrdiff_t>(i * angular_);
      rows_.push_back(spline_of(first, angular_, kHalfPi / (angular_ - 1)));
    }
  }

  int phi_;
  int first_ = -1;
  int second_ = -1;
  int radial_ = 1;
  int angular_ = 1;
  std::optional<double> constant_;
  std::vector<double> values_;  // radius-major
  std::vector<Spline> rows_;
};

// The needle at phase phi read backwards: the window reflected (slot s to W - 1 - s) takes
// phase p to -1 - p - W (mod S), so the needle over phases (phi, phi + 1) becomes the one over
// (phi', phi' + 1), phi' = -2 - phi - W (mod S), its two weights swapped (its factor R to -R,
// a law alike). Both phases then read one table: F_phi'(a, b) = F_phi(b, a); phi' = phi: F is
// symmetric.
int mirror_of(int phi, int window, int stride) {
  return ((-2 - phi - window) % stride + stride) % stride;
}

// The model at one beta: one table per kind of phase (with W = S every aligned phase is alike;
// a phase and its mirror share one).
class TokenSlice {
 public:
  TokenSlice(const FitInput& input, double beta, const Parallel& parallel)
      : input_(input), layout_(layout_of(input)) {
    std::map<int, std::size_t> made;
    const auto stride = static_cast<int>(input.phases.size());
    const auto both = [&](int phi) {  // a 2-D table: its own slot and its partner's
      const auto i = static_cast<std::size_t>(phi);
      return layout_.slots[i] > 0 && layout_.partner[i] >= 0;
    };
    for (int phi = 0; phi < stride; ++phi) {
      const bool aligned = input.window == input.stride && phi + 1 < stride;
      const int mirror = mirror_of(phi, input.window, stride);
      const bool shared = both(phi) && both(mirror);
      const int kind = aligned ? -1 : shared ? std::min(phi, mirror) : phi;
      if (!made.count(kind)) {
        made[kind] = curves_.size();
        const bool symmetric = input.window == input.stride || (shared && mirror == phi);
        curves_.emplace_back(input, layout_, phi, beta, symmetric, parallel);
      }
      const auto& curve = curves_[made[kind]];
      // Swapped where the table was made at the mirror (the aligned phases are symmetric).
      const bool swap = !aligned && shared && kind != phi;
      const int first = curve.first() < 0 ? -1
                        : swap            ? layout_.partner[static_cast<std::size_t>(phi)]
                        : aligned         ? phi
                                          : curve.first();
      const int second = curve.second() < 0 ? -1
                         : swap             ? phi
                         : aligned          ? layout_.partner[static_cast<std::size_t>(phi)]
                                            : curve.second();
      uses_.push_back({made[kind], first, second});
    }
  }

  const Layout& layout() const { return layout_; }

  std::vector<double> success(const std::vector<double>& y) const {
    std::vector<double> p;
    for (std::size_t phi = 0; phi < input_.phases.size(); ++phi) {
      const auto& use = uses_[phi];
      const auto at = [&](int c) { return c < 0 ? 0.0 : y[static_cast<std::size_t>(c)]; };
      p.push_back(input_.phases[phi].slots.holding == 0
                      ? 0.0
                      : curves_[use.curve](at(use.first), at(use.second)));
    }
    return p;
  }

  double log_likelihood(const std::vector<double>& y) const {
    const auto p = success(y);
    double sum = 0;
    for (std::size_t phi = 0; phi < p.size(); ++phi) {
      sum += detail::phase_log_likelihood(input_.phases[phi], p[phi]);
    }
    return sum;
  }

  // The best coordinates over several starts: the uniform point, and for each active phase the
  // point that weighs it three times the others. The sphere can have more than one maximum at
  // a beta: W 8 / S 4, gate (1, 2, 3, 4, 1, 2, 3, 4) at beta 5 by the argmax, the uniform start
  // stops 693 below the table's log-likelihood, which the start heavy on phase 3 reaches. A
  // start's search is cheap beside the beta's tables (0.06 s there).
  std::pair<std::vector<double>, double> best() const {
    const auto& active = layout_.active;
    const auto count = static_cast<double>(active.size());
    std::pair<std::vector<double>, double> found{{}, -std::numeric_limits<double>::infinity()};
    for (std::size_t heavy = 0; heavy <= active.size(); ++heavy) {
      std::vector<double> y(input_.phases.size(), 0.0);
      const double norm = std::sqrt(heavy < active.size() ? count + 8 : count);
      for (std::size_t k = 0; k < active.size(); ++k) {
        y[static_cast<std::size_t>(active[k])] = (k == heavy ? 3.0 : 1.0) / norm;
      }
      auto candidate = best_from(std::move(y), -1);
      if (candidate.second > found.second) found = std::move(candidate);
    }
    return found;
  }

  // The best coordinates from y with coordinate `fixed` held (-1: none): rotations of each pair
  // of the other active coordinates, which keep the norm the fixed one leaves them.
  std::pair<std::vector<double>, double> best_from(std::vector<double> y, int fixed) const {
    const auto& active = layout_.active;
    double value = log_likelihood(y);
    for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
      const double before = value;
      for (std::size_t i = 0; i < active.size(); ++i) {
        for (std::size_t j = i + 1; j < active.size(); ++j) {
          if (active[i] == fixed || active[j] == fixed) continue;
          value = rotate(y, static_cast<std::size_t>(active[i]),
                         static_cast<std::size_t>(active[j]), value);
        }
      }
      if (value - before < 1e-10) break;
    }
    return {y, value};
  }

 private:
  double rotate(std::vector<double>& y, std::size_t i, std::size_t j, double value) const {
    const double radius = std::hypot(y[i], y[j]);
    if (radius == 0) return value;
    auto at = [&](double t) {
      auto z = y;
      z[i] = radius * std::cos(t);
      z[j] = radius * std::sin(t);
      return log_likelihood(z);
    };
    std::vector<double> scan;
    for (int k = 0; k <= kPairScan; ++k) scan.push_back(kHalfPi * k / kPairScan);
    const auto found = detail::maximize_scanned(at, scan);
    if (found.value <= value) return value;
    y[i] = radius * std::cos(found.x);
    y[j] = radius * std::sin(found.x);
    return found.value;
  }

  const FitInput& input_;
  Layout layout_;
  struct Use {
    std::size_t curve;
    int first, second;  // the coordinates a phase's table reads (-1: none)
  };
  std::vector<TokenCurve> curves_;
  std::vector<Use> uses_;
};

// y from phase weights of any scale.
std::vector<double> coordinates_of(const Layout& l, const std::vector<double>& u) {
  double norm = 0;
  for (int p : l.active) {
    const auto i = static_cast<std::size_t>(p);
    norm += l.slots[i] * u[i] * u[i];
  }
  std::vector<double> y(u.size(), 0.0);
  for (int p : l.active) {
    const auto i = static_cast<std::size_t>(p);
    y[i] = std::sqrt(l.slots[i] / norm) * u[i];
  }
  return y;
}

void validate(const FitInput& input) {
  detail::validate_fit_input(input);
  require(input.needle_tokens == 2 && input.window >= 1 &&
              input.stride == static_cast<int>(input.phases.size()),
          "invalid fit of 2-token needles (needs needle_tokens 2, the window, and one phase a "
          "slot of the stride)");
  require(!layout_of(input).active.empty(), "invalid fit (no phase has a slot)");
}

constexpr int kIntervalBetas = 13;  // betas across beta's interval for the weight intervals

// The coordinate y_p of phase p whose profile (the others' coordinates at their best on what
// its value leaves of the norm) stays above `target` at one beta, as [low, high] in u, or
// nothing. The profile peaks at the slice's best point; with two phases carrying weight it is
// the log-likelihood along the circle.
std::optional<std::pair<double, double>> weight_extent(const TokenSlice& slice,
                                                       const std::vector<double>& best,
                                                       double best_value, int p, double target) {
  if (best_value < target) return std::nullopt;
  const auto i = static_cast<std::size_t>(p);
  const double others = std::sqrt(std::max(0.0, 1 - best[i] * best[i]));
  auto profile = [&](double t) {
    auto y = best;
    const double rest = std::sqrt(std::max(0.0, 1 - t * t));
    for (int q : slice.layout().active) {
      const auto k = static_cast<std::size_t>(q);
      if (k == i) continue;
      y[k] = others > 0 ? best[k] * rest / others
                        : rest / std::sqrt(static_cast<double>(slice.layout().active.size() - 1));
    }
    y[i] = t;
    return slice.best_from(std::move(y), p).second;
  };
  // With W = S = 2 a gate and its mirror (y_p and y_q swapped) make the same table: the set is
  // then two intervals, and the extent is their hull.
  const bool pair = slice.layout().active.size() == 2;
  const double mirror = others;
  const bool both = pair && profile(mirror) >= target;
  const double low = both ? std::min(best[i], mirror) : best[i];
  const double high = both ? std::max(best[i], mirror) : best[i];
  const double scale = std::sqrt(static_cast<double>(slice.layout().slots[i]));
  return std::pair{detail::profile_end(profile, low, 0.0, target, 1 / 64.0) / scale,
                   detail::profile_end(profile, high, 1.0, target, 1 / 64.0) / scale};
}

// Weight intervals of the phases carrying weight: the union over betas in beta's interval of
// each beta's extent, refined by a parabola as the one-token fit's.
void add_token_weight_intervals(const FitInput& input, double beta_low, double beta_high,
                                double target, const Parallel& parallel, ModelFit& fit) {
  const auto active = layout_of(input).active;
  if (active.size() < 2) return;
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::vector<double>> lows(active.size()), highs(active.size());
  for (int b = 0; b < kIntervalBetas; ++b) {
    const double beta = beta_low + (beta_high - beta_low) * b / (kIntervalBetas - 1);
    const TokenSlice slice(input, beta, parallel);
    const auto [y, value] = slice.best();
    for (std::size_t k = 0; k < active.size(); ++k) {
      const auto x = weight_extent(slice, y, value, active[k], target);
      lows[k].push_back(x ? -x->first : nan);
      highs[k].push_back(x ? x->second : nan);
    }
  }
  for (std::size_t k = 0; k < active.size(); ++k) {
    auto& phase = fit.phases[static_cast<std::size_t>(active[k])];
    phase.weight_low = std::max(0.0, std::min(-detail::refined_max(lows[k]), *phase.weight));
    phase.weight_high = std::max(detail::refined_max(highs[k]), *phase.weight);
  }
}

}  // namespace

std::vector<double> two_token_success(const FitInput& input, const std::vector<double>& u,
                                      double beta) {
  validate(input);
  const auto gate = fit_gate(input, u);
  std::vector<double> p;
  for (int phi = 0; phi < input.stride; ++phi)
    p.push_back(detail::token_read(input, gate, beta, phi));
  return p;
}

std::vector<double> two_token_tabulated(const FitInput& input, const std::vector<double>& u,
                                        double beta, const Parallel& parallel) {
  validate(input);
  const TokenSlice slice(input, beta, parallel);
  return slice.success(coordinates_of(slice.layout(), u));
}

ModelFit fit_two_token_needles(const FitInput& input, const Parallel& parallel) {
  validate(input);
  auto profile = [&](double beta) { return TokenSlice(input, beta, parallel).best().second; };
  const auto interval = detail::profile_interval(profile, detail::beta_scan());
  auto fit = detail::profile_fit(FitModel::one_head, interval);
  const TokenSlice slice(input, fit.beta, parallel);
  const auto& layout = slice.layout();
  const auto u = weights_of(layout, slice.best().first);
  // The fitted accuracies are the engine's read at the fitted gate, not the tables'.
  const auto accuracy = two_token_success(input, u, fit.beta);
  double weight_sum = 0;
  for (std::size_t p = 0; p < u.size(); ++p) weight_sum += layout.slots[p] * u[p];
  fit.log_likelihood = 0;
  for (std::size_t p = 0; p < u.size(); ++p) {
    const auto& d = input.phases[p];
    FittedPhase phase;
    phase.phase = static_cast<int>(p);
    phase.accuracy = accuracy[p];
    phase.weight = u[p];
    phase.coverage = layout.slots[p] * u[p] / weight_sum;
    fit.phases.push_back(phase);
    fit.log_likelihood += detail::phase_log_likelihood(d, accuracy[p]);
  }
  // Beta and the active phases' weights (one fewer than them, for the norm).
  const auto parameters = static_cast<int>(layout.active.size());
  detail::set_deviance(input, std::max(0, static_cast<int>(u.size()) - parameters), fit);
  add_token_weight_intervals(input, fit.beta_low, fit.beta_high.value_or(kMaxFitBeta),
                             interval.best.value - detail::kProfileDrop, parallel, fit);
  return fit;
}

}  // namespace phasesim::diagnose
