// The gpu engine: the full engine's scan as a CUDA kernel (gpu_engine.cu), draw for draw.
// This host side is built with or without CUDA; without it, check() says why it cannot run.
#include "gpu_engine.hpp"

#include "full_vector_heads.hpp"
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
    refuse_raw_blocks(model, name());
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
    std::vector<std::uint8_t> stage_one;
    auto argmaxes = spread_alike(run.model, gpu_argmaxes(run.model, run.needles, &stage_one));
    if (run.model.plain()) {
      auto outcomes = outcomes_of(run, argmaxes);
      return {{}, std::move(outcomes), std::move(argmaxes)};
    }
    // The read path (MODEL.md section 10): the winner's index says what was read.
    const auto list = full_vector_heads(run.model);
    const auto selected_rows = spread_alike(run.model, stage_one);
    const int heads = run.model.heads();
    niah::OutcomeTable outcomes(run.needles.trials(), heads), selected(run.needles.trials(), heads);
    for (std::int64_t i = 0; i < run.needles.trials(); ++i) {
      const auto needle = run.needles.position(run.model.seed, static_cast<std::uint32_t>(i));
      for (int h = 0; h < heads; ++h) {
        const auto k = static_cast<std::size_t>(i * heads + h);
        const auto& read = list.reads[static_cast<std::size_t>(h)];
        const auto& head = list.heads[static_cast<std::size_t>(h)];
        const auto winner = argmaxes[k].entry;
        outcomes.set(i, h,
                     read.on ? reads_needle(head, read, needle, winner)
                             : head.geometry.holds(winner, needle));
        selected.set(i, h, !read.on || selected_rows[k] != 0);
      }
    }
    return {{}, std::move(outcomes), std::move(argmaxes), {}, std::move(selected)};
  }
};

}  // namespace

std::unique_ptr<Engine> make_gpu_engine() { return std::make_unique<GpuEngine>(); }

}  // namespace phasesim::engines
