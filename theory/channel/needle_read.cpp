#include "phasesim/channel/needle_read.hpp"

#include <algorithm>
#include <numbers>

#include "phasesim/model/needle_laws.hpp"

namespace phasesim::channel {
namespace {

// A 2-token needle's residuals in one channel group of share w: r_1 = -r_2 = R / sqrt(2 w), R ~
// N(0, 1) (model/needle_laws.hpp), so a place's logit moves by (c_1 - c_2) R / sqrt(2 w).
double tie_of(const NeedleLaws& laws, const NeedlePlace& place) {
  if (laws.tokens == 1) return 0;
  const auto c = laws.residual(place);
  return (c[0] - c[1]) * laws.group_scales.front() / std::numbers::sqrt2;
}

// Far from the query, and (with a window) inside it, where the needle's n tokens are read raw
// (u = 1 / sqrt(n) each, tied by the attention's factor) against the window's other tokens.
std::vector<StageTwoVariant> variants_of(const Geometry& geometry, PooledGate gate,
                                         const HeadRead& read, std::int64_t p, int n) {
  if (n == 1) return far_and_window_variants(read.beta, read.sliding_window);
  std::vector<StageTwoVariant> variants{{{}, read.sliding_window, {}}};
  if (read.sliding_window < n) return variants;
  const auto laws =
      needle_laws(geometry, gate.gate, gate.laws, read.split_rho, read.beta, p, n, 0, p);
  StageTwoVariant window{{}, read.sliding_window - n, {}};
  for (const auto& x : laws.places) {
    window.raw.push_back({x.mean, x.sd});
    window.raw_tie.push_back(tie_of(laws, x));
  }
  variants.push_back(window);
  return variants;
}

}  // namespace

std::int64_t position_of_phase(const Geometry& g, int phi) {
  const std::int64_t base = std::max(g.window, g.offset) + g.stride;
  return base + ((phi - base) % g.stride + g.stride) % g.stride;
}

NeedleStages needle_stages(const Geometry& geometry, PooledGate gate, PooledGate index_gate,
                           const HeadRead& read, int phi, int tokens) {
  const auto p = position_of_phase(geometry, phi);
  const auto laws = needle_laws(geometry, gate.gate, gate.laws, read.split_rho, read.beta, p,
                                tokens, read.entries, p + tokens);
  const auto index = needle_laws(geometry, index_gate.gate, index_gate.laws, 1.0, read.index_beta,
                                 p, tokens, read.entries, p + tokens);
  NeedleStages stages;
  for (std::size_t x = 0; x < laws.places.size(); ++x) {
    const auto& a = laws.places[x];
    const auto& i = index.places[x];
    // Raw blocks read the needle's own token of a kept entry, at u = 1 (one token: the engine
    // refuses raw blocks of longer needles).
    const NeedleEntry attention =
        read.raw_blocks ? NeedleEntry{read.beta, 0.0} : NeedleEntry{a.mean, a.sd};
    stages.places.push_back({attention,
                             {i.mean, i.sd},
                             false,
                             read.raw_blocks ? 0.0 : tie_of(laws, a),
                             tie_of(index, i)});
  }
  stages.rest.entries = read.entries - static_cast<std::int64_t>(stages.places.size());
  stages.rest.top_k = read.top_k;
  stages.rest.sink = read.sink;
  stages.rest.block_tokens = read.raw_blocks ? geometry.window : 0;
  stages.variants = variants_of(geometry, gate, read, p, tokens);
  return stages;
}

NeedleStages needle_stages(const Geometry& geometry, const Gate& gate, const Gate& index_gate,
                           const HeadRead& read, int phi, int tokens) {
  const auto laws = gate_laws(gate);
  const auto index_laws = gate_laws(index_gate);
  return needle_stages(geometry, {gate, laws}, {index_gate, index_laws}, read, phi, tokens);
}

std::vector<TwoStageValue> needle_read_values(const NeedleStages& stages, ReadAccuracy accuracy) {
  return two_stage_variants(stages.places, stages.rest, stages.variants, accuracy);
}

}  // namespace phasesim::channel
