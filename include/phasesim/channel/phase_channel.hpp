#pragma once
// Per-phase success of one head in the standardized channel (MODEL.md section 4).
#include <cstdint>
#include <vector>

#include "phasesim/model/gate.hpp"
#include "phasesim/model/geometry.hpp"

namespace phasesim::channel {

/// P_h(phi) for phi = 0..S-1: a needle of phase phi is held by the m_phi slots of that
/// phase, each with its slot law (u_s, sd_s: gate.hpp, slot_laws), among `entries` entries in
/// all. A structurally blind phase (m_phi = 0) has probability 0. `split_rho` below 1: the
/// older slots read a split projection (gate.hpp, slot_laws).
std::vector<double> phase_success(const Geometry& geometry, const Gate& gate, double beta,
                                  std::int64_t entries, double split_rho = 1);

}  // namespace phasesim::channel
