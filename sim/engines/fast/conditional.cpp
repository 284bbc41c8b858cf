// The conditional path: the full-vector model without a shared weighted token, O(d + W) a trial
// (sim/ENGINES.md).
#include "phasesim/engines/full_vector.hpp"
#include "sampler.hpp"

namespace phasesim::engines::fast {

// Full-vector model, no weighted token shared by two entries, fixed gates. Given q, in units
// of ||q|| / sqrt(d), every token but the needle projects to an independent N(0, 1), so an
// entry is g_s a_p + ||rest of g|| Z if it holds the needle at slot s and ||g_j|| Z if not:
// the needle entries and the few boundary entries one by one, the interior max exactly.
bool sample_conditional(const Sampler& s, const Head& h, const Trial& t, Workspace& ws) {
  const auto& slots = h.needle_slots(t.needle);
  const auto m = static_cast<int>(slots.size());
  if (m == 0) return false;
  const double a_p = s.sample_query(t, ws).needle;
  fill_normals(s.stream(t, Stream::channel), 0, m, 1.0, ws.normals.data());
  double best = kMinusInfinity;
  for (int i = 0; i < m; ++i) {
    const int slot = slots[static_cast<std::size_t>(i)];
    const double g_s = h.weights[static_cast<std::size_t>(slot)];
    const double rest = std::sqrt(std::max(0.0, (h.norm - g_s) * (h.norm + g_s)));
    const double a =
        slot < h.older_slots ? h.split_rho * a_p + h.split_rest * s.split_normal(t, i) : a_p;
    best = std::max(best, g_s * a + rest * ws.normals[i]);
  }
  const auto boundary = static_cast<std::int64_t>(h.boundary_norms.size());
  return best > distractor_max(
                    s.stream(t, Stream::distractor), h.entries - boundary - m, h.norm, boundary,
                    [&](std::int64_t j) { return h.boundary_norms[static_cast<std::size_t>(j)]; });
}

}  // namespace phasesim::engines::fast
