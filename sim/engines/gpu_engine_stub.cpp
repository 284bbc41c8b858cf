// The gpu engine of a build without CUDA: it says so, and is never run.
#include "gpu_engine.hpp"
#include "phasesim/core/contract.hpp"
#include "phasesim/engines/gpu.hpp"

namespace phasesim::engines {

std::string gpu_unavailable_reason() {
  return "this build has no CUDA support (configure where nvcc is found, with "
         "-DPHASESIM_CUDA=AUTO or ON)";
}

// Called only where gpu_unavailable_reason() is empty, which it never is here.
std::string gpu_device_name() {
  PHASESIM_EXPECT(gpu_unavailable_reason().empty());
  return {};
}

std::vector<niah::Argmax> gpu_argmaxes(const niah::NiahModel&, const niah::NeedlePlan&,
                                       std::vector<std::uint8_t>*) {
  PHASESIM_EXPECT(gpu_unavailable_reason().empty());
  return {};
}

}  // namespace phasesim::engines
