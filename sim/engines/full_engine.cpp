#include "full_engine.hpp"

#include "phasesim/engines/engine.hpp"

namespace phasesim::engines {

std::vector<FullVectorHead> full_vector_heads(const NiahModel& model) {
  std::vector<FullVectorHead> heads;
  for (const auto& gate : model.gates) {
    heads.push_back({model.geometry, gate.weights.data(), model.entries(), *model.dim,
                     model.query_noise, model.content_noise, model.rms_norm});
  }
  return heads;
}

FullScanner::FullScanner(const NiahModel& model)
    : model_(model), heads_(full_vector_heads(model_)) {}

FullScanner::Workspace FullScanner::workspace() const {
  const auto size = FullVectorWorkspace::size(model_.geometry.window, *model_.dim);
  return {Eigen::VectorXd::Zero(static_cast<Eigen::Index>(size))};
}

HeadOutcome FullScanner::trial(std::uint32_t trial, std::int64_t needle, int head,
                               Workspace& ws) const {
  const auto scratch =
      FullVectorWorkspace::carve(ws.memory.data(), model_.geometry.window, *model_.dim);
  const Argmax best = full_vector_argmax(heads_[static_cast<std::size_t>(head)], model_.seed, trial,
                                         static_cast<std::uint32_t>(head), needle, scratch);
  return {entry_contains(model_.geometry, best.entry, needle), best};
}

namespace {

class FullEngine final : public Engine {
 public:
  std::string name() const override { return "full"; }
  bool monte_carlo() const override { return true; }
  void check(const NiahModel& model) const override { require_full_vector(model, name()); }
  std::string approximation(const NiahModel&) const override { return ""; }
  WorkEstimate estimate(const NiahRun& run) const override {
    // Every trial draws a d-vector key for each token of every entry (about 2 ns per
    // coordinate) and scores each entry once per head.
    const auto& m = run.model;
    const auto cells = static_cast<double>(m.entries()) * *m.dim * (m.geometry.window + m.heads());
    auto estimate = Engine::estimate(run);
    estimate.seconds += static_cast<double>(run.needles.trials()) * cells * 2e-9;
    return estimate;
  }
  std::vector<std::string> paths(const NiahModel& model) const override {
    return std::vector<std::string>(static_cast<std::size_t>(model.heads()), "full-vector");
  }
  EngineOutput run(const NiahRun& run, const Parallel& parallel) const override {
    return run_trials(FullScanner(run.model), run, parallel);
  }
};

}  // namespace

std::unique_ptr<Engine> make_full_engine() { return std::make_unique<FullEngine>(); }

}  // namespace phasesim::engines
