// The fast engine: exact Monte Carlo of the niah model without key vectors, one sampling path
// per head (fast/select.cpp picks it; fast/ holds one file per path).
#include <algorithm>

#include "fast/sampler.hpp"
#include "monte_carlo.hpp"
#include "phasesim/engines/engine.hpp"

namespace phasesim::engines {
namespace {

// What a streaming path costs per entry and slot of a trial, measured on one core of an AMD
// EPYC (AVX-512): 4.7 ns on streaming-tokens (BM_FastStreaming), 19 ns on streaming-rms
// (BM_FastStreamingRms, d = 64 and 512 alike).
double seconds_per_slot(fast::Path path) {
  switch (path) {
    case fast::Path::streaming_entries:
    case fast::Path::streaming_tokens:
    case fast::Path::streaming_channels:  // per group: the estimate multiplies
      return 5e-9;
    case fast::Path::streaming_rms:
      return 2e-8;
    default:
      return 0;
  }
}

class FastEngine final : public Engine {
 public:
  std::string name() const override { return "fast"; }
  bool monte_carlo() const override { return true; }
  void check(const niah::NiahModel& model) const override {
    for (int h = 0; h < model.heads(); ++h) fast::path_for(model, h);
  }
  std::string approximation(const niah::NiahModel&) const override { return ""; }
  WorkEstimate estimate(const niah::NiahRun& run) const override {
    // The streaming paths visit every entry of every trial; the others cost O(W) per trial,
    // the base estimate.
    auto estimate = Engine::estimate(run);
    const auto trials = static_cast<double>(run.needles.trials());
    for (int h = 0; h < run.model.heads(); ++h) {
      const auto& gate = run.model.gates[static_cast<std::size_t>(h)];
      const auto groups = static_cast<double>(std::max<std::size_t>(1, gate.channels.size()));
      const auto slots = static_cast<double>(run.model.entries(h)) * run.model.geometry(h).window;
      estimate.seconds += trials * slots * groups * seconds_per_slot(fast::path_for(run.model, h));
    }
    return estimate;
  }
  std::vector<std::string> paths(const niah::NiahModel& model) const override {
    std::vector<std::string> paths;
    for (int h = 0; h < model.heads(); ++h) {
      paths.push_back(fast::path_name(fast::path_for(model, h)));
    }
    return paths;
  }

 protected:
  niah::EngineOutput run(const niah::NiahRun& run, const Parallel& parallel) const override {
    return run_trials(fast::Sampler(run.model), run, parallel);
  }
};

}  // namespace

std::unique_ptr<Engine> make_fast_engine() { return std::make_unique<FastEngine>(); }

}  // namespace phasesim::engines
