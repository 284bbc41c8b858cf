#include "phasesim/channel/success_table.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "grid_success.hpp"
#include "lanes.hpp"
#include "phasesim/core/contract.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/core/portable_math.hpp"

namespace phasesim::channel {
namespace {

// Degree per coordinate and the coefficient tail a patch may leave. One coordinate is cheap
// (at most a dozen patches of 25 nodes); two pay (degree + 1)^2 nodes a patch: at 1e-13 a
// whole table has at most 274 patches (79,000 nodes) over beta 0..40 and N 8..10^7, and its
// largest errors over that grid are 9e-15 in P and 1e-10 in a slope (2e-11 made a third of
// the patches, with 6e-12 and 4e-8: slopes that far off moved T2's slow drifts by 1e-6).
constexpr int kDegreeOne = 24;
constexpr int kDegreeTwo = 16;
constexpr int kMaxDegree = 24;
constexpr double kTailOne = 1e-13;
constexpr double kTailTwo = 1e-13;
// Points a hair outside the domain (rounding in u = g/||g||) are still served.
constexpr double kDomainSlack = 1e-12;

// cos(pi a / b) for integers, from an exact reduction of a / b to [-1, 1].
double cos_pi_ratio(std::int64_t a, std::int64_t b) {
  const std::int64_t r = a % (2 * b);  // cos has period 2 pi
  const double angle = static_cast<double>(r > b ? r - 2 * b : r) / static_cast<double>(b);
  return portable::sincospi(angle).cos;
}

// T_k(t) and T_k'(t) for k = 0..degree.
void chebyshev_basis(double t, int degree, std::span<double> value, std::span<double> slope) {
  value[0] = 1, slope[0] = 0;
  if (degree > 0) value[1] = t, slope[1] = 1;
  for (int k = 2; k <= degree; ++k) {
    const auto i = static_cast<std::size_t>(k);
    value[i] = 2 * t * value[i - 1] - value[i - 2];
    slope[i] = 2 * value[i - 1] + 2 * t * slope[i - 1] - slope[i - 2];
  }
}

using detail::Pair;  // lanes.hpp
template <typename V>
constexpr std::size_t kWidth = sizeof(V) / sizeof(double);
void set_lane(double& v, std::size_t, double x) { v = x; }
void set_lane(Pair& v, std::size_t j, double x) { v[j] = x; }

// sum_k c_k T_k(t) and sum_k c_k T_k'(t) at Chains * kWidth<V> points, each with its own
// coefficients (c[p]; lane j of t[n] is point n kWidth + j's t): chebyshev_basis and the two sums
// in one pass, the same operations in the same order (so the same bits) without the arrays,
// which at W = S = 128 (a lookup a phase) were most of an evaluation's memory traffic. A point's
// recurrence is a chain of dependent multiplies and adds (24 steps, each waiting on the last):
// several chains side by side, of two lanes each, keep the processor busy
// (SuccessTable::lookup_each), in WebAssembly too.
template <typename V, std::size_t Chains>
void interpolate_lanes(const std::array<const double*, Chains * kWidth<V>>& c,
                       const std::array<V, Chains>& t, int degree, std::array<V, Chains>& value,
                       std::array<V, Chains>& slope) {
  const auto coefficient = [&](std::size_t n, std::size_t k) {
    V c_k{};
    for (std::size_t j = 0; j < kWidth<V>; ++j) set_lane(c_k, j, c[n * kWidth<V> + j][k]);
    return c_k;
  };
  const V zero{}, one = zero + 1.0;
  std::array<V, Chains> v0, v1, s0, s1;  // T_{k-2}, T'_{k-2}, then T_{k-1}, T'_{k-1}
  for (std::size_t n = 0; n < Chains; ++n) {
    v0[n] = one, s0[n] = zero;
    value[n] = zero + coefficient(n, 0) * v0[n];
    slope[n] = zero + coefficient(n, 0) * s0[n];
  }
  if (degree == 0) return;
  for (std::size_t n = 0; n < Chains; ++n) {
    v1[n] = t[n], s1[n] = one;
    value[n] += coefficient(n, 1) * v1[n];
    slope[n] += coefficient(n, 1) * s1[n];
  }
  for (int k = 2; k <= degree; ++k) {
    for (std::size_t n = 0; n < Chains; ++n) {
      const V v = 2.0 * t[n] * v1[n] - v0[n];
      const V s = 2.0 * v1[n] + 2.0 * t[n] * s1[n] - s0[n];
      const V c_k = coefficient(n, static_cast<std::size_t>(k));
      value[n] += c_k * v;
      slope[n] += c_k * s;
      v0[n] = v1[n], v1[n] = v, s0[n] = s1[n], s1[n] = s;
    }
  }
}

// Points a lookup_each interpolates side by side.
constexpr std::size_t kLanes = 4;

}  // namespace

// A square [lo, lo + width]^m of the domain.
struct SuccessTable::Region {
  std::array<double, 2> lo{0, 0};
  double width = 1;
  int depth = 0;
};

struct SuccessTable::Patch {
  enum class Kind { leaf, split, unresolved };
  std::once_flag built;
  Kind kind = Kind::unresolved;
  std::vector<double> coefficients;   ///< leaf: c_ij, row-major, (degree + 1)^m of them
  std::unique_ptr<Patch[]> children;  ///< split: 2^m, child bit d set for the upper half in d
};

SuccessTable::SuccessTable(EntryLaw law, double beta, std::int64_t entries, int multiplicity)
    : law_(law),
      beta_(beta),
      entries_(entries),
      multiplicity_(multiplicity),
      degree_(multiplicity == 1 ? kDegreeOne : kDegreeTwo),
      root_(std::make_unique<Patch>()) {
  require(
      multiplicity >= 1 && multiplicity <= kMaxMultiplicity,
      "invalid success table multiplicity " + std::to_string(multiplicity) + " (must be 1 or 2)");
  require(std::isfinite(beta) && beta >= 0,
          "invalid --beta " + format_number(beta) + " (must be finite and >= 0)");
  require(entries >= multiplicity, "invalid --entries " + std::to_string(entries) +
                                       " (must be at least the number of needle entries, " +
                                       std::to_string(multiplicity) + ")");
  const std::int64_t n = degree_ + 1;
  for (std::int64_t k = 0; k < n; ++k) chebyshev_nodes_.push_back(cos_pi_ratio(2 * k + 1, 2 * n));
  // c_j = (2 / n) sum_k f(t_k) T_j(t_k), halved for j = 0: row j of the transform.
  for (std::int64_t j = 0; j < n; ++j) {
    for (std::int64_t k = 0; k < n; ++k) {
      const double scale = (j == 0 ? 1.0 : 2.0) / static_cast<double>(n);
      transform_.push_back(scale * cos_pi_ratio(j * (2 * k + 1), 2 * n));
    }
  }
}

SuccessTable::~SuccessTable() = default;

bool SuccessTable::covers(std::span<const double> x) const {
  if (static_cast<int>(x.size()) != multiplicity_) return false;
  for (double v : x) {
    if (!(v >= -kDomainSlack && v <= 1 + kDomainSlack)) return false;
  }
  if (multiplicity_ == 1) return true;
  const double used = law_ == EntryLaw::normalized ? x[0] * x[0] + x[1] * x[1] : x[0] + x[1];
  return used <= 1 + kDomainSlack;
}

std::optional<SuccessGradient> SuccessTable::operator()(std::span<const double> x) const {
  SuccessGradient result{0.0, std::vector<double>(x.size(), 0.0)};
  if (!lookup(x, result.probability, result.d_u)) return std::nullopt;
  return result;
}

bool SuccessTable::lookup(std::span<const double> x, double& probability,
                          std::span<double> slope) const {
  if (!covers(x)) return false;
  const auto m = static_cast<std::size_t>(multiplicity_);
  if (entries_ == multiplicity_) {
    probability = 1.0;
    std::fill(slope.begin(), slope.end(), 0.0);
    return true;
  }
  std::array<double, 2> at{0, 0};
  for (std::size_t d = 0; d < m; ++d) at[d] = std::clamp(x[d], 0.0, 1.0);
  Region region;
  const Patch* patch = leaf(at, region);
  if (patch == nullptr) return false;
  interpolate(*patch, region, {at.data(), m}, probability, slope);
  return true;
}

bool SuccessTable::lookup_each(std::span<const double> x, std::span<double> probability,
                               std::span<double> slope) const {
  if (multiplicity_ != 1 || entries_ == multiplicity_) return false;
  // Every point's leaf first (building what is missing), then the lanes.
  std::array<const double*, kLanes> c{};
  std::array<double, kLanes> t{}, scale{};
  std::array<Pair, kLanes / 2> pair_t{}, value{}, d_t{};
  std::array<std::size_t, kLanes> index{};
  std::size_t lanes = 0;
  const auto flush = [&](std::size_t used) {
    for (std::size_t l = used; l < kLanes; ++l) c[l] = c[0], t[l] = t[0];
    for (std::size_t l = 0; l < kLanes; ++l) pair_t[l / 2][l % 2] = t[l];
    interpolate_lanes<Pair, kLanes / 2>(c, pair_t, degree_, value, d_t);
    for (std::size_t l = 0; l < used; ++l) {
      probability[index[l]] = value[l / 2][l % 2];
      slope[index[l]] = d_t[l / 2][l % 2] * scale[l];  // dt/dx
    }
  };
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!covers(x.subspan(i, 1))) return false;
    const std::array<double, 2> at{std::clamp(x[i], 0.0, 1.0), 0};
    Region region;
    const Patch* patch = leaf(at, region);
    if (patch == nullptr) return false;
    c[lanes] = patch->coefficients.data();
    t[lanes] = 2 * (at[0] - region.lo[0]) / region.width - 1;
    scale[lanes] = 2 / region.width;
    index[lanes] = i;
    if (++lanes == kLanes) flush(lanes), lanes = 0;
  }
  if (lanes > 0) flush(lanes);
  return true;
}

