#pragma once
// A per-group table of counts (MODEL.md section 5): successes out of trials for each group
// r = needle position mod G. What the period test, the per-phase profile and the fits read,
// whether the table came from a user's file (diagnose) or from a run (training, niah).
#include <cstdint>
#include <vector>

namespace phasesim::stats {

struct GroupCount {
  int group = 0;
  std::int64_t successes = 0;
  std::int64_t trials = 0;

  double accuracy() const { return static_cast<double>(successes) / static_cast<double>(trials); }
};

/// The counts pooled by residue mod `period`: entry r sums groups r, r + period, r + 2 period,
/// ... and has group = r.
std::vector<GroupCount> pool_by_residue(const std::vector<GroupCount>& groups, int period);

}  // namespace phasesim::stats
