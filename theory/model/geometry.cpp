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
  std::vector<int> slots;
  for (int s = 0; s < window; ++s) {
    if (phase_of_slot(s) == phase) slots.push_back(s);
  }
  return slots;
}

}  // namespace phasesim
