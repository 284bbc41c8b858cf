// The one-head model of fit.hpp: beta and the normalized weight of every phase, under the
// unit norm sum_phi weighted_phi u_phi^2 = 1.
//
// For a fixed beta, the best weights solve a resource allocation: each phase's
// log-likelihood f_phi(v) is a function of its share v = weighted u^2 of the unit norm, and
// the shares sum to 1. Its Lagrangian splits by phase (each phase maximizes
// f_phi(v) - lambda v), so the profile of beta costs one search over lambda, and the profile
// of one phase's weight is that phase's f plus the envelope of the others' best sum, traced
// once per beta over a grid of lambda (docs/DIAGNOSE.md).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <memory>

#include "curve.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/diagnose/fit.hpp"
#include "profile.hpp"

namespace phasesim::diagnose {
namespace {

using detail::kProfileDrop;

constexpr int kScan = 96;  // shares scanned for a phase's global maximum
// lambda = sinh(z), z on a uniform grid of kLambdas values over [-kMaxZ, kMaxZ] (|lambda| up
// to 1.2e7), widened at the same spacing when a table's counts need larger multipliers.
constexpr int kLambdas = 161;
constexpr double kMaxZ = 17;
constexpr int kWeightGrid = 13;  // betas across the beta interval for the weight intervals
// The value of an impossible allocation: finite, so that root finders stay defined.
constexpr double kImpossible = -1e300;

double lambda_at(double z) { return std::sinh(z); }

// One phase at one beta: its log-likelihood as a function of its share v of the unit norm.
class PhaseTerm {
 public:
  PhaseTerm(const PhaseData& data, std::shared_ptr<const detail::PhaseCurve> curve)
      : data_(data), curve_(std::move(curve)) {
    for (int j = 0; j <= kScan; ++j) scan_[static_cast<std::size_t>(j)] = (*this)(share(j));
  }

  bool blind() const { return data_.slots.holding == 0; }
  // How far the log-likelihood moves over the scanned shares.
  double span() const {
    const auto [low, high] = std::minmax_element(scan_.begin(), scan_.end());
    return *high - *low;
  }
  int weighted() const { return data_.slots.weighted; }
  double max_weight() const { return curve_->max_u(); }
  double weight(double v) const { return blind() ? 0.0 : std::sqrt(std::max(0.0, v) / weighted()); }
  double success(double v) const { return blind() ? 0.0 : (*curve_)(weight(v)); }

  double operator()(double v) const { return detail::phase_log_likelihood(data_, success(v)); }

  // The share in [0, 1] maximizing f(v) - lambda v: the best scanned share, then Brent
  // between its neighbours. A structurally blind phase holds no share.
  double best_share(double lambda) const {
    if (blind()) return 0;
    int best = 0;
    for (int j = 1; j <= kScan; ++j) {
      if (scan_[static_cast<std::size_t>(j)] - lambda * share(j) >
          scan_[static_cast<std::size_t>(best)] - lambda * share(best)) {
        best = j;
      }
    }
    const double a = share(std::max(0, best - 1));
    const double b = share(std::min(kScan, best + 1));
    std::uintmax_t iterations = 40;
    const auto [v, negative] = boost::math::tools::brent_find_minima(
        [&](double x) { return lambda * x - (*this)(x); }, a, b, 30, iterations);
    return -negative > scan_[static_cast<std::size_t>(best)] - lambda * share(best) ? v
                                                                                    : share(best);
  }

 private:
  static double share(int j) { return static_cast<double>(j) / kScan; }

  PhaseData data_;
  std::shared_ptr<const detail::PhaseCurve> curve_;
  std::array<double, kScan + 1> scan_{};
};

// The multipliers the shares are searched over: z in [-max_z, max_z], lambda = sinh(z). A
// multiplier beyond 2 kScan times the largest span of a phase's log-likelihood moves every
// phase's best share to within 1 / (2 kScan) of 0 or 1 (whatever the scan would prefer
// costs more than the multiplier repays), so the range brackets a unit total for 2 to 64
// phases. kMaxZ covers the usual tables (grid and results as before); a table of millions of
// trials a phase needs more, or the bisection cannot meet the unit norm.
struct LambdaGrid {
  double max_z = kMaxZ;
  std::size_t count = kLambdas;

  explicit LambdaGrid(double span) {
    const double needed = std::asinh(2 * kScan * span);
    if (needed <= kMaxZ) return;
    const double step = 2 * kMaxZ / (kLambdas - 1);
    const auto half = static_cast<std::size_t>(std::ceil(needed / step));
    max_z = static_cast<double>(half) * step;
    count = 2 * half + 1;
  }

