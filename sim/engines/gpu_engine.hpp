#pragma once
// The gpu engine: the full-vector scan of full_vector.hpp in a CUDA kernel (gpu_engine.cu,
// compiled only when CMake finds CUDA; gpu_engine_stub.cpp stands in otherwise, and
// gpu_unavailable_reason() then says this build has no CUDA support).
#include <cstdint>
#include <vector>

#include "phasesim/engines/full_vector.hpp"
#include "phasesim/niah/run.hpp"

namespace phasesim::engines {

/// The argmax of every (trial, scanned head), at index trial * scanned + k for the k-th of
/// model.scanned_heads(), computed on device 0. The caller has checked
/// gpu_unavailable_reason(); a CUDA error throws std::runtime_error.
/// Where some head reads beyond section 4 (MODEL.md section 10), the argmax is the read's
/// winner (full_vector_read.hpp) and `selected`, when given, gets stage 1's outcome per item.
std::vector<niah::Argmax> gpu_argmaxes(const niah::NiahModel& model,
                                       const niah::NeedlePlan& needles,
                                       std::vector<std::uint8_t>* selected = nullptr);

}  // namespace phasesim::engines
