#include "phasesim/theorems/optimize.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <numeric>
#include <tuple>

#include "costs.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/model/gate.hpp"
#include "phasesim/theorems/concentration.hpp"

namespace phasesim::theorems {
namespace {

constexpr std::size_t kMemory = 8;  // L-BFGS curvature pairs kept
constexpr double kGradientTolerance = 1e-10;
constexpr double kStallTolerance = 1e-15;  // relative improvement that counts as none
constexpr int kStallIterations = 3;
constexpr double kArmijo = 1e-4;
constexpr int kHalvings = 40;
constexpr double kMaxStep = 10;  // largest change of one logit per iteration

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  return std::inner_product(a.begin(), a.end(), b.begin(), 0.0);
}

double max_abs(const std::vector<double>& a) {
  double m = 0;
  for (double x : a) m = std::max(m, std::abs(x));
  return m;
}

// Curvature pairs of F = -J: s = step in logits, y = change of dF/db.
struct Pair {
  std::vector<double> s, y;
  double rho;
};

// The two-loop recursion: an ascent direction H grad J from the stored pairs.
std::vector<double> direction(const std::deque<Pair>& pairs, const std::vector<double>& grad_j) {
  std::vector<double> q(grad_j.size());
  for (std::size_t i = 0; i < q.size(); ++i) q[i] = -grad_j[i];  // grad F
  if (pairs.empty()) {
    const double scale = 1 / max_abs(q);  // a first step that moves a logit by 1
    for (double& x : q) x *= -scale;
    return q;
  }
  std::vector<double> alpha(pairs.size());
  for (std::size_t k = pairs.size(); k-- > 0;) {
    alpha[k] = pairs[k].rho * dot(pairs[k].s, q);
    for (std::size_t i = 0; i < q.size(); ++i) q[i] -= alpha[k] * pairs[k].y[i];
  }
  const auto& last = pairs.back();
  const double gamma = dot(last.s, last.y) / dot(last.y, last.y);
  for (double& x : q) x *= gamma;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const double b = pairs[k].rho * dot(pairs[k].y, q);
    for (std::size_t i = 0; i < q.size(); ++i) q[i] += pairs[k].s[i] * (alpha[k] - b);
  }
  for (double& x : q) x = -x;
  return q;
}

// Backtracking (Armijo) along p; returns false when no step increases J.
bool line_search(const Objective& objective, std::vector<double>& x, ObjectiveValue& at,
                 std::vector<double> p) {
  const double cap = max_abs(p);
  if (cap > kMaxStep) {
    for (double& v : p) v *= kMaxStep / cap;
  }
  const double slope = dot(at.gradient, p);
  if (!(slope > 0)) return false;
  std::vector<double> trial(x.size());
  for (int h = 0; h < kHalvings; ++h) {
    const double t = std::ldexp(1.0, -h);
    for (std::size_t i = 0; i < x.size(); ++i) trial[i] = x[i] + t * p[i];
    auto next = evaluate_logits(objective, trial);
    if (next.value > at.value + kArmijo * t * slope) {
      x = trial;
      at = std::move(next);
      return true;
    }
  }
  return false;
}

struct Start {
  std::string name;
  std::vector<double> logits;
};

// The k heaviest-weighted phases with slots, one slot each (the newest), k = 1..K. For channel
// shares also k of them and a (k+1)-th at half their weight: the optima there are k equal shares
// and at most one smaller (THEORY.md, "T1 for channel allocations"), a shape that equal-split
// starts flow away from and random starts find only by chance.
std::vector<Start> split_starts(const Objective& objective) {
  const auto& geometry = objective.geometry;
  const auto w = objective.weights();
  std::vector<int> phases;
  for (int phi = 0; phi < geometry.stride; ++phi) {
    if (geometry.multiplicity(phi) > 0) phases.push_back(phi);
  }
  std::stable_sort(phases.begin(), phases.end(), [&](int a, int b) {
    return w[static_cast<std::size_t>(a)] > w[static_cast<std::size_t>(b)];
  });
  std::vector<Start> starts;
  std::vector<int> slots;
  for (int phi : phases) {
    const int slot = geometry.slots_of_phase(phi).back();
    if (objective.model == RetentionModel::channels && !slots.empty()) {
      auto logits = split_logits(geometry.window, slots);
      logits[static_cast<std::size_t>(slot)] = std::log(0.5);
      starts.push_back({"split:" + std::to_string(slots.size()) + "+half", std::move(logits)});
    }
    slots.push_back(slot);
    starts.push_back(
        {"split:" + std::to_string(slots.size()), split_logits(geometry.window, slots)});
  }
  return starts;
}

