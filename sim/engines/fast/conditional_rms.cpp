// The conditional-rms path: the full-vector model with --rms-norm and no shared weighted token,
// O(d m + W) a trial (sim/ENGINES.md).
#include "phasesim/core/extremes.hpp"
#include "phasesim/engines/full_vector.hpp"
#include "sampler.hpp"

namespace phasesim::engines::fast {

// As `conditional`, with every entry RMS-normalized: a distractor is an isotropic Gaussian
// vector independent of q, so its normalized logit is ||q|| times the cosine to a uniform
// direction (exact max over the non-empty ones); a needle entry c k_p + rho R is built in d
// dimensions. Entries that pool nothing score 0.
bool sample_conditional_rms(const Sampler& s, const Head& h, const Trial& t, Workspace& ws) {
  const auto& slots = h.needle_slots(t.needle);
  const auto m = static_cast<int>(slots.size());
  if (m == 0) return false;
  const int dim = s.dim();
  const double q_norm = s.sample_query(t, ws).norm;
  const auto channel_stream = s.stream(t, Stream::channel);
  const double scale = 1 / std::sqrt(static_cast<double>(dim));
  double best = kMinusInfinity;
  for (int i = 0; i < m; ++i) {
    const int slot = slots[static_cast<std::size_t>(i)];
    const double* w = s.content_gate(h, t, h.needle_entry(t.needle, slot), ws);
    const double norm = h.tau == 0 ? h.norm : norm_of(w, h.geometry.window);
    const double rho = std::sqrt(std::max(0.0, (norm - w[slot]) * (norm + w[slot])));
    fill_normals(channel_stream, static_cast<std::uint32_t>(1 + i), dim, scale, ws.entry.data());
    if (slot < h.older_slots) {  // the needle's older key rho k_p + sqrt(1 - rho^2) k''_p
      generate_key(s.stream(t, Stream::split_key), t.needle, dim, ws.older_key.data());
      ws.entry = w[slot] * (h.split_rho * ws.key + h.split_rest * ws.older_key) + rho * ws.entry;
    } else {
      ws.entry = w[slot] * ws.key + rho * ws.entry;
    }
    const double length = ws.entry.norm();
    best = std::max(best, length > 0 ? ws.query.dot(ws.entry) / length : 0.0);
  }
  const double u = s.stream(t, Stream::distractor).uniform_pair(0, 0).x;
  double top = q_norm * max_of_cosines(h.entries - h.empty_boundary - m, u, dim);
  if (h.empty_boundary > 0) top = std::max(top, 0.0);
  return best > top;
}

}  // namespace phasesim::engines::fast
