// The channel path: the standardized channel, O(W) a trial (sim/ENGINES.md).
#include "phasesim/core/extremes.hpp"
#include "phasesim/engines/full_vector.hpp"
#include "sampler.hpp"

namespace phasesim::engines::fast {

// Standardized channel: X_s = beta u_s + sd_s Z_s (sd_s = sqrt(1 - u_s^2) for one gate;
// slot_laws for channel groups) for the m entries holding the needle, against the exact maximum
// of the N_c - m independent N(0, 1) distractors.
bool sample_channel(const Sampler& s, const Head& h, const Trial& t, Workspace& ws) {
  const auto& slots = h.needle_slots(t.needle);
  const auto m = static_cast<int>(slots.size());
  if (m == 0) return false;
  PHASESIM_ASSERT(m <= ws.normals.size());  // at most W entries hold a position
  fill_normals(s.stream(t, Stream::channel), 0, m, 1.0, ws.normals.data());
  double best = kMinusInfinity;
  for (int i = 0; i < m; ++i) {
    const int slot = slots[static_cast<std::size_t>(i)];
    const auto& law = h.laws[static_cast<std::size_t>(slot)];
    double u = law.u, sd = law.sd;
    if (h.tau > 0) {  // one gate (path_for refuses channel groups here)
      const double* w = s.content_gate(h, t, h.needle_entry(t.needle, slot), ws);
      u = w[slot] / norm_of(w, h.geometry.window);
      sd = std::sqrt((1 - u) * (1 + u));
      if (slot < h.older_slots) {
        const auto split = split_law({u, sd}, h.split_rho);
        u = split.u;
        sd = split.sd;
      }
    }
    best = std::max(best, h.beta * u + sd * ws.normals[i]);
  }
  const double distractors =
      max_of_normals(h.entries - m, s.stream(t, Stream::distractor).uniform_pair(0, 0).x);
  return best > distractors;
}

}  // namespace phasesim::engines::fast
