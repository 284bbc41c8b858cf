#pragma once
// The full engine: the full-vector model materialized (keys, pooled entries, argmax over all
// N_c entries), through the per-trial functions the CUDA kernel shares (full_vector.hpp).
#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "full_vector_heads.hpp"

namespace phasesim::engines {

class FullEngine {
 public:
  /// The model must be full-vector (dim > 0).
  explicit FullEngine(const NiahModel& model);
  FullEngine(const FullEngine&) = delete;  // heads_ point into model_
  FullEngine& operator=(const FullEngine&) = delete;

  /// Per-thread scratch: the ring buffer of the last W keys and a few d-vectors, O(W d).
  struct Workspace {
    Eigen::VectorXd memory;
  };
  Workspace workspace() const;

  Argmax argmax(std::uint32_t trial, std::int64_t needle, int head, Workspace& ws) const;

 private:
  NiahModel model_;
  std::vector<FullVectorHead> heads_;  ///< point into model_.gates
};

}  // namespace phasesim::engines
