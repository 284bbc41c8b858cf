#include "phasesim/model/geometry.hpp"

#include <string>

#include "phasesim/core/error.hpp"

namespace phasesim {

void Geometry::validate() const {
  require_at_least(window, 1, "--window");
  require_at_least(stride, 1, "--stride");
  require(offset >= 0 && offset < stride, "invalid --offset " + std::to_string(offset) +
                                              " (must be in [0, " + std::to_string(stride) +
                                              "), below the stride)");
}

std::vector<int> Geometry::slots_of_phase(int phase) const {
  // Slot s has phase (s + S - W + o) mod S: a phase's slots step by S from its first, so every
  // phase of a head costs O(W / S), not O(W) (MoBA's W = S = 4096 planned 4096 phases a cache).
  std::vector<int> slots;
  if (phase < 0 || phase >= stride) return slots;
  const int first = ((phase - stride + window - offset) % stride + stride) % stride;
  for (int s = first; s < window; s += stride) slots.push_back(s);
  return slots;
}

}  // namespace phasesim
