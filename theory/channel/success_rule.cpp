#include "phasesim/channel/success_rule.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <array>
#include <boost/container/small_vector.hpp>
#include <cmath>

#include "grid_success.hpp"
#include "law_slope.hpp"
#include "normal_table.hpp"
#include "phasesim/core/contract.hpp"
#include "phasesim/core/normal.hpp"
#include "phasesim/core/portable_math.hpp"

namespace phasesim::channel {
namespace {

// The shared rule's pieces are at most this many kNarrowest long (grid_success's 2 sd a piece).
constexpr double kPieceSds = 2;
// A call with a narrow entry: pieces away from its step up to this many scales of M long, twice
// grid_success's (the tested error stays 5e-15; 3 made it 1e-13, 4 made it 4e-11), which made
// the lock-in of dynamics at W 32 / S 8 about 1.2 times faster.
constexpr double kNarrowDensityScales = 2;
// A narrow step's own pieces: at most this many of its sd long, twice grid_success's. On a piece
// of 4 sd, 16-point Gauss-Legendre integrates Phi((y - mean) / sd) and its density to about 1e-19
// (the remainder's (32)th derivative of Phi is at most 1e17; 6 sd would make it 1e-13), so a
// near-one-hot entry's 16 sd of live range take 4 pieces, not 8.
constexpr double kNarrowStepSds = 4;
// Node counts tried for the Gauss rule of M's density, and what it must meet on the test steps
// (as an absolute error in E[g(M)]) against the composite rule it is made from.
constexpr int kGaussNodes[] = {16, 24, 32, 40, 48, 64, 80, 96};
constexpr double kGaussTolerance = 1e-12;
// A step Phi((y - mean) / sd) is 0 below mean - kLive sd, within 6e-16 (as grid_success's).
constexpr double kLive = 8;
// Test steps: means spread over the composite rule's range at this spacing (in kNarrowest).
constexpr double kTestSpacing = 0.25;

// One entry's factor at a node: Phi(z) and phi(z) / sd, z = (y - mean) / sd, by 1 / sd (two
// divisions a factor were a tenth of its cost).
struct Factor {
  double below, density, z;
};

Factor factor_at(const detail::NormalTable& normal, const detail::Step& e, double inverse_sd,
                 double y) {
  const double z = (y - e.mean) * inverse_sd;
  const auto at = normal(z);
  return {at.cdf, at.pdf * inverse_sd, z};
}

// Phi and phi at any z, built once (immutable; read by every thread).
const detail::NormalTable& normal_table() {
  static const detail::NormalTable table;
  return table;
}

// Nodes whose factors are computed together, before their products: one entry's factors at
// consecutive nodes are independent of each other, where a node's products are a chain.
constexpr std::size_t kBlock = 16;
// A lookup's per-entry scratch lives on the stack up to this many entries (W/S slots a phase;
// allocating it was a twentieth of the page's dynamics at W 32 / S 8), on the heap beyond.
constexpr std::size_t kInlineEntries = 8;
template <typename T, std::size_t kPerEntry = 1>
using Scratch = boost::container::small_vector<T, kInlineEntries * kPerEntry>;

// The rule's sum of w prod_s Phi_s (P's complement) over nodes `first` to `last` (excluded), and
// its sums for dP/dmean_s and dP/dsd_s added to d_mean and d_sd. Per node: every factor, then the
// product of all but entry s as prefix times suffix (no division: a factor may underflow to 0).
// The factors of kBlock nodes are computed first, entry by entry; the sums then take the nodes
// in order, so every sum adds the same terms in the same order as node by node.
double accumulate(const detail::MaximumRule& rule, std::size_t first, std::size_t last,
                  std::span<const detail::Step> entries, std::span<double> d_mean,
                  std::span<double> d_sd) {
  const std::size_t m = entries.size();
  // Entry s at node j0 + i: f[s * kBlock + i], each written before it is read (not zeroed).
  Scratch<Factor, kBlock> f(m * kBlock, boost::container::default_init);
  Scratch<double, 2> prefix(m + 1);
  Scratch<double> inverse_sd(m);
  for (std::size_t s = 0; s < m; ++s) inverse_sd[s] = 1 / entries[s].sd;
  double below_all = 0;
  const auto& normal = normal_table();
  for (std::size_t j0 = first; j0 < last; j0 += kBlock) {
    const std::size_t count = std::min(kBlock, last - j0);
    for (std::size_t s = 0; s < m; ++s) {
      Factor* at = &f[s * kBlock];
      for (std::size_t i = 0; i < count; ++i)
        at[i] = factor_at(normal, entries[s], inverse_sd[s], rule.y[j0 + i]);
    }
    for (std::size_t i = 0; i < count; ++i) {
      prefix[0] = 1;
      for (std::size_t s = 0; s < m; ++s) prefix[s + 1] = prefix[s] * f[s * kBlock + i].below;
      const double w = rule.weight[j0 + i];
      below_all += w * prefix[m];
      double suffix = w;
      for (std::size_t s = m; s-- > 0;) {
        const auto& e = f[s * kBlock + i];
        const double rest = prefix[s] * suffix * e.density;
        d_mean[s] += rest;
        d_sd[s] += rest * e.z;
        suffix *= e.below;
      }
    }
  }
  return below_all;
}

// P, dP/dmean_s and dP/dsd_s of `entries` by `rule`, whose integral of M's density is `mass`.
double integrate(const detail::MaximumRule& rule, double mass,
                 std::span<const detail::Step> entries, std::span<double> d_mean,
                 std::span<double> d_sd) {
  std::fill(d_mean.begin(), d_mean.end(), 0.0);
  std::fill(d_sd.begin(), d_sd.end(), 0.0);
  return std::clamp(mass - accumulate(rule, 0, rule.y.size(), entries, d_mean, d_sd), 0.0, 1.0);
}

double mass_of(const detail::MaximumRule& rule) {
  double mass = 0;
  for (double w : rule.weight) mass += w;
  return mass;
}

// integrate() for a call with narrow entries, by its own rule from where the steps begin to where
// `coarse` (the composite rule of M's density alone, on the same pieces) takes over above them.
// Below the highest of their live ranges' starts (mean - kLive sd) a narrow factor is below
// Phi(-8) = 6e-16, and so is the integrand of P's complement and of every slope but a density at
// z < -8: the rule starts there and P takes M's mass below in closed form, Phi(cut)^n. That leaves
// out 6 to 30% of the nodes a near-one-hot gate's phase cost (beta 5.3, u 0.97 to 0.999, N 1024
// to 10^6: 240 to 370 nodes before, 210 to 300 after), at an error of the rule's own order
// (kLive is grid_success's); above the steps, about half of the rest, M's density is coarse's.
// Coarse's nodes stop at the first of its pieces above every entry's live range (mean + kLive sd):
// beyond it every factor is 1 within 6e-16 and every density below phi(8) / sd = 5e-15 / sd, on
// M's mass there (2e-11 above 8 at N 32768), and P = mass - below takes neither sum's nodes, so
// the node range M's upper tail held (8 to 9.8 at N 32768, about a quarter of a locked-in call's
// nodes) drops out of both.
double integrate_narrow(const detail::MaximumRule& coarse, std::span<const detail::Step> narrow,
                        std::span<const detail::Step> entries, std::span<double> d_mean,
                        std::span<double> d_sd) {
  const auto& range = coarse.range;
  auto own = range;
  double top = range.lo;
  for (const auto& e : narrow) {
    own.lo = std::max(own.lo, e.mean - kLive * e.sd);
    top = std::max(top, e.mean + kLive * e.sd);
  }
  if (!(own.lo < own.hi)) own.lo = range.lo;  // every step above M's range: no cut
  // The first of coarse's pieces that starts above every step.
  const auto piece = static_cast<std::size_t>(
      std::lower_bound(coarse.starts.begin(), coarse.starts.end(), std::max(top, own.lo)) -
      coarse.starts.begin());
  if (piece < coarse.starts.size()) own.hi = coarse.starts[piece];
  const std::size_t first = piece * detail::kPieceNodes;
  double live = top;  // where the last entry's step is flat
  for (const auto& e : entries) live = std::max(live, e.mean + kLive * e.sd);
  const auto end_piece = static_cast<std::size_t>(
      std::lower_bound(coarse.starts.begin() + static_cast<std::ptrdiff_t>(piece),
                       coarse.starts.end(), live) -
      coarse.starts.begin());
  const std::size_t last = end_piece * detail::kPieceNodes;
  const auto rule = detail::maximum_rule(own, narrow, kPieceSds * SuccessRule::kNarrowest,
                                         kNarrowDensityScales, kNarrowStepSds);
  double mass = own.lo > range.lo ? portable::exp(range.n * log_normal_cdf_double(own.lo)) : 0.0;
  mass += mass_of(rule);
  for (std::size_t j = first; j < last; ++j) mass += coarse.weight[j];
  std::fill(d_mean.begin(), d_mean.end(), 0.0);
  std::fill(d_sd.begin(), d_sd.end(), 0.0);
  const double below_all = accumulate(rule, 0, rule.y.size(), entries, d_mean, d_sd) +
                           accumulate(coarse, first, last, entries, d_mean, d_sd);
  return std::clamp(mass - below_all, 0.0, 1.0);
}

// The k-node Gauss rule of the discrete measure `fine` (its nodes with its weights): the
// recurrence of its orthonormal polynomials by the Stieltjes procedure, then Golub-Welsch (the
// nodes are the eigenvalues of the Jacobi matrix, the weights the mass times the squared first
// components of its eigenvectors). Exact for polynomials of degree 2k - 1 against `fine`.
detail::MaximumRule gauss_rule(const detail::MaximumRule& fine, int k) {
  const std::size_t n = fine.y.size();
  const double mass = mass_of(fine);
  double center = 0;
  for (std::size_t i = 0; i < n; ++i) center += fine.weight[i] * fine.y[i] / mass;
  Eigen::VectorXd diagonal(k), off(k - 1);
  std::vector<double> previous(n, 0.0), current(n, 1 / std::sqrt(mass)), next(n);
  double beta = 0;
  for (int j = 0; j < k; ++j) {
    double alpha = 0;
    for (std::size_t i = 0; i < n; ++i)
      alpha += fine.weight[i] * (fine.y[i] - center) * current[i] * current[i];
    diagonal[j] = alpha;
    if (j + 1 == k) break;
    double norm = 0;
    for (std::size_t i = 0; i < n; ++i) {
      next[i] = (fine.y[i] - center - alpha) * current[i] - beta * previous[i];
      norm += fine.weight[i] * next[i] * next[i];
    }
    beta = std::sqrt(norm);
    off[j] = beta;
    for (std::size_t i = 0; i < n; ++i) next[i] /= beta;
    std::swap(previous, current);
    std::swap(current, next);
  }
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver;
  solver.computeFromTridiagonal(diagonal, off, Eigen::ComputeEigenvectors);
  detail::MaximumRule rule;
  rule.range = fine.range;
  for (int j = 0; j < k; ++j) {
    const double first = solver.eigenvectors()(0, j);
    rule.y.push_back(center + solver.eigenvalues()[j]);
    rule.weight.push_back(mass * first * first);
  }
  return rule;
}

// E[g(M)] by `rule` for the test integrands g: one step of sd kNarrowest (the narrowest the
// shared rule serves) at means spread over fine's range, its density and the density times z
// (the slopes' integrands); three a mean.
std::vector<double> test_integrals(const detail::MaximumRule& rule,
                                   const detail::MaximumRule& fine) {
  std::vector<double> integrals;
  const auto& normal = normal_table();
  const double step = kTestSpacing * SuccessRule::kNarrowest;
  for (double mean = fine.y.front(); mean <= fine.y.back(); mean += step) {
    const detail::Step e{mean, SuccessRule::kNarrowest};
    std::array<double, 3> a{};
    for (std::size_t i = 0; i < rule.y.size(); ++i) {
      const auto f = factor_at(normal, e, 1 / e.sd, rule.y[i]);
      a[0] += rule.weight[i] * f.below, a[1] += rule.weight[i] * f.density;
      a[2] += rule.weight[i] * f.density * f.z;
    }
    integrals.insert(integrals.end(), a.begin(), a.end());
  }
  return integrals;
}

// The largest error of `rule` against `fine` over the test integrands, fine's own integrals
// (test_integrals(fine, fine)) given: they are the same for every rule tried.
double gauss_error(const detail::MaximumRule& rule, const detail::MaximumRule& fine,
                   std::span<const double> exact) {
  const auto integrals = test_integrals(rule, fine);
  double worst = 0;
  for (std::size_t c = 0; c < exact.size(); ++c)
    worst = std::max(worst, std::abs(exact[c] - integrals[c]));
  return worst;
}

// The fewest-node Gauss rule that meets kGaussTolerance on the test integrands, or `fine`.
detail::MaximumRule shared_rule(std::int64_t distractors) {
  auto fine = detail::maximum_rule(distractors, {}, kPieceSds * SuccessRule::kNarrowest);
  const auto exact = test_integrals(fine, fine);
  for (int k : kGaussNodes) {
    if (static_cast<std::size_t>(k) >= fine.y.size()) break;
    auto rule = gauss_rule(fine, k);
    if (gauss_error(rule, fine, exact) < kGaussTolerance) return rule;
  }
  return fine;
}

}  // namespace

SuccessRule::SuccessRule(std::int64_t distractors)
    : rule_(std::make_unique<detail::MaximumRule>(shared_rule(distractors))),
      mass_(mass_of(*rule_)),
      coarse_(std::make_unique<detail::MaximumRule>(
          detail::maximum_rule(rule_->range, {}, kPieceSds * kNarrowest, kNarrowDensityScales))) {
  PHASESIM_EXPECT(distractors >= 1);
}

SuccessRule::~SuccessRule() = default;

std::size_t SuccessRule::nodes() const { return rule_->y.size(); }

bool SuccessRule::lookup(EntryLaw law, double beta, std::span<const double> x, double& probability,
                         std::span<double> slope) const {
  const std::size_t m = x.size();
  Scratch<detail::Step> entries(m), narrow;
  for (std::size_t s = 0; s < m; ++s) {
    if (!(x[s] >= 0 && x[s] <= 1)) return false;
    const auto e = law_entry(law, beta, x[s]);
    if (!(e.sd >= kStep)) return false;
    entries[s] = {e.mean, e.sd};
    if (e.sd < kNarrowest) narrow.push_back(entries[s]);
  }
  Scratch<double> d_mean(m), d_sd(m);
  const std::span<const detail::Step> all(entries.data(), m);
  if (narrow.empty()) {
    probability = integrate(*rule_, mass_, all, {d_mean.data(), m}, {d_sd.data(), m});
  } else {
    probability = integrate_narrow(*coarse_, {narrow.data(), narrow.size()}, all,
                                   {d_mean.data(), m}, {d_sd.data(), m});
  }
  for (std::size_t s = 0; s < m; ++s)
    slope[s] = detail::law_slope(law, beta, x[s], entries[s].sd, d_mean[s], d_sd[s]);
  return true;
}

}  // namespace phasesim::channel
