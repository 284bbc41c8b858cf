#pragma once
// The fast engine's sampler: exact Monte Carlo of the niah model without materializing key
// vectors. Each head gets the cheapest path that is exact for its gate and the model's options
// (select.cpp); each path is one file of this folder, and sim/ENGINES.md derives every path and
// says where it is exact. This header is what the paths share: a head's plan, the per-thread
// scratch, and the sampler's streams and per-trial draws.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "../monte_carlo.hpp"
#include "phasesim/core/chi_square.hpp"
#include "phasesim/core/contract.hpp"
#include "phasesim/core/extremes.hpp"
#include "phasesim/core/random.hpp"
#include "phasesim/engines/pooled_frame.hpp"
#include "phasesim/model/needle_laws.hpp"
#include "phasesim/niah/run.hpp"
#include "two_stage.hpp"

namespace phasesim::engines::fast {

enum class Path {
  channel,            ///< standardized: needle entries and the exact distractor max, O(W)
  streaming_entries,  ///< standardized with content noise: every entry's own gate, O(N_c W)
  conditional,        ///< full-vector, no shared weighted token: Gaussians given q, O(d + W)
  conditional_rms,    ///< the same with RMS-normalized entries: max of cosines, O(d m + W)
  streaming_tokens,   ///< full-vector, shared tokens or content noise: scalar logits, O(N_c W)
  streaming_rms,      ///< full-vector, shared tokens, RMS-normalized: a small frame, O(L (W/S + S))
  conditional_channels,  ///< conditional with channel groups: Gaussians per group, O(d + G W)
  streaming_channels,    ///< streaming_tokens with channel groups: G projections, O(N_c G W)
  two_stage,  ///< the read path (MODEL.md 10), standardized: places and order statistics, O(W + n)
  two_stage_conditional,  ///< the read path, full-vector, no shared tokens: O(n d + N + W)
};

/// A gate as channel groups (one group for one gate): each group's weights and its channels'
/// end at d, ||g_G||^2, and the renormalized weights of the boundary entries (whose first
/// slots lie before position 0), [entry][group].
struct GroupedGate {
  std::vector<std::vector<double>> groups;
  std::vector<int> ends;
  std::vector<double> norms2;
  std::vector<std::vector<std::vector<double>>> boundary;

  const std::vector<std::vector<double>>& weights_of(std::int64_t j) const {
    return j < static_cast<std::int64_t>(boundary.size()) ? boundary[static_cast<std::size_t>(j)]
                                                          : groups;
  }
};

/// The grouped gate of a head of `geometry` with `entries` entries, channels at d = `dim`.
GroupedGate grouped_gate(const Gate& gate, const Geometry& geometry, std::int64_t entries, int dim);

/// The path for one head. Throws InputError naming `full` for the models fast has no exact
/// path for: per-channel gates with --rms-norm (RMS norm of a pooled entry whose channels have
/// unequal variances), or with content noise in the standardized channel (whose model has no
/// channels); and split projections with --rms-norm and shared tokens.
Path path_for(const niah::NiahModel& model, int head);
std::string path_name(Path path);

/// What one head's path needs, planned once per run.
struct Head {
  Path path;
  Geometry geometry;
  std::int64_t entries = 0;                   ///< N_c of this head
  std::vector<std::vector<int>> phase_slots;  ///< Slots(phi) for phi = 0..S-1
  std::vector<double> weights;                ///< g
  std::vector<int> support;                   ///< slots with g_s > 0
  double norm = 0;                            ///< ||g||
  double tau = 0;                             ///< content noise; 0 when it cannot move the gate
  double beta = 0;                            ///< its beta (NiahModel::head_beta)
  double query_noise = 0;                     ///< its sigma_q (NiahModel::head_query_noise)
  std::vector<double> boundary_norms;         ///< ||g_j|| of entries with slots before position 0
  std::int64_t empty_boundary = 0;            ///< boundary entries that pool nothing
  // streaming_rms: the frame's size, what a position draws (its frame coordinates at most
  // `frame_coords`), chi^2_{D-k} for the remainder outside a frame of k axes, and log g.
  int max_open = 0;
  int frame_capacity = 0;
  int frame_coords = 0;
  int draw_blocks = 0;
  std::vector<ChiSquare> remainders;
  std::vector<double> log_weights;  ///< log g_s (PooledFrame::kNoWeight for 0), content noise
  // Channel groups (per-channel gates): each group's weights, ||g_G||^2, its channels' end,
  // and for boundary entries each group's renormalized ||g_{G,j}||^2; the slot laws of the
  // standardized channel (gate.hpp).
  std::vector<std::vector<double>> groups;
  std::vector<double> group_norms2;
  std::vector<int> group_ends;
  std::vector<std::vector<double>> boundary_group_norms2;
  std::vector<SlotLaw> laws;
  // Split projections: slots below older_slots read a token's older key, whose projection is
  // rho a_t + split_rest b_t (split_rest = sqrt(1 - rho^2), b_t ~ N(0, 1) independent).
  double split_rho = 1;
  double split_rest = 0;
  int older_slots = 0;
  // The read path (MODEL.md section 10; the two_stage paths): how the head reads, both stages'
  // gates (and their laws, needle_laws' O(W) part, once a run) and the index beta, the
  // needle's tokens and the first position read raw.
  niah::ReadPath read;
  Gate gate, index_gate;
  GateLaws gate_laws, index_gate_laws;
  double index_beta = 0;
  int needle_tokens = 1;
  std::int64_t raw_from = 0;
  std::int64_t top_k = 0;  ///< read.top_k, or every entry
  std::int64_t context = 0;
  // The full-vector read path (two_stage_conditional): both gates as channel groups, the
  // indexer's query noise, the boundary entries' count.
  GroupedGate attention_gate, index_gate_groups;
  double index_noise = 0;
  std::int64_t boundary_entries = 0;