std::vector<Start> all_starts(const Objective& objective, const OptimizeSettings& settings) {
  auto starts = split_starts(objective);
  for (std::size_t i = 0; i < settings.warm_starts.size(); ++i) {
    starts.push_back({"warm:" + std::to_string(i), settings.warm_starts[i]});
  }
  for (int r = 0; r < settings.restarts; ++r) {
    const auto spec = "random:" + std::to_string(settings.seed + static_cast<std::uint64_t>(r)) +
                      ":" + format_number(settings.init_scale);
    starts.push_back({spec, initial_logits(spec, objective.geometry.window)});
  }
  return starts;
}

// Runs every start (in parallel); the best result, ties to the earlier start.
std::pair<std::size_t, std::vector<Ascent>> run_starts(const Objective& objective,
                                                       const std::vector<Start>& starts,
                                                       int max_iterations,
                                                       const Parallel& parallel) {
  auto results =
      parallel_map(parallel, static_cast<std::int64_t>(starts.size()), [&](std::int64_t i) {
        return lbfgs_ascent(objective, starts[static_cast<std::size_t>(i)].logits, max_iterations);
      });
  std::size_t best = 0;
  for (std::size_t k = 1; k < results.size(); ++k) {
    if (results[k].at.value > results[best].at.value) best = k;
  }
  return {best, std::move(results)};
}

}  // namespace

void OptimizeSettings::validate() const {
  require_at_least(restarts, 1, "--restarts");
  require_non_negative(init_scale, "--init-scale");
  require_at_least(max_iterations, 1, "--max-iterations");
}

std::pair<int, double> best_onehot(const Objective& objective, int preferred) {
  const auto window = static_cast<std::size_t>(objective.geometry.window);
  SuccessMemo memo;  // the one-hot gates share their phases' quadratures
  const auto value_at = [&](std::size_t s) {
    std::vector<double> g(window, 0.0);
    g[s] = 1;
    return evaluate_weights(objective, g, &memo).value;
  };
  std::pair<int, double> best{preferred, value_at(static_cast<std::size_t>(preferred))};
  for (std::size_t s = 0; s < window; ++s) {
    const double value = value_at(s);
    if (value > best.second * (1 + 1e-12)) best = {static_cast<int>(s), value};
  }
  return best;
}

std::vector<double> split_logits(int window, const std::vector<int>& slots) {
  std::vector<double> logits(static_cast<std::size_t>(window), -8.0);
  for (int s : slots) logits[static_cast<std::size_t>(s)] = 0.0;
  return logits;
}

Ascent lbfgs_ascent(const Objective& objective, std::vector<double> logits, int max_iterations) {
  Ascent result{std::move(logits), {}, 0};
  auto& x = result.logits;
  auto& at = result.at;
  at = evaluate_logits(objective, x);
  std::deque<Pair> pairs;
  int stalled = 0;
  while (result.iterations < max_iterations && max_abs(at.gradient) > kGradientTolerance) {
    const auto x_old = x;
    const auto old = at;
    if (!line_search(objective, x, at, direction(pairs, at.gradient))) {
      if (pairs.empty()) break;
      pairs.clear();  // a poor quasi-Newton model: restart from steepest ascent
      continue;
    }
    ++result.iterations;
    Pair pair{std::vector<double>(x.size()), std::vector<double>(x.size()), 0};
    for (std::size_t i = 0; i < x.size(); ++i) {
      pair.s[i] = x[i] - x_old[i];
      pair.y[i] = old.gradient[i] - at.gradient[i];
    }
    const double sy = dot(pair.s, pair.y);
    if (sy > 1e-12 * std::sqrt(dot(pair.s, pair.s) * dot(pair.y, pair.y))) {
      pair.rho = 1 / sy;
      pairs.push_back(std::move(pair));
      if (pairs.size() > kMemory) pairs.pop_front();
    }
    const bool improved = at.value - old.value > kStallTolerance * std::abs(at.value);
    stalled = improved ? 0 : stalled + 1;
    if (stalled >= kStallIterations) break;
  }
  return result;
}

