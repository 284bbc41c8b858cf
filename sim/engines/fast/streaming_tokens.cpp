// The streaming-tokens path: the full-vector model with shared tokens or content noise, without
// --rms-norm, O(N_c W) a trial (sim/ENGINES.md).
#include "phasesim/engines/full_vector.hpp"
#include "sampler.hpp"
#include "streaming.hpp"

namespace phasesim::engines::fast {
namespace {

// Logit of entry j from the ring of token projections (and content noise) of its positions.
double ring_logit(const Head& h, std::int64_t j, Workspace& ws) {
  const auto& g = h.geometry;
  const int W = g.window;
  const std::int64_t first = g.position(j, 0);
  const int first_slot = g.first_existing_slot(j);
  const double* w = h.weights.data();
  if (h.tau > 0 || first_slot > 0) {
    for (int s : h.support) ws.slot_xi[s] = s >= first_slot ? ws.xi[(first + s) % W] : 0.0;
    entry_gate(h.weights.data(), W, first_slot, h.tau, ws.slot_xi.data(), ws.gate.data());
    w = ws.gate.data();
  }
  double logit = 0;
  for (int s : h.support) {
    const auto& tokens = s < h.older_slots ? ws.older_token : ws.token;
    logit += s >= first_slot ? w[s] * tokens[(first + s) % W] : 0.0;
  }
  return logit;
}

}  // namespace

// Full-vector model, exact for any gate and content noise (no RMS norm): given q, each
// position's projection a_t (a_p for the needle, N(0, 1) otherwise), content noise and, with
// split projections, its older projection rho a_t + sqrt(1 - rho^2) b_t are
// drawn once, kept in a ring of the last W positions, and shared by the entries that hold
// it; the argmax of sum_s g_{j,s} a_{t(j,s)} over all N_c entries. No d factor.
bool sample_streaming_tokens(const Sampler& s, const Head& h, const Trial& t, Workspace& ws) {
  const auto& g = h.geometry;
  const int W = g.window;
  const double a_p = s.sample_query(t, ws).needle;
  const auto token = s.stream(t, Stream::token);
  PositionNormals projection(token, 0, ws.draws);
  PositionNormals xi(token, 1, ws.more_draws);
  PositionNormals older(token, 2, ws.split_draws);
  const auto draw = [&](std::int64_t p) {
    ws.token[p % W] = p == t.needle ? a_p : projection(p);
    if (h.tau > 0) ws.xi[p % W] = xi(p);
    if (h.older_slots > 0) {
      ws.older_token[p % W] = h.split_rho * ws.token[p % W] + h.split_rest * older(p);
    }
  };
  const auto best = stream_entries(g, h.weights.data(), h.entries, draw,
                                   [&](std::int64_t j) { return ring_logit(h, j, ws); });
  return g.holds(best.entry, t.needle);
}

}  // namespace phasesim::engines::fast
