// The streaming-entries path: the standardized channel with content noise, O(N_c W) a trial
// (sim/ENGINES.md).
#include "phasesim/engines/full_vector.hpp"
#include "sampler.hpp"
#include "streaming.hpp"

namespace phasesim::engines::fast {

// Standardized channel with content noise: independent entries, each with its own gate from
// its own xi and its own N(0, 1) token projections (beta for the needle's token; at an older
// slot of split projections rho beta + sqrt(1 - rho^2) b).
bool sample_streaming_entries(const Sampler& s, const Head& h, const Trial& t, Workspace& ws) {
  const auto& g = h.geometry;
  RowNormals token(s.stream(t, Stream::token), g.window, ws.draws);
  RowNormals content(s.stream(t, Stream::content_noise), g.window, ws.more_draws);
  niah::Argmax best;
  for (std::int64_t j = 0; j < h.entries; ++j) {
    const float* tokens = token(j);
    const float* xi = content(j);
    for (int slot = 0; slot < g.window; ++slot) {
      ws.token[slot] = tokens[slot];
      ws.xi[slot] = xi[slot];
    }
    if (g.holds(j, t.needle)) {
      const auto slot = static_cast<int>(t.needle - g.position(j, 0));
      ws.token[slot] = slot < h.older_slots
                           ? h.split_rho * h.beta + h.split_rest * s.split_normal(t, slot)
                           : h.beta;
    }
    entry_gate(h.weights.data(), g.window, 0, h.tau, ws.xi.data(), ws.gate.data());
    double logit = 0;
    for (int slot : h.support) logit += ws.gate[slot] * ws.token[slot];
    best.offer(j, logit);
  }
  return g.holds(best.entry, t.needle);
}

}  // namespace phasesim::engines::fast
