#pragma once
// One head's read of a needle of n tokens at each phase, through the read path's two stages
// (MODEL.md section 10): where the needle sits (model/needle_laws.hpp), its places' laws and
// ties, and the variants of stage 2 (far from the query, and inside the sliding window). The
// analytic engine and diagnose's fit of 2-token needles both read a phase through this one
// function, so that a fitted accuracy is the engine's at the fitted parameters.
#include <cstdint>
#include <optional>
#include <vector>

#include "phasesim/channel/read_path.hpp"
#include "phasesim/model/gate.hpp"
#include "phasesim/model/geometry.hpp"
#include "phasesim/model/needle_laws.hpp"

namespace phasesim::channel {

/// How a head reads its cache, resolved: every field at its value.
struct HeadRead {
  std::int64_t entries = 0;  ///< visible entries (complete before the query)
  std::int64_t top_k = 0;    ///< stage 1 keeps k (entries: every one)
  std::int64_t sliding_window = 0;
  std::optional<double> sink;
  bool raw_blocks = false;  ///< stage 2 reads the W raw tokens of a kept entry (one token)
  double split_rho = 1;     ///< NiahModel::split_rhos
  double beta = 0;          ///< the attention's signal strength
  double index_beta = 0;    ///< the selection score's
};

/// What two_stage_variants integrates for a needle of one phase.
struct NeedleStages {
  std::vector<TwoStagePlace> places;
  TwoStageRest rest;
  std::vector<StageTwoVariant> variants;  ///< far from the query; then inside the window
};

/// A needle position of phase phi in the head's interior (where its entries are all complete).
std::int64_t position_of_phase(const Geometry& geometry, int phi);

/// A gate and its laws (gate_laws: O(W)), computed once for every phase a head reads.
struct PooledGate {
  const Gate& gate;
  const GateLaws& laws;
};

/// The stages of a needle of `tokens` tokens (1 or 2) at phase phi, read by `gate` and
/// selected by `index_gate`.
NeedleStages needle_stages(const Geometry& geometry, PooledGate gate, PooledGate index_gate,
                           const HeadRead& read, int phi, int tokens);

/// The same, the gates' laws computed here.
NeedleStages needle_stages(const Geometry& geometry, const Gate& gate, const Gate& index_gate,
                           const HeadRead& read, int phi, int tokens);

/// two_stage_variants of needle_stages: [far, window] (one value without a window).
std::vector<TwoStageValue> needle_read_values(const NeedleStages& stages,
                                              ReadAccuracy accuracy = ReadAccuracy::exact);

}  // namespace phasesim::channel
