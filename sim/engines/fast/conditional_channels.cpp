// The conditional-channels path: `conditional` with channel groups (per-channel gates),
// O(d + G W) a trial (sim/ENGINES.md; theory/THEORY.md, "Per-channel gates").
#include "phasesim/engines/full_vector.hpp"
#include "sampler.hpp"

namespace phasesim::engines::fast {

// `conditional` with channel groups. Given q, a token's group-G projection is N(0, Q_G), every
// one independent, so an entry holding the needle at slot s is sum_G g_{G,s} A_G plus a normal
// of variance sum_G Q_G (||g_G||^2 - g_{G,s}^2), and any other entry a normal of variance
// sum_G Q_G ||g_{G,j}||^2: one for every interior entry, so their maximum is exact.
bool sample_conditional_channels(const Sampler& s, const Head& h, const Trial& t, Workspace& ws) {
  const auto& slots = h.needle_slots(t.needle);
  const auto m = static_cast<int>(slots.size());
  if (m == 0) return false;
  s.sample_groups(h, t, ws);
  const auto variance = [&](const std::vector<double>& norms2, int slot) {
    double sum = 0;
    for (std::size_t k = 0; k < h.groups.size(); ++k) {
      const double w = slot < 0 ? 0.0 : h.groups[k][static_cast<std::size_t>(slot)];
      const double q = ws.group_scale[static_cast<Eigen::Index>(k)];
      sum += q * q * std::max(0.0, norms2[k] - w * w);
    }
    return sum;
  };
  fill_normals(s.stream(t, Stream::channel), 0, m, 1.0, ws.normals.data());
  double best = kMinusInfinity;
  for (int i = 0; i < m; ++i) {
    const int slot = slots[static_cast<std::size_t>(i)];
    double mean = 0, older = 0;  // older: the variance of the older key's own part, given q
    for (std::size_t k = 0; k < h.groups.size(); ++k) {
      const double w = h.groups[k][static_cast<std::size_t>(slot)];
      const double q = ws.group_scale[static_cast<Eigen::Index>(k)];
      mean += w * ws.group_needle[static_cast<Eigen::Index>(k)];
      older += w * w * q * q;
    }
    if (slot < h.older_slots) {
      mean = h.split_rho * mean + h.split_rest * std::sqrt(older) * s.split_normal(t, i);
    }
    best = std::max(best, mean + std::sqrt(variance(h.group_norms2, slot)) * ws.normals[i]);
  }
  const auto boundary = static_cast<std::int64_t>(h.boundary_group_norms2.size());
  const double interior = std::sqrt(variance(h.group_norms2, -1));
  return best > distractor_max(s.stream(t, Stream::distractor), h.entries - boundary - m, interior,
                               boundary, [&](std::int64_t j) {
                                 const auto& norms2 =
                                     h.boundary_group_norms2[static_cast<std::size_t>(j)];
                                 return std::sqrt(variance(norms2, -1));
                               });
}

}  // namespace phasesim::engines::fast
