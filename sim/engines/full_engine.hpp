#pragma once
// The full engine's kernel: the full-vector model materialized (keys, pooled entries, argmax
// over all N_c entries), through the per-trial functions the CUDA kernel shares
// (full_vector.hpp).
#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "full_vector_heads.hpp"
#include "monte_carlo.hpp"

namespace phasesim::engines {

class FullScanner {
 public:
  static constexpr bool kArgmaxes = true;

  /// The model must be full-vector (dim > 0).
  explicit FullScanner(const NiahModel& model);
  FullScanner(const FullScanner&) = delete;  // heads_ point into model_
  FullScanner& operator=(const FullScanner&) = delete;

  /// Per-thread scratch: the ring buffer of the last W keys (W the largest window of any
  /// head) and a few d-vectors, O(W d).
  struct Workspace {
    Eigen::VectorXd memory;
  };
  Workspace workspace() const;

  /// The entry `head` attends to in `trial` and whether it holds the needle.
  HeadOutcome trial(std::uint32_t trial, std::int64_t needle, int head, Workspace& ws) const;

 private:
  NiahModel model_;
  std::vector<FullVectorHead> heads_;  ///< point into model_.gates
};

}  // namespace phasesim::engines
