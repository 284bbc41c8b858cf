#include "phasesim/engines/analytic_engine.hpp"

#include <algorithm>

#include "phasesim/channel/phase_channel.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/core/parallel.hpp"

namespace phasesim::engines {
namespace {

constexpr std::int64_t kMaxClasses = std::int64_t{1} << 20;
// Measured (benchmarks/theorems_benchmark.cpp, BM_NiahAnalytic): a phase's quadrature costs
// about this much per slot it holds, and the report about this much per trial and head.
constexpr double kSecondsPerSlot = 1e-4;
constexpr double kSecondsPerTrialHead = 1e-7;

}  // namespace

void AnalyticEngine::check(const niah::NiahModel& model) const {
  require(model.content_noise == 0,
          "invalid --content-noise " + format_number(model.content_noise) +
              " with --engine analytic (the analytic channel has no content noise; use "
              "--engine fast)");
  // Query heads of one cache combine as one head (one Bernoulli, all their votes): exact where
  // they have one query, in the standardized channel and without query noise.
  for (int h = 0; h < model.heads(); ++h) {
    require(!(model.shares_cache(h) && model.full_vector() && model.query_noise > 0),
            "invalid --engine analytic: query heads that share a cache (query_heads) with "
            "--query-noise have correlated logits the analytic channel does not compute; use "
            "--engine full");
  }
  // The report combines heads per class of needle positions modulo the strides' lcm: bound
  // that work, and its memory, before any.
  const auto classes = niah::stride_period(model.geometries, model.context);
  require(classes <= kMaxClasses,
          "invalid --engine analytic (the heads' strides give " + std::to_string(classes) +
              " classes of needle positions to combine the heads over, more than " +
              std::to_string(kMaxClasses) + "; use --engine fast)");
}

std::string AnalyticEngine::approximation(const niah::NiahModel& model) const {
  return model.full_vector() ? "the large-d limit of the full-vector model" : "";
}

std::vector<std::string> AnalyticEngine::paths(const niah::NiahModel& model) const {
  return std::vector<std::string>(static_cast<std::size_t>(model.heads()), "quadrature");
}

std::vector<int> AnalyticEngine::computed_as(const niah::NiahModel& m) {
  std::vector<int> source;
  for (int h = 0; h < m.heads(); ++h) {
    int same = m.alike_head(h);  // a query head reads its cache's first head's P
    for (int e = 0; e < h && same == h; ++e) {
      const auto& a = m.geometry(e);
      const auto& b = m.geometry(h);
      if (source[static_cast<std::size_t>(e)] == e && a.window == b.window &&
          a.stride == b.stride && a.offset == b.offset && m.split_rho(e) == m.split_rho(h) &&
          m.gates[static_cast<std::size_t>(e)].weights ==
              m.gates[static_cast<std::size_t>(h)].weights) {
        same = e;
      }
    }
    source.push_back(same);
  }
  return source;
}

WorkEstimate AnalyticEngine::estimate(const niah::NiahRun& run) const {
  const auto& m = run.model;
  const auto source = computed_as(m);
  double quadratures = 0;  // one per distinct head and phase, each about as costly as its slots
  for (int h = 0; h < m.heads(); ++h) {
    if (source[static_cast<std::size_t>(h)] == h) quadratures += m.geometry(h).window;
  }
  const auto trials = static_cast<double>(run.needles.trials());
  return {quadratures * kSecondsPerSlot + trials * m.heads() * kSecondsPerTrialHead,
          32.0 * m.heads() * m.max_window() + 32 * trials * m.heads()};
}

niah::EngineOutput AnalyticEngine::run(const niah::NiahRun& run, const Parallel& parallel) const {
  const auto& m = run.model;
  const auto source = computed_as(m);
  std::vector<int> distinct;
  for (int h = 0; h < m.heads(); ++h) {
    if (source[static_cast<std::size_t>(h)] == h) distinct.push_back(h);
  }
  const auto computed =
      parallel_map(parallel, static_cast<std::int64_t>(distinct.size()), [&](std::int64_t i) {
        const int h = distinct[static_cast<std::size_t>(i)];
        return channel::phase_success(m.geometry(h), m.gates[static_cast<std::size_t>(h)],
                                      m.beta_effective(), m.entries(h), m.split_rho(h));
      });
  niah::EngineOutput output;
  for (int h = 0; h < m.heads(); ++h) {
    const auto at =
        std::find(distinct.begin(), distinct.end(), source[static_cast<std::size_t>(h)]);
    output.phase_success.push_back(computed[static_cast<std::size_t>(at - distinct.begin())]);
  }
  return output;
}

std::unique_ptr<Engine> make_analytic_engine() { return std::make_unique<AnalyticEngine>(); }

}  // namespace phasesim::engines
