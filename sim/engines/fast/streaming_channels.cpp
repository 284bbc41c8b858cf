// The streaming-channels path: `streaming_tokens` with channel groups (per-channel gates),
// O(N_c G W) a trial (sim/ENGINES.md).
#include "phasesim/engines/full_vector.hpp"
#include "sampler.hpp"
#include "streaming.hpp"

namespace phasesim::engines::fast {
namespace {

// Logit of entry j from the rings of per-group token projections: sum over groups of
// sum_s g_{G,j,s} a_{t(j,s),G}, each group's gate renormalized and moved by content noise as
// one gate's is (ring_logit).
double channels_logit(const Head& h, std::int64_t j, Workspace& ws) {
  const auto& g = h.geometry;
  const int W = g.window;
  const std::int64_t first = g.position(j, 0);
  const int first_slot = g.first_existing_slot(j);
  const bool moved = h.tau > 0 || first_slot > 0;
  if (moved) {
    for (int s : h.support) ws.slot_xi[s] = s >= first_slot ? ws.xi[(first + s) % W] : 0.0;
  }
  double logit = 0;
  for (std::size_t k = 0; k < h.groups.size(); ++k) {
    const double* w = h.groups[k].data();
    if (moved) {
      entry_gate(w, W, first_slot, h.tau, ws.slot_xi.data(), ws.gate.data());
      w = ws.gate.data();
    }
    const auto offset = static_cast<std::int64_t>(k) * W;
    const double* tokens = ws.group_tokens.data() + offset;
    const double* older = ws.group_older.data() + offset;
    for (int s : h.support) {
      if (s < first_slot) continue;  // before position 0: no token, and no ring row to read
      logit += w[s] * (s < h.older_slots ? older[(first + s) % W] : tokens[(first + s) % W]);
    }
  }
  return logit;
}

}  // namespace

// `streaming_tokens` with channel groups: given q, each position draws one projection per group
// (sqrt(Q_G) N(0, 1); A_G for the needle) and its content noise, kept in rings of the last W
// positions; the argmax of channels_logit over all N_c entries. O(G) normals a position.
bool sample_streaming_channels(const Sampler& s, const Head& h, const Trial& t, Workspace& ws) {
  const auto& g = h.geometry;
  const int W = g.window;
  const auto G = static_cast<int>(h.groups.size());
  PHASESIM_ASSERT(G * W <= ws.group_tokens.size());  // the rings of every group fit
  s.sample_groups(h, t, ws);
  PositionDraws draws(s.stream(t, Stream::token), h.draw_blocks, ws.draws);
  const auto draw = [&](std::int64_t p) {
    const auto row = draws.row(p);
    for (int k = 0; k < G; ++k) {
      const auto i = static_cast<std::size_t>(k * W + p % W);
      ws.group_tokens[i] = p == t.needle ? ws.group_needle[k] : ws.group_scale[k] * row[k];
      if (h.older_slots > 0) {
        ws.group_older[i] =
            h.split_rho * ws.group_tokens[i] + h.split_rest * ws.group_scale[k] * row[G + 1 + k];
      }
    }
    if (h.tau > 0) ws.xi[p % W] = row[G];
  };
  const auto best = stream_entries(g, h.weights.data(), h.entries, draw,
                                   [&](std::int64_t j) { return channels_logit(h, j, ws); });
  return g.holds(best.entry, t.needle);
}

}  // namespace phasesim::engines::fast
