#pragma once
// The model's heads as full_vector.hpp takes them, shared by the full and gpu engines (its
// own header so that the CUDA launcher does not include Eigen through full_engine.hpp).
#include <vector>

#include "phasesim/engines/full_vector.hpp"
#include "phasesim/engines/full_vector_read.hpp"
#include "phasesim/niah/run.hpp"

namespace phasesim::engines {

/// One FullVectorHead per head of a full-vector model, with the arrays of per-channel gates
/// its heads point into (moving it keeps them valid; gates point into model.gates).
struct FullVectorHeads {
  std::vector<FullVectorHead> heads;
  std::vector<std::vector<double>> group_gates;  ///< per head: groups x W weights
  std::vector<std::vector<int>> group_ends;      ///< per head: each group's end channel
  /// Per head: its read path (MODEL.md section 10), whose indexer points into the two below.
  std::vector<FullVectorRead> reads;
  std::vector<std::vector<double>> index_group_gates;
  std::vector<std::vector<int>> index_group_ends;

  /// What a workspace for these heads holds (full_vector.hpp): weights per channel when some
  /// head has channel groups, older keys when some head splits its projections.
  ScanNeeds needs() const;
  /// What a workspace for their indexers holds (per-channel index gates).
  ScanNeeds index_needs() const;
  /// True when some head reads beyond section 4.
  bool reads_beyond() const;
};

FullVectorHeads full_vector_heads(const niah::NiahModel& model);

}  // namespace phasesim::engines