  double z_at(std::size_t i) const {
    return -max_z + 2 * max_z * static_cast<double>(i) / static_cast<double>(count - 1);
  }
};

// A phase's best share and value at every lambda of the grid.
struct Dual {
  std::vector<double> shares;
  std::vector<double> values;
};

// The best summed log-likelihood of a set of phases whose shares sum to r, from their
// duals: exact at the grid's lambdas (Lagrangian sufficiency), cubic Hermite in between,
// where the slope in r is lambda.
class Envelope {
 public:
  Envelope(const LambdaGrid& grid, const std::vector<Dual>& duals, std::size_t skip)
      : grid_(grid), share_(grid.count, 0.0), value_(grid.count, 0.0) {
    for (std::size_t p = 0; p < duals.size(); ++p) {
      if (p == skip) continue;
      for (std::size_t i = 0; i < grid.count; ++i) {
        share_[i] += duals[p].shares[i];
        value_[i] += duals[p].values[i];
      }
    }
  }

  double operator()(double r) const {
    // Shares fall as lambda rises: find i with share_[i] >= r > share_[i + 1].
    const auto after =
        std::partition_point(share_.begin(), share_.end(), [&](double s) { return s >= r; });
    if (after == share_.begin()) return kImpossible;  // more than the phases can hold
    if (after == share_.end()) return value_.back();
    const auto j = static_cast<std::size_t>(after - share_.begin());
    const std::size_t i = j - 1;
    const double h = share_[i] - share_[j];
    const double s = (r - share_[j]) / h;
    const double lambda_i = lambda_at(grid_.z_at(i));
    const double lambda_j = lambda_at(grid_.z_at(j));
    return (2 * s * s * s - 3 * s * s + 1) * value_[j] +
           (s * s * s - 2 * s * s + s) * h * lambda_j + (-2 * s * s * s + 3 * s * s) * value_[i] +
           (s * s * s - s * s) * h * lambda_i;
  }

 private:
  LambdaGrid grid_;
  std::vector<double> share_;
  std::vector<double> value_;
};

// The shares of the unit norm that maximize the log-likelihood at one beta.
struct Allocation {
  std::vector<double> shares;
  double log_likelihood = 0;
};

// The model at one beta: one success curve per kind of phase, one term per phase.
class Slice {
 public:
  Slice(const FitInput& input, double beta, const Parallel& parallel)
      : terms_(make_terms(input, beta, parallel)), grid_(span(terms_)) {}

  const std::vector<PhaseTerm>& terms() const { return terms_; }
  const LambdaGrid& grid() const { return grid_; }

  std::vector<double> best_shares(double lambda) const {
    std::vector<double> shares;
    for (const auto& term : terms_) shares.push_back(term.best_share(lambda));
    return shares;
  }

  // Bisection on the multiplier until the shares sum to 1; across a jump of the shares
  // (a phase switching between two local maxima) the two sides are mixed to sum to 1,
  // which is feasible, so the value is never above the true profile.
  Allocation allocate() const {
    double low = -grid_.max_z;
    double high = grid_.max_z;
    auto at_low = best_shares(lambda_at(low));
    auto at_high = best_shares(lambda_at(high));
    auto total = [](const std::vector<double>& v) {
      double sum = 0;
      for (double x : v) sum += x;
      return sum;
    };
    for (int i = 0; i < 45; ++i) {  // z to 1e-12
      const double mid = 0.5 * (low + high);
      auto shares = best_shares(lambda_at(mid));
      if (total(shares) >= 1) {
        low = mid;
        at_low = std::move(shares);
      } else {
        high = mid;
        at_high = std::move(shares);
      }
    }
    const double spread = total(at_low) - total(at_high);
    const double w = spread > 0 ? (total(at_low) - 1) / spread : 0.0;
    Allocation result;
    for (std::size_t p = 0; p < terms_.size(); ++p) {
      result.shares.push_back(at_low[p] + w * (at_high[p] - at_low[p]));
      result.log_likelihood += terms_[p](result.shares.back());
    }
    return result;
  }

  double profile() const { return allocate().log_likelihood; }

  std::vector<Dual> duals() const {
    std::vector<Dual> result(terms_.size());
    for (std::size_t i = 0; i < grid_.count; ++i) {
      const double lambda = lambda_at(grid_.z_at(i));
      for (std::size_t p = 0; p < terms_.size(); ++p) {
        const double v = terms_[p].best_share(lambda);
        result[p].shares.push_back(v);
        result[p].values.push_back(terms_[p](v));
      }
    }
    return result;
  }

 private:
  static std::vector<PhaseTerm> make_terms(const FitInput& input, double beta,
                                           const Parallel& parallel) {
    std::map<std::pair<int, int>, std::shared_ptr<const detail::PhaseCurve>> curves;
    std::vector<PhaseTerm> terms;
    for (const auto& phase : input.phases) {
      auto& curve = curves[{phase.slots.holding, phase.slots.weighted}];
      if (!curve) {
        curve = std::make_shared<const detail::PhaseCurve>(phase.slots, beta, input, parallel);
      }
      terms.emplace_back(phase, curve);
    }
    return terms;
  }

