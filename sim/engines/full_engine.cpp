#include "full_engine.hpp"

namespace phasesim::engines {

FullEngine::FullEngine(const NiahModel& model) : model_(model) {
  for (const auto& gate : model_.gates) {
    heads_.push_back({model_.geometry, gate.weights.data(), model_.entries(), *model_.dim,
                      model_.query_noise, model_.content_noise, model_.rms_norm});
  }
}

FullEngine::Workspace FullEngine::workspace() const {
  const auto size = FullVectorWorkspace::size(model_.geometry.window, *model_.dim);
  return {Eigen::VectorXd::Zero(static_cast<Eigen::Index>(size))};
}

bool FullEngine::retrieves(std::uint32_t trial, std::int64_t needle, int head,
                           Workspace& ws) const {
  const auto scratch =
      FullVectorWorkspace::carve(ws.memory.data(), model_.geometry.window, *model_.dim);
  return full_vector_retrieves(heads_[static_cast<std::size_t>(head)], model_.seed, trial,
                               static_cast<std::uint32_t>(head), needle, scratch);
}

}  // namespace phasesim::engines