const SuccessTable::Patch* SuccessTable::leaf(const std::array<double, 2>& at,
                                              Region& region) const {
  const auto m = static_cast<std::size_t>(multiplicity_);
  Patch* patch = root_.get();
  for (;;) {
    std::call_once(patch->built, [&] { build(*patch, region); });
    if (patch->kind == Patch::Kind::leaf) return patch;
    if (patch->kind == Patch::Kind::unresolved) return nullptr;
    region.width /= 2;
    ++region.depth;
    std::size_t child = 0;
    for (std::size_t d = 0; d < m; ++d) {
      if (at[d] >= region.lo[d] + region.width) region.lo[d] += region.width, child |= 1u << d;
    }
    patch = &patch->children[child];
  }
}

void SuccessTable::build(Patch& patch, const Region& region) const {
  const auto n = static_cast<std::size_t>(degree_ + 1);
  const auto m = static_cast<std::size_t>(multiplicity_);
  std::vector<std::vector<double>> axes(m);
  for (std::size_t d = 0; d < m; ++d) {
    for (double t : chebyshev_nodes_) axes[d].push_back(region.lo[d] + region.width * (t + 1) / 2);
  }
  const auto values = detail::grid_success(law_, beta_, entries_ - multiplicity_, axes);
  // Coefficients: the transform along the last axis, then (two coordinates) along the first.
  std::vector<double> c(values.size(), 0.0);
  const std::size_t rows = m == 1 ? 1 : n;
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t j = 0; j < n; ++j) {
      for (std::size_t k = 0; k < n; ++k) c[r * n + j] += transform_[j * n + k] * values[r * n + k];
    }
  }
  if (m == 2) {
    std::vector<double> by_rows(c.size(), 0.0);
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t k = 0; k < n; ++k) {
        for (std::size_t j = 0; j < n; ++j)
          by_rows[i * n + j] += transform_[i * n + k] * c[k * n + j];
      }
    }
    c = std::move(by_rows);
  }
  // The two highest degrees in any coordinate: what a degree-2 higher patch would still add.
  double tail = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    const std::size_t high = m == 1 ? i : std::max(i / n, i % n);
    if (high + 2 >= n) tail += std::abs(c[i]);
  }
  patches_.fetch_add(1);
  nodes_.fetch_add(static_cast<std::int64_t>(values.size()));
  if (tail <= (m == 1 ? kTailOne : kTailTwo)) {
    patch.kind = Patch::Kind::leaf;
    patch.coefficients = std::move(c);
  } else if (region.depth < kMaxDepth) {
    patch.kind = Patch::Kind::split;
    patch.children = std::make_unique<Patch[]>(std::size_t{1} << m);
  }
}

