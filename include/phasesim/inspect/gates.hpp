#pragma once
// From a checkpoint's compressor tensors to the model's terms (MODEL.md sections 3 and 9,
// docs/INSPECT.md): the per-channel gate the position bias gives, its phase coverage, the
// content noise its gate projection implies, and the sink logits' range.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "phasesim/checkpoint/compressor.hpp"
#include "phasesim/core/document.hpp"
#include "phasesim/model/coverage.hpp"
#include "phasesim/model/gate.hpp"
#include "phasesim/model/geometry.hpp"

namespace phasesim::inspect {

/// The content term of a gate: channel c's logit gets (W x)_c from the token x, whose
/// coordinates have unit variance (an RMS-normalized hidden state; docs/INSPECT.md), so its
/// spread is tau_c = ||W_c|| = sqrt(hidden * mean of W_c's squares), each row's mean estimated
/// from its first columns_read columns.
struct ContentSpread {
  std::string tensor;
  double rms = 0;  ///< sqrt of the mean of tau_c^2 over the projection's rows
  double min = 0;
  double max = 0;
  std::int64_t columns_read = 0;
  std::int64_t columns = 0;
};

/// A compressor's gate: its geometry, one channel group per channel (each the softmax of its
/// slots' logits, split projections as the layer has them), its coverage, and its content.
struct CompressorGate {
  std::string bias_tensor;  ///< empty: no position bias (every logit 0, a uniform gate)
  int channels = 0;
  Geometry geometry;
  Gate gate;
  std::vector<PhaseCoverage> phases;
  std::vector<int> covered;  ///< phases where some channel puts its largest weight
  std::vector<int> blind;    ///< the others
  /// sqrt of the mean over channels of the variance of its logits over the slots: how far the
  /// bias moves the gate, against the content's tau.
  double bias_spread = 0;
  std::optional<ContentSpread> content;  ///< unset without a gate projection (ratio 1)
};

/// The gate of a compressor of `plan`'s geometry. Channel c's logits are the bias's column c
/// over its m rows; with split projections (W = 2m) the older slots 0..m-1 read column c and
/// the newer slots m..2m-1 column channels + c (DeepSeek's overlap_transform). Each channel's
/// gate is parse_gate("logits:...") of its logits as text, so that an architecture file of
/// those specs gives the same numbers.
CompressorGate compressor_gate(const checkpoint::CompressorWeights& weights,
                               const checkpoint::LayerPlan& plan);

/// The sink logits of one layer: one per query head.
struct Sinks {
  std::string tensor;
  int heads = 0;
  double min = 0;
  double mean = 0;
  double max = 0;
};
Sinks sinks_of(const std::string& tensor, const std::vector<double>& logits);

/// {"bias_tensor", "channels", "window", "stride", "gate_weights" (the mean over channels),
/// "phases" (model/coverage.hpp), "covered_phases", "blind_phases", "bias_spread",
/// "content_noise"}.
Json compressor_gate_json(const CompressorGate& gate);
Json sinks_json(const Sinks& sinks);

}  // namespace phasesim::inspect