  /// Slots(phi) of the needle's phase: where the entries holding it hold it.
  const std::vector<int>& needle_slots(std::int64_t needle) const {
    return phase_slots[static_cast<std::size_t>(geometry.phase_of_position(needle))];
  }
  /// The entry that holds the needle at `slot`.
  std::int64_t needle_entry(std::int64_t needle, int slot) const {
    const auto& g = geometry;
    const std::int64_t entry = (needle - g.stride + g.window - slot - g.offset) / g.stride;
    PHASESIM_ASSERT(entry >= 0 && entry < entries);  // needles are interior for every head
    return entry;
  }
};

/// Per-thread scratch: O(d + W + S), W and S the largest window and stride of any head.
struct Workspace {
  Eigen::VectorXd query, key, entry;          ///< d each
  Eigen::VectorXd older_key;                  ///< d: k''_p of split projections
  Eigen::VectorXd normals;                    ///< W
  Eigen::VectorXd gate, xi, token;            ///< W each: a gate, content noise, token projections
  Eigen::VectorXd older_token;                ///< W: older projections (split projections)
  Eigen::VectorXd slot_xi;                    ///< W: an entry's content noise by slot
  Eigen::VectorXd across;                     ///< a position's coordinates in a PooledFrame
  Eigen::VectorXd group_tokens;               ///< groups x W: per-group token projections
  Eigen::VectorXd group_older;                ///< groups x W: their older projections (split)
  Eigen::VectorXd group_scale, group_needle;  ///< per group: sqrt(Q_G) and A_G of a trial
  std::vector<float> draws, more_draws;       ///< batches of the block generator's normals
  std::vector<float> split_draws;             ///< the older projections' batch (split)
  std::vector<PooledFrame> frames;            ///< one per head (used on the streaming-rms path)
  // The read path: the needle's places in both stages, their residuals and the drawn places.
  NeedleLaws laws, index_laws;
  std::vector<double> residual, index_residual;
  std::vector<Place> places;
  std::vector<std::int64_t> explicit_entries;
};

struct Trial {
  std::uint32_t id;
  std::int64_t needle;
  int head;
};

/// ||q|| and the needle token's projection sqrt(d) <q, k_p> / ||q||; q and k_p stay in ws.
struct Query {
  double norm;
  double needle;
};

inline constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();

/// The per-trial kernel of the fast engine (monte_carlo.hpp runs it over the trials), and what
/// every path reads of the model: its streams and per-trial draws.
class Sampler {
 public:
  static constexpr bool kArgmaxes = false;

