#pragma once
// The fast engine's sampler: exact Monte Carlo of the niah model without materializing key vectors.
// Each head gets the cheapest path that is exact for its gate and the model's options;
// sim/ENGINES.md derives every path and says where it is exact.
#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

#include "monte_carlo.hpp"
#include "phasesim/core/chi_square.hpp"
#include "phasesim/core/random.hpp"
#include "phasesim/engines/pooled_frame.hpp"
#include "phasesim/niah/run.hpp"

namespace phasesim::engines {

enum class FastPath {
  channel,            ///< standardized: needle entries and the exact distractor max, O(W)
  streaming_entries,  ///< standardized with content noise: every entry's own gate, O(N_c W)
  conditional,        ///< full-vector, no shared weighted token: Gaussians given q, O(d + W)
  conditional_rms,    ///< the same with RMS-normalized entries: max of cosines, O(d m + W)
  streaming_tokens,   ///< full-vector, shared tokens or content noise: scalar logits, O(N_c W)
  streaming_rms,      ///< full-vector, shared tokens, RMS-normalized: a small frame, O(L (W/S + S))
  conditional_channels,  ///< conditional with channel groups: Gaussians per group, O(d + G W)
  streaming_channels,    ///< streaming_tokens with channel groups: G projections, O(N_c G W)
};

/// The path for one head. Throws InputError naming `full` for the models fast has no exact
/// path for: per-channel gates with --rms-norm (RMS norm of a pooled entry whose channels have
/// unequal variances), or with content noise in the standardized channel (whose model has no
/// channels); and split projections with --rms-norm and shared tokens.
FastPath fast_path(const niah::NiahModel& model, int head);
std::string fast_path_name(FastPath path);

/// The per-trial kernel of the fast engine (monte_carlo.hpp runs it over the trials).
class FastSampler {
 public:
  static constexpr bool kArgmaxes = false;

  explicit FastSampler(const niah::NiahModel& model);

  /// Per-thread scratch: O(d + W + S), W and S the largest window and stride of any head.
  struct Workspace {
    Eigen::VectorXd query, key, entry;  ///< d each
    Eigen::VectorXd older_key;          ///< d: k''_p of split projections
    Eigen::VectorXd normals;            ///< W
    Eigen::VectorXd gate, xi, token;    ///< W each: a gate, content noise, token projections
    Eigen::VectorXd older_token;        ///< W: older projections (split projections)
    Eigen::VectorXd slot_xi;            ///< W: an entry's content noise by slot
    Eigen::VectorXd across;             ///< a position's coordinates in a PooledFrame
    Eigen::VectorXd group_tokens;       ///< groups x W: per-group token projections
    Eigen::VectorXd group_older;        ///< groups x W: their older projections (split)
    Eigen::VectorXd group_scale, group_needle;  ///< per group: sqrt(Q_G) and A_G of a trial
    std::vector<float> draws, more_draws;       ///< batches of the block generator's normals
    std::vector<float> split_draws;             ///< the older projections' batch (split)
    std::vector<PooledFrame> frames;            ///< one per head (used on the streaming-rms path)
  };
  Workspace workspace() const;

  /// Whether `head` retrieves the needle at `needle` in `trial`.
  bool retrieves(std::uint32_t trial, std::int64_t needle, int head, Workspace& ws) const;
  HeadOutcome trial(std::uint32_t trial, std::int64_t needle, int head, Workspace& ws) const {
    return {retrieves(trial, needle, head, ws), {}};
  }

 private:
  struct Head {
    FastPath path;
    Geometry geometry;
    std::int64_t entries = 0;                   ///< N_c of this head
    std::vector<std::vector<int>> phase_slots;  ///< Slots(phi) for phi = 0..S-1
    std::vector<double> weights;                ///< g
    std::vector<int> support;                   ///< slots with g_s > 0
    double norm = 0;                            ///< ||g||
    double tau = 0;                             ///< content noise; 0 when it cannot move the gate
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

  Head plan_head(int head) const;
  RandomStream stream(const Trial& t, Stream kind) const;
  static const std::vector<int>& needle_slots(const Head& h, const Trial& t);
  static std::int64_t needle_entry(const Head& h, std::int64_t needle, int slot);
  Query sample_query(const Trial& t, Workspace& ws) const;
  double split_normal(const Trial& t, int i) const;
  const double* content_gate(const Head& h, const Trial& t, std::int64_t entry,
                             Workspace& ws) const;
  bool channel(const Head& h, const Trial& t, Workspace& ws) const;
  bool conditional(const Head& h, const Trial& t, Workspace& ws) const;
  bool conditional_rms(const Head& h, const Trial& t, Workspace& ws) const;
  bool streaming_entries(const Head& h, const Trial& t, Workspace& ws) const;
  bool streaming_tokens(const Head& h, const Trial& t, Workspace& ws) const;
  double ring_logit(const Head& h, std::int64_t j, Workspace& ws) const;
  bool streaming_rms(const Head& h, const Trial& t, Workspace& ws) const;
  void plan_frame(Head& h) const;
  void plan_channels(Head& h, const Gate& gate) const;
  void sample_groups(const Head& h, const Trial& t, Workspace& ws) const;
  bool conditional_channels(const Head& h, const Trial& t, Workspace& ws) const;
  double channels_logit(const Head& h, std::int64_t j, Workspace& ws) const;
  bool streaming_channels(const Head& h, const Trial& t, Workspace& ws) const;

  niah::NiahModel model_;
  int dim_;  ///< d, or 0 in the standardized channel
  double beta_;
  std::vector<Head> heads_;
};

}  // namespace phasesim::engines
