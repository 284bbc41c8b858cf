#include "phasesim/model/geometry.hpp"

#include <string>

#include "phasesim/core/error.hpp"

namespace phasesim {

void Geometry::validate() const {
  require(window >= 1, "invalid --window " + std::to_string(window) + " (must be at least 1)");
  require(stride >= 1, "invalid --stride " + std::to_string(stride) + " (must be at least 1)");
  require(offset >= 0 && offset < stride, "invalid offset " + std::to_string(offset) +
                                              " (must be in [0, " + std::to_string(stride) +
                                              "), below the stride)");
}

std::vector<int> Geometry::slots_of_phase(int phase) const {
  std::vector<int> slots;
  for (int s = 0; s < window; ++s) {
    if (phase_of_slot(s) == phase) slots.push_back(s);
  }
  return slots;
}

std::vector<EntrySlot> entries_containing(const Geometry& geometry, std::int64_t t,
                                          std::int64_t entry_count) {
  std::vector<EntrySlot> found;
  const auto& g = geometry;
  for (int s = 0; s < g.window; ++s) {
    // t = j*S + S - W + s + o  =>  j = (t - S + W - s - o) / S when that division is exact.
    const std::int64_t shift = t - g.stride + g.window - s - g.offset;
    if (shift < 0 || shift % g.stride != 0) continue;
    const std::int64_t j = shift / g.stride;
    if (j < entry_count) found.push_back({j, s});
  }
  return found;
}

}  // namespace phasesim