  static double span(const std::vector<PhaseTerm>& terms) {
    double largest = 0;
    for (const auto& term : terms) largest = std::max(largest, term.span());
    return largest;
  }

  std::vector<PhaseTerm> terms_;
  LambdaGrid grid_;
};

// The weights of phase p that keep the profile above `target` at one beta: [low, high],
// or nothing. The profile of the weight t is f_p(weighted t^2) plus the others' best sum
// on the rest of the norm (their only phase's f when there is one).
struct Extent {
  double low = 0;
  double high = 0;
};

std::optional<Extent> weight_extent(const Slice& slice, const std::vector<Dual>& duals,
                                    std::size_t p, double target) {
  const auto& terms = slice.terms();
  const auto& term = terms[p];
  if (term.blind()) return Extent{0, 0};
  if (terms.size() == 1) return Extent{term.max_weight(), term.max_weight()};
  const Envelope others(slice.grid(), duals, p);
  const auto& other = terms[p == 0 ? 1 : 0];
  auto rest = [&](double r) {
    if (terms.size() > 2) return others(r);
    if (other.blind()) return r > 1e-12 ? kImpossible : other(0);
    return other(r);
  };
  auto profile = [&](double t) {
    const double v = term.weighted() * t * t;
    return term(v) + rest(std::max(0.0, 1 - v));
  };
  std::vector<double> points;
  for (int j = 0; j <= 64; ++j) points.push_back(term.max_weight() * j / 64);
  const auto best = detail::maximize_scanned(profile, points);
  if (best.value < target) return std::nullopt;
  const double step = term.max_weight() / 64;
  return Extent{detail::profile_end(profile, best.x, 0.0, target, step),
                detail::profile_end(profile, best.x, term.max_weight(), target, step)};
}

// Weight intervals: the union over betas in the beta interval (outside it the profile of
// any weight is below the target too) of each slice's extent, refined by a parabola
// through the best grid beta and its neighbours.
void add_weight_intervals(const FitInput& input, double beta_low, double beta_high, double target,
                          const Parallel& parallel, ModelFit& fit) {
  const auto extents = parallel_map(parallel, kWeightGrid, [&](std::int64_t i) {
    const double beta =
        beta_low + (beta_high - beta_low) * static_cast<double>(i) / (kWeightGrid - 1);
    const Slice slice(input, beta, Parallel{1});  // the betas are the parallel loop
    const auto duals = slice.duals();
    std::vector<std::optional<Extent>> result;
    for (std::size_t p = 0; p < input.phases.size(); ++p) {
      result.push_back(weight_extent(slice, duals, p, target));
    }
    return result;
  });
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t p = 0; p < input.phases.size(); ++p) {
    std::vector<double> highs;
    std::vector<double> negative_lows;
    for (const auto& e : extents) {
      highs.push_back(e[p] ? e[p]->high : nan);
      negative_lows.push_back(e[p] ? -e[p]->low : nan);
    }
    auto& phase = fit.phases[p];
    phase.weight_low = std::max(0.0, std::min(-detail::refined_max(negative_lows), *phase.weight));
    phase.weight_high = std::max(detail::refined_max(highs), *phase.weight);
  }
}

}  // namespace

ModelFit fit_one_head(const FitInput& input, const Parallel& parallel) {
  detail::validate_fit_input(input);
  // The profile's betas come one after another: each slice's curves use the threads.
  auto profile = [&](double beta) { return Slice(input, beta, parallel).profile(); };
  const auto interval = detail::profile_interval(profile, detail::beta_scan());
  const double target = interval.best.value - kProfileDrop;
  auto fit = detail::profile_fit(FitModel::one_head, interval);

  const Slice slice(input, fit.beta, parallel);
  const auto allocation = slice.allocate();
  double weight_sum = 0;
  for (std::size_t p = 0; p < input.phases.size(); ++p) {
    const auto& term = slice.terms()[p];
    const double v = allocation.shares[p];
    FittedPhase phase;
    phase.phase = static_cast<int>(p);
    phase.accuracy = term.success(v);
    phase.weight = term.weight(v);
    fit.phases.push_back(phase);
    weight_sum += term.blind() ? 0.0 : term.weighted() * term.weight(v);
  }
  for (std::size_t p = 0; p < fit.phases.size(); ++p) {
    const auto& term = slice.terms()[p];
    fit.phases[p].coverage =
        term.blind() ? 0.0 : term.weighted() * *fit.phases[p].weight / weight_sum;
  }
  detail::set_deviance(input, 0, fit);  // S parameters for S phases: saturated
  add_weight_intervals(input, fit.beta_low, fit.beta_high.value_or(kMaxFitBeta), target, parallel,
                       fit);
  return fit;
}

}  // namespace phasesim::diagnose
