#pragma once
// The model's heads as full_vector.hpp takes them, shared by the full and gpu engines (its
// own header so that the CUDA launcher does not include Eigen through full_engine.hpp).
#include <vector>

#include "phasesim/engines/full_vector.hpp"
#include "phasesim/niah/run.hpp"

namespace phasesim::engines {

/// One FullVectorHead per head of a full-vector model, gates pointing into model.gates.
std::vector<FullVectorHead> full_vector_heads(const niah::NiahModel& model);

}  // namespace phasesim::engines
