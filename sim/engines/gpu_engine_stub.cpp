// The gpu engine of a build without CUDA: it says so, and is never run.
#include <stdexcept>

#include "gpu_engine.hpp"
#include "phasesim/engines/gpu.hpp"

namespace phasesim::engines {

std::string gpu_unavailable_reason() {
  return "this build has no CUDA support (configure where nvcc is found, with "
         "-DPHASESIM_CUDA=AUTO or ON)";
}

std::string gpu_device_name() { throw std::logic_error("gpu_device_name: no CUDA support"); }

std::vector<niah::Argmax> gpu_argmaxes(const niah::NiahModel&, const niah::NeedlePlan&) {
  throw std::logic_error("gpu_argmaxes: no CUDA support");
}

}  // namespace phasesim::engines
