#pragma once
// How a gate spreads its weight over phases (MODEL.md section 3).
#include <vector>

#include "phasesim/model/gate.hpp"
#include "phasesim/model/geometry.hpp"

namespace phasesim {

struct PhaseCoverage {
  int phase = 0;
  std::vector<int> slots;      ///< Slots(phi)
  int multiplicity = 0;        ///< m_phi = |Slots(phi)|
  double coverage = 0;         ///< c_phi = sum of g_s over Slots(phi)
  int best_slot = -1;          ///< slot of phi with the largest weight (-1 if blind)
  double best_weight = 0;      ///< g of that slot
  double best_normalized = 0;  ///< u of that slot, g_s / ||g||_2
};

/// Coverage of every phase 0..S-1 by one gate; the coverages sum to 1.
std::vector<PhaseCoverage> phase_coverage(const Geometry& geometry, const Gate& gate);

}  // namespace phasesim