void SuccessTable::interpolate(const Patch& patch, const Region& region, std::span<const double> x,
                               double& probability, std::span<double> d_u) const {
  const auto n = static_cast<std::size_t>(degree_ + 1);
  const auto m = x.size();
  if (m == 1) {
    std::array<double, 1> value, slope;
    interpolate_lanes<double, 1>({patch.coefficients.data()},
                                 {2 * (x[0] - region.lo[0]) / region.width - 1}, degree_, value,
                                 slope);
    probability = value[0];
    d_u[0] = slope[0] * (2 / region.width);  // dt/dx
    return;
  }
  // Not zeroed (a memset of 800 bytes was a tenth of a lookup in the page): chebyshev_basis
  // writes every entry read below.
  std::array<std::array<double, kMaxDegree + 1>, 2> value, slope;
  for (std::size_t d = 0; d < m; ++d) {
    const double t = 2 * (x[d] - region.lo[d]) / region.width - 1;
    chebyshev_basis(t, degree_, value[d], slope[d]);
  }
  const auto& c = patch.coefficients;
  const double scale = 2 / region.width;  // dt/dx
  probability = 0;
  std::fill(d_u.begin(), d_u.end(), 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    double along = 0, along_slope = 0;  // sum_j c_ij T_j(t_2) and sum_j c_ij T_j'(t_2)
    for (std::size_t j = 0; j < n; ++j) {
      along += c[i * n + j] * value[1][j];
      along_slope += c[i * n + j] * slope[1][j];
    }
    probability += value[0][i] * along;
    d_u[0] += slope[0][i] * along;
    d_u[1] += value[0][i] * along_slope;
  }
  d_u[0] *= scale;
  d_u[1] *= scale;
}

