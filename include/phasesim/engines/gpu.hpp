#pragma once
// Whether the gpu engine can run here, and on what (sim/engines/gpu_engine.cu; a build
// without CUDA compiles gpu_engine_stub.cpp instead).
#include <string>

namespace phasesim::engines {

/// Empty when the gpu engine can run here; otherwise why not, as one clause: "this build has
/// no CUDA support (...)" or "no CUDA device was found (...)".
std::string gpu_unavailable_reason();

/// The device the gpu engine runs on, e.g. "NVIDIA H200 (sm_90, 132 SMs, 139 GiB)". Call
/// only when gpu_unavailable_reason() is empty.
std::string gpu_device_name();

}  // namespace phasesim::engines
