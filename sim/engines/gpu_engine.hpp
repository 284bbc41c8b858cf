#pragma once
// The gpu engine: the full-vector scan of full_vector.hpp in a CUDA kernel (gpu_engine.cu,
// compiled only when CMake finds CUDA; gpu_engine_stub.cpp stands in otherwise, and
// gpu_unavailable_reason() then says this build has no CUDA support).
#include <vector>

#include "phasesim/engines/full_vector.hpp"
#include "phasesim/niah/run.hpp"

namespace phasesim::engines {

/// The argmax of every (trial, scanned head), at index trial * scanned + k for the k-th of
/// model.scanned_heads(), computed on device 0. The caller has checked
/// gpu_unavailable_reason(); a CUDA error throws std::runtime_error.
std::vector<niah::Argmax> gpu_argmaxes(const niah::NiahModel& model,
                                       const niah::NeedlePlan& needles);

}  // namespace phasesim::engines
