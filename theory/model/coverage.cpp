#include "phasesim/model/coverage.hpp"

#include <cmath>

namespace phasesim {

std::vector<PhaseCoverage> phase_coverage(const Geometry& geometry, const Gate& gate) {
  const auto u = normalized_weights(gate);
  std::vector<PhaseCoverage> phases;
  for (int phi = 0; phi < geometry.stride; ++phi) {
    PhaseCoverage row;
    row.phase = phi;
    row.slots = geometry.slots_of_phase(phi);
    row.multiplicity = static_cast<int>(row.slots.size());
    for (int s : row.slots) {
      const auto i = static_cast<std::size_t>(s);
      row.coverage += gate.weights[i];
      if (row.best_slot < 0 || gate.weights[i] > row.best_weight) {
        row.best_slot = s;
        row.best_weight = gate.weights[i];
        row.best_normalized = u[i];
      }
    }
    phases.push_back(std::move(row));
  }
  return phases;
}

}  // namespace phasesim
