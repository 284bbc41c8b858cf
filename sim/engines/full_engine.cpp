#include "full_engine.hpp"

namespace phasesim::engines {

std::vector<FullVectorHead> full_vector_heads(const NiahModel& model) {
  std::vector<FullVectorHead> heads;
  for (const auto& gate : model.gates) {
    heads.push_back({model.geometry, gate.weights.data(), model.entries(), *model.dim,
                     model.query_noise, model.content_noise, model.rms_norm});
  }
  return heads;
}

FullEngine::FullEngine(const NiahModel& model) : model_(model), heads_(full_vector_heads(model_)) {}

FullEngine::Workspace FullEngine::workspace() const {
  const auto size = FullVectorWorkspace::size(model_.geometry.window, *model_.dim);
  return {Eigen::VectorXd::Zero(static_cast<Eigen::Index>(size))};
}

Argmax FullEngine::argmax(std::uint32_t trial, std::int64_t needle, int head, Workspace& ws) const {
  const auto scratch =
      FullVectorWorkspace::carve(ws.memory.data(), model_.geometry.window, *model_.dim);
  return full_vector_argmax(heads_[static_cast<std::size_t>(head)], model_.seed, trial,
                            static_cast<std::uint32_t>(head), needle, scratch);
}

}  // namespace phasesim::engines
