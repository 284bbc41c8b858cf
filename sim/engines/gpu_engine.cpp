// The gpu engine: the full engine's scan as a CUDA kernel (gpu_engine.cu), draw for draw.
// This host side is built with or without CUDA; without it, check() says why it cannot run.
#include "gpu_engine.hpp"

#include "monte_carlo.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/engines/engine.hpp"
#include "phasesim/engines/gpu.hpp"

namespace phasesim::engines {
namespace {

class GpuEngine final : public Engine {
 public:
  std::string name() const override { return "gpu"; }
  bool monte_carlo() const override { return true; }
  void check(const niah::NiahModel& model) const override {
    const auto reason = gpu_unavailable_reason();
    require(reason.empty(), "invalid --engine gpu: " + reason);
    require_full_vector(model, name());
  }
  std::string approximation(const niah::NiahModel&) const override { return ""; }
  std::vector<std::string> paths(const niah::NiahModel& model) const override {
    return std::vector<std::string>(static_cast<std::size_t>(model.heads()), "full-vector");
  }

 protected:
  // The device does the parallel work; the CPU policy has nothing to split.
  niah::EngineOutput run(const niah::NiahRun& run, const Parallel&) const override {
    auto argmaxes = spread_alike(run.model, gpu_argmaxes(run.model, run.needles));
    auto outcomes = outcomes_of(run, argmaxes);
    return {{}, std::move(outcomes), std::move(argmaxes)};
  }
};

}  // namespace

std::unique_ptr<Engine> make_gpu_engine() { return std::make_unique<GpuEngine>(); }

}  // namespace phasesim::engines
