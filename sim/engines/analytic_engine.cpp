#include "phasesim/engines/analytic_engine.hpp"

#include "phasesim/channel/phase_channel.hpp"
#include "phasesim/core/error.hpp"

namespace phasesim::engines {
namespace {

constexpr std::int64_t kMaxClasses = std::int64_t{1} << 20;

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

niah::EngineOutput AnalyticEngine::run(const niah::NiahRun& run, const Parallel&) const {
  const auto& m = run.model;
  niah::EngineOutput output;
  for (int h = 0; h < m.heads(); ++h) {
    output.phase_success.push_back(
        channel::phase_success(m.geometry(h), m.gates[static_cast<std::size_t>(h)],
                               m.beta_effective(), m.entries(h), m.split_rho(h)));
  }
  return output;
}

std::unique_ptr<Engine> make_analytic_engine() { return std::make_unique<AnalyticEngine>(); }

}  // namespace phasesim::engines
