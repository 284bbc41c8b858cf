#include "phasesim/engines/analytic_engine.hpp"

#include "phasesim/channel/phase_channel.hpp"
#include "phasesim/channel/read_path.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/model/needle_laws.hpp"

namespace phasesim::engines {
namespace {

constexpr std::int64_t kMaxClasses = std::int64_t{1} << 20;

// What the order-statistic quadrature is exact for (channel/read_path.hpp): independent
// places (a needle of one token), a selection score independent of the attention logit, the
// standardized channel.
void check_read_path(const niah::NiahModel& model) {
  if (model.plain()) return;
  const auto refuse = [](const std::string& why) {
    throw InputError("invalid --engine analytic: " + why + "; use --engine fast");
  };
  if (model.needle_tokens > 1) {
    refuse(
        "a needle of several tokens has places whose noises are tied (MODEL.md section 10), "
        "which the analytic read path does not integrate");
  }
  if (model.full_vector()) {
    refuse(
        "the read path (MODEL.md section 10) is computed in the standardized channel, not "
        "the full-vector model's large-d limit (give --beta)");
  }
  for (int h = 0; h < model.heads(); ++h) {
    const auto rho = model.read_path(h).index_rho;
    if (rho != 0 && model.read_path(h).selects(model.entries(h))) {
      refuse("--index-rho " + format_number(rho) +
             " ties the selected entries' attention logits to their selection scores, which the "
             "order-statistic quadrature assumes independent");
    }
    const auto places =
        (model.geometry(h).window + model.geometry(h).stride - 1) / model.geometry(h).stride;
    if (places > 20)
      refuse("head " + std::to_string(h) + " holds a needle in more than 20 entries");
  }
}

// A needle position of phase phi in the head's interior (where its entries are all complete).
std::int64_t position_of_phase(const Geometry& g, int phi) {
  const std::int64_t base = std::max(g.window, g.offset) + g.stride;
  return base + ((phi - base) % g.stride + g.stride) % g.stride;
}

// The head's two stages for a needle of each phase far from the query, and inside its window.
void read_path_success(const niah::NiahModel& m, int h, niah::EngineOutput& out) {
  const auto& g = m.geometry(h);
  const auto& path = m.read_path(h);
  const auto& gate = m.gates[static_cast<std::size_t>(h)];
  const double beta = m.beta_effective();
  channel::TwoStageRest rest;
  rest.top_k = path.top_k.value_or(m.entries(h));
  rest.sink = path.sink;
  std::vector<double> far, far_selected, window, window_selected;
  for (int phi = 0; phi < g.stride; ++phi) {
    const auto p = position_of_phase(g, phi);
    const auto laws = needle_laws(g, gate, m.split_rho(h), beta, p, 1, m.entries(h), p + 1);
    const auto index =
        needle_laws(g, m.index_gate(h), 1.0, m.index_beta(h), p, 1, m.entries(h), p + 1);
    std::vector<channel::TwoStagePlace> places;
    for (std::size_t x = 0; x < laws.places.size(); ++x) {
      const auto& a = laws.places[x];
      const auto& i = index.places[x];
      places.push_back({{a.mean, a.sd}, {i.mean, i.sd}, false});
    }
    rest.entries = m.entries(h) - static_cast<std::int64_t>(places.size());
    // Far from the query, and (with a window) its token read raw at u = 1: one stage 1.
    std::vector<channel::StageTwoVariant> variants{{{}, path.sliding_window}};
    if (path.sliding_window > 0) variants.push_back({{{beta, 0.0}}, path.sliding_window - 1});
    const auto values = channel::two_stage_variants(places, rest, variants);
    far.push_back(values.front().retrieved);
    far_selected.push_back(values.front().selected);
    if (values.size() < 2) continue;
    window.push_back(values.back().retrieved);
    window_selected.push_back(values.back().selected);
  }
  out.phase_success[static_cast<std::size_t>(h)] = far;
  out.phase_selected[static_cast<std::size_t>(h)] = far_selected;
  out.window_success[static_cast<std::size_t>(h)] = window.empty() ? far : window;
  out.window_selected[static_cast<std::size_t>(h)] =
      window.empty() ? far_selected : window_selected;
}

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
  check_read_path(model);
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
        m.plain(h) ? channel::phase_success(m.geometry(h), m.gates[static_cast<std::size_t>(h)],
                                            m.beta_effective(), m.entries(h), m.split_rho(h))
                   : std::vector<double>{});
  }
  if (m.plain()) return output;
  // The read path (MODEL.md section 10): stage 1 as well, and a needle in the window.
  const auto heads = static_cast<std::size_t>(m.heads());
  output.phase_selected.assign(heads, {});
  output.window_success.assign(heads, {});
  output.window_selected.assign(heads, {});
  for (int h = 0; h < m.heads(); ++h) {
    const auto i = static_cast<std::size_t>(h);
    if (m.plain(h)) {  // every entry read: stage 1 passes, and the head has no window
      output.phase_selected[i].assign(output.phase_success[i].size(), 1.0);
      output.window_success[i] = output.phase_success[i];
      output.window_selected[i] = output.phase_selected[i];
      continue;
    }
    read_path_success(m, h, output);
  }
  return output;
}

std::unique_ptr<Engine> make_analytic_engine() { return std::make_unique<AnalyticEngine>(); }

}  // namespace phasesim::engines
