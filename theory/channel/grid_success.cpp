#include "grid_success.hpp"

#include <algorithm>
#include <boost/math/quadrature/gauss.hpp>
#include <cmath>

#include "phasesim/core/contract.hpp"
#include "phasesim/core/normal.hpp"
#include "phasesim/core/portable_math.hpp"

namespace phasesim::channel::detail {
namespace {

// Mass of the distractor maximum M left outside the rule, on each side (as channel.cpp's).
constexpr double kTailMass = 1e-18;
// Beyond mean +- 8 sd a step Phi((y - mean)/sd) is 0 or 1 within 6e-16: it needs no nodes.
constexpr double kLive = 8;
// Inside its live range a step gets pieces at most 2 sd long (maximum_rule's default; 16
// Gauss-Legendre nodes each, exact for degree 31); the density of M pieces at most one of its
// scales long.
// Steps narrower than this are treated as this wide (a piece must move y by more than ulps).
constexpr double kNarrowest = 1e-9;

using Rule = boost::math::quadrature::gauss<double, kPieceNodes>;  // kPieceNodes points

// The widest piece that may start at y, and where the next narrower requirement begins.
double next_break(double y, double hi, double density_piece, std::span<const Step> steps,
                  double step_sds) {
  double width = density_piece;
  for (const auto& s : steps) {
    if (y >= s.mean - kLive * s.sd && y < s.mean + kLive * s.sd) {
      width = std::min(width, step_sds * s.sd);
    }
  }
  double next = std::min(hi, y + width);
  for (const auto& s : steps) {
    const double start = s.mean - kLive * s.sd;
    if (start > y && step_sds * s.sd < width) next = std::min(next, start);
  }
  return next;
}

}  // namespace

MaximumRange maximum_range(std::int64_t distractors) {
  const auto n = static_cast<double>(distractors);
  return {n, portable::log(n), normal_quantile_from_log_cdf(portable::log(kTailMass) / n),
          normal_quantile_from_log_cdf(portable::log1p(-kTailMass) / n),
          normal_quantile_from_log_cdf(portable::log(0.5) / n)};
}

MaximumRule maximum_rule(const MaximumRange& range, std::span<const Step> steps, double widest,
                         double density_scales, double step_sds) {
  const auto [n, log_n, lo, hi, median] = range;
  // The scale of M: about 1/median for large n (the maximum's spread), 1 for small n.
  const double density_piece = std::min(widest, density_scales / std::max(1.0, median));
  const auto& x = Rule::abscissa();
  const auto& w = Rule::weights();
  MaximumRule nodes;
  nodes.range = range;
  for (double a = lo; a < hi;) {
    const double b = next_break(a, hi, density_piece, steps, step_sds);
    nodes.starts.push_back(a);
    const double mid = 0.5 * (a + b), half = 0.5 * (b - a);
    for (std::size_t i = 0; i < x.size(); ++i) {
      for (double sign : {-1.0, 1.0}) {
        const double y = mid + sign * half * x[i];
        const double log_density =
            log_n + log_normal_pdf(y) + (n > 1 ? (n - 1) * log_normal_cdf_double(y) : 0.0);
        nodes.y.push_back(y);
        nodes.weight.push_back(half * w[i] * portable::exp(log_density));
      }
    }
    a = b;
  }
  return nodes;
}

namespace {

// Phi((y - mean)/sd) at every node y, for each value of one axis: row v is value v's.
std::vector<double> step_table(const MaximumRule& nodes, std::span<const Step> steps) {
  constexpr double kMinusSqrtHalf = -0.70710678118654752;
  std::vector<double> table;
  table.reserve(steps.size() * nodes.y.size());
  for (const auto& s : steps) {
    for (double y : nodes.y)
      table.push_back(0.5 * portable::erfc(kMinusSqrtHalf * (y - s.mean) / s.sd));
  }
  return table;
}

}  // namespace

std::vector<double> grid_success(EntryLaw law, double beta, std::int64_t distractors,
                                 std::span<const std::vector<double>> axes) {
  PHASESIM_EXPECT(distractors >= 1 && (axes.size() == 1 || axes.size() == 2));
  std::vector<std::vector<Step>> steps(axes.size());
  std::vector<Step> all;
  for (std::size_t d = 0; d < axes.size(); ++d) {
    for (double x : axes[d]) {
      const auto e = law_entry(law, beta, x);
      steps[d].push_back({e.mean, std::max(e.sd, kNarrowest)});
    }
    all.insert(all.end(), steps[d].begin(), steps[d].end());
  }
  const auto nodes = maximum_rule(distractors, all);
  const std::size_t k = nodes.y.size();
  double mass = 0;  // the rule's integral of the density: 1 up to its error, which cancels below
  for (double w : nodes.weight) mass += w;
  auto first = step_table(nodes, steps[0]);
  for (std::size_t i = 0; i < steps[0].size(); ++i) {
    for (std::size_t j = 0; j < k; ++j) first[i * k + j] *= nodes.weight[j];
  }
  std::vector<double> values;
  if (axes.size() == 1) {
    for (std::size_t i = 0; i < steps[0].size(); ++i) {
      double sum = 0;
      for (std::size_t j = 0; j < k; ++j) sum += first[i * k + j];
      values.push_back(mass - sum);
    }
    return values;
  }
  const auto second = step_table(nodes, steps[1]);
  for (std::size_t i = 0; i < steps[0].size(); ++i) {
    for (std::size_t l = 0; l < steps[1].size(); ++l) {
      double sum = 0;
      for (std::size_t j = 0; j < k; ++j) sum += first[i * k + j] * second[l * k + j];
      values.push_back(mass - sum);
    }
  }
  return values;
}

}  // namespace phasesim::channel::detail