GateOptimum optimize_gate(const Objective& objective, const OptimizeSettings& settings,
                          const Parallel& parallel) {
  objective.validate();
  settings.validate();
  // The ascents read the success tables; what is reported is the quadrature's at their optimum.
  const auto search = tabled(objective);
  auto starts = all_starts(objective, settings);
  auto [best, results] = run_starts(search, starts, settings.max_iterations, parallel);

  GateOptimum optimum;
  optimum.starts = static_cast<int>(starts.size());
  for (const auto& r : results) optimum.iterations += r.iterations;
  // Polish: the best gate's one-hot and its equal split over the slots above 1%.
  const auto g = gate_from_logits(results[best].logits, "best").weights;
  std::vector<int> support;
  for (std::size_t s = 0; s < g.size(); ++s) {
    if (g[s] > kEffectiveWeight) support.push_back(static_cast<int>(s));
  }
  const auto top = summarize_gate(g).argmax;
  std::vector<Start> polish = {{"polish:onehot", split_logits(objective.geometry.window, {top})},
                               {"polish:support", split_logits(objective.geometry.window, support)},
                               {"polish:best", results[best].logits}};
  auto [polished, refined] = run_starts(search, polish, settings.max_iterations, parallel);
  for (const auto& r : refined) optimum.iterations += r.iterations;
  const bool better = refined[polished].at.value > results[best].at.value;
  const auto& winner = better ? refined[polished] : results[best];
  optimum.best_start = better ? polish[polished].name : starts[best].name;
  optimum.logits = winner.logits;
  optimum.gate = gate_from_logits(winner.logits, "optimum").weights;
  auto exact = objective;
  exact.tables = nullptr;
  const auto at = evaluate_logits(exact, winner.logits);
  optimum.objective = at.value;
  optimum.per_phase = at.per_phase;
  optimum.summary = summarize_gate(optimum.gate);
  auto split = equal_split_law(exact);
  optimum.k_star_predicted = split.k_star;
  optimum.equal_split_values = std::move(split.value);
  std::tie(optimum.onehot_slot, optimum.onehot_objective) =
      best_onehot(exact, optimum.summary.argmax);
  return optimum;
}

namespace {

// The equal-split starts: one a phase that has slots.
std::int64_t split_starts(const Geometry& geometry) {
  std::int64_t splits = 0;
  for (int phi = 0; phi < geometry.stride; ++phi) splits += geometry.multiplicity(phi) > 0;
  return splits;
}

}  // namespace

std::int64_t optimize_ascents(const Objective& objective, const OptimizeSettings& settings) {
  // Counted, not built: --restarts 1e8 is refused by its estimate before any start exists.
  return split_starts(objective.geometry) + static_cast<std::int64_t>(settings.warm_starts.size()) +
         settings.restarts + 3;
}

WorkEstimate optimize_estimate(const Objective& objective, const OptimizeSettings& settings) {
  // Random starts run to --max-iterations above lock-in, kFlatAscent below it, every other
  // start about kShortAscent iterations (an equal split's evaluating two phases); each
  // iteration evaluates J about 1.2 times and pays kIterationOverhead. Then the report's
  // quadratures: J at the optimum, the one-hot gates and the equal splits (2S + 2W).
  const auto& geometry = objective.geometry;
  const auto iteration = [](double evaluation) {
    return evaluation * detail::kEvaluationsPerIteration + detail::kIterationOverhead;
  };
  const double full = iteration(detail::evaluation_seconds(geometry));
  const double split = iteration(detail::split_evaluation_seconds(geometry));
  const auto ascents = static_cast<double>(optimize_ascents(objective, settings));
  const auto splits = static_cast<double>(split_starts(geometry));
  const double random = settings.restarts;
  const double seconds =
      detail::table_seconds(geometry, 8e-3) +
      random * detail::random_ascent_iterations(objective, settings.max_iterations) * full +
      splits * detail::kShortAscent * split +
      (ascents - random - splits) * detail::kShortAscent * full +
      2.0 * (geometry.stride + geometry.window) * detail::kQuadrature;
  return {seconds, ascents * (64.0 * geometry.window + 128)};
}

ChainWork chained_optimize_work(const std::vector<std::vector<Objective>>& chains,
                                const OptimizeSettings& settings) {
  // Every link after a chain's first has one more start, the previous link's optimum; one
  // optimization runs at a time: the time adds up, the memory is the largest one's.
  auto warm = settings;
  warm.warm_starts.emplace_back();
  ChainWork work;
  for (const auto& chain : chains) {
    for (std::size_t link = 0; link < chain.size(); ++link) {
      const auto& start = link == 0 ? settings : warm;
      const auto one = optimize_estimate(chain[link], start);
      work.ascents += optimize_ascents(chain[link], start);
      work.estimate.seconds += one.seconds;
      work.estimate.bytes = std::max(work.estimate.bytes, one.bytes);
    }
  }
  return work;
}

ChainWork optimize_work(const Objective& objective, const OptimizeSettings& settings) {
  return chained_optimize_work({{objective}}, settings);
}

}  // namespace phasesim::theorems