std::int64_t SuccessTable::patches() const { return patches_.load(); }
std::int64_t SuccessTable::nodes() const { return nodes_.load(); }

const SuccessTable& SuccessTables::table(EntryLaw law, double beta, std::int64_t entries,
                                         int multiplicity) {
  const std::lock_guard lock(mutex_);
  auto& table = tables_[{law, beta, entries, multiplicity}];
  if (!table) table = std::make_unique<SuccessTable>(law, beta, entries, multiplicity);
  return *table;
}

const SuccessRule& SuccessTables::rule(std::int64_t distractors) {
  const std::lock_guard lock(mutex_);
  auto& rule = rules_[distractors];
  if (!rule) rule = std::make_unique<SuccessRule>(distractors);
  return *rule;
}

SuccessTables::Phases::Phases(SuccessTables& tables, EntryLaw law, double beta,
                              std::int64_t entries)
    : owner_(&tables), law_(law), beta_(beta), entries_(entries) {
  for (int m = 1; m <= SuccessTable::kMaxMultiplicity && m <= entries; ++m) {
    tables_[static_cast<std::size_t>(m - 1)] = &tables.table(law, beta, entries, m);
  }
}

SuccessGradient SuccessTables::Phases::operator()(std::span<const double> x) const {
  SuccessGradient result{0.0, std::vector<double>(x.size(), 0.0)};
  result.probability = (*this)(x, result.d_u);
  return result;
}

double SuccessTables::Phases::operator()(std::span<const double> x, std::span<double> slope) const {
  const auto m = x.size();
  double probability = 0;
  if (m >= 1 && m <= tables_.size() && tables_[m - 1] != nullptr &&
      tables_[m - 1]->lookup(x, probability, slope)) {
    return probability;
  }
  const auto n = entries_ - static_cast<std::int64_t>(m);
  if (m > tables_.size() && n >= 1 && owner_->rule(n).lookup(law_, beta_, x, probability, slope))
    return probability;
  const auto value = law_success_gradient(law_, beta_, entries_, x);
  std::copy(value.d_u.begin(), value.d_u.end(), slope.begin());
  return value.probability;
}

SuccessGradient SuccessTables::success(EntryLaw law, double beta, std::int64_t entries,
                                       std::span<const double> x) {
  return phases(law, beta, entries)(x);
}

}  // namespace phasesim::channel