  explicit Sampler(const niah::NiahModel& model);
  Workspace workspace() const;

  /// Whether `head` retrieves the needle at `needle` in `trial`, and whether stage 1 passed
  /// it: its path's answer.
  TwoStage retrieves(std::uint32_t trial, std::int64_t needle, int head, Workspace& ws) const;
  HeadOutcome trial(std::uint32_t trial, std::int64_t needle, int head, Workspace& ws) const {
    const auto outcome = retrieves(trial, needle, head, ws);
    return {outcome.retrieved, {}, outcome.selected};
  }

  int dim() const { return dim_; }  ///< d, or 0 in the standardized channel
  RandomStream stream(const Trial& t, Stream kind) const;
  Query sample_query(const Trial& t, Workspace& ws) const;
  void sample_groups(const Head& h, const Trial& t, Workspace& ws) const;
  double split_normal(const Trial& t, int i) const;
  const double* content_gate(const Head& h, const Trial& t, std::int64_t entry,
                             Workspace& ws) const;

 private:
  Head plan_head(int head) const;
  void plan_channels(Head& h, const Gate& gate) const;

  niah::NiahModel model_;
  int dim_;
  std::vector<Head> heads_;
};

/// The slots the gate weights (g_s > 0), in order.
inline std::vector<int> support_of(const Gate& gate) {
  std::vector<int> support;
  for (int s = 0; s < gate.window(); ++s) {
    if (gate.weights[static_cast<std::size_t>(s)] > 0) support.push_back(s);
  }
  return support;
}

/// sqrt(sum of w_s^2) over `count` weights.
inline double norm_of(const double* w, int count) {
  double sum = 0;
  for (int s = 0; s < count; ++s) sum += w[s] * w[s];
  return std::sqrt(sum);
}

/// The largest distractor logit of the conditional paths: `interior` entries of scale
/// `interior_scale` by their exact maximum, and `boundary` entries one by one, entry j of
/// scale boundary_scale(j), each from the trial's distractor stream.
template <class BoundaryScale>
double distractor_max(const RandomStream& distractor, std::int64_t interior, double interior_scale,
                      std::int64_t boundary, BoundaryScale boundary_scale) {
  double top = interior_scale * max_of_normals(interior, distractor.uniform_pair(0, 0).x);
  for (std::int64_t j = 0; j < boundary; ++j) {
    const double z = distractor.normal(1, static_cast<std::uint32_t>(j));
    top = std::max(top, boundary_scale(j) * z);
  }
  return top;
}

// The paths, one file each. Each returns whether head t.head retrieves the needle in trial t.
bool sample_channel(const Sampler& s, const Head& h, const Trial& t, Workspace& ws);
bool sample_streaming_entries(const Sampler& s, const Head& h, const Trial& t, Workspace& ws);
bool sample_conditional(const Sampler& s, const Head& h, const Trial& t, Workspace& ws);
bool sample_conditional_rms(const Sampler& s, const Head& h, const Trial& t, Workspace& ws);
bool sample_streaming_tokens(const Sampler& s, const Head& h, const Trial& t, Workspace& ws);
bool sample_streaming_rms(const Sampler& s, const Head& h, const Trial& t, Workspace& ws);
bool sample_conditional_channels(const Sampler& s, const Head& h, const Trial& t, Workspace& ws);
bool sample_streaming_channels(const Sampler& s, const Head& h, const Trial& t, Workspace& ws);
TwoStage sample_two_stage(const Sampler& s, const Head& h, const Trial& t, Workspace& ws);
TwoStage sample_two_stage_conditional(const Sampler& s, const Head& h, const Trial& t,
                                      Workspace& ws);

/// The streaming-rms path's frame and draws for a head of `h.geometry` and `h.weights` in
/// d = `dim` dimensions (streaming_rms.cpp).
void plan_frame(Head& h, int dim);

}  // namespace phasesim::engines::fast
