#include "phasesim/stats/counts.hpp"

namespace phasesim::stats {

std::vector<GroupCount> pool_by_residue(const std::vector<GroupCount>& groups, int period) {
  std::vector<GroupCount> pooled(static_cast<std::size_t>(period));
  for (int r = 0; r < period; ++r) pooled[static_cast<std::size_t>(r)].group = r;
  for (const auto& g : groups) {
    auto& residue = pooled[static_cast<std::size_t>(g.group % period)];
    residue.successes += g.successes;
    residue.trials += g.trials;
  }
  return pooled;
}

}  // namespace phasesim::stats
