#pragma once
// Positional gates g = softmax(b) over the W slots of a window (MODEL.md section 3).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "phasesim/model/geometry.hpp"

namespace phasesim {

/// A group of channels with its own slot weights: a share of the d channels pools the window
/// with `weights` (W non-negative numbers summing to 1).
struct ChannelGroup {
  std::vector<double> weights;
  double share = 1;  ///< in (0, 1]; the shares of a gate's groups sum to 1
  std::string spec;  ///< the group's own gate spec
};

/// The pooling weights of one head: W non-negative numbers summing to 1. Exact zeros
/// are allowed (a one-hot gate is the limit of its logits). A per-channel gate (MODEL.md
/// section 9: V4 takes the softmax over slots for every channel) is a list of channel groups,
/// and its `weights` are then their mean over channels, sum_G share_G g_G, what its coverage
/// and reports show; engines pool each group's channels with the group's own weights.
struct Gate {
  std::vector<double> weights;
  std::string spec;                    ///< the text it was parsed from, for reports
  std::vector<ChannelGroup> channels;  ///< empty: one gate for every channel

  int window() const { return static_cast<int>(weights.size()); }
  bool per_channel() const { return !channels.empty(); }
};

/// The gate forms, for --help texts.
inline constexpr const char* kGateFormsHelp =
    "uniform, last, onehot:K, weights:a,b,..., logits:a,b,..., random:SEED[:SCALE] or "
    "channels:SPEC=SHARE|SPEC=SHARE|... (per-channel groups)";

/// Parses one gate for a window of W slots. Forms:
///   uniform | last | onehot:K | weights:a,b,... | logits:a,b,... | random:SEED[:SCALE]
///   | channels:SPEC=SHARE|SPEC=SHARE|...
/// `random` draws logits SCALE * N(0, 1) (SCALE defaults to 1) from the Philox stream
/// keyed by SEED. `channels` gives channel groups, each a gate of the other forms and the
/// share of the channels it pools (shares in (0, 1] summing to 1; all omitted: equal shares),
/// e.g. channels:onehot:7=0.5|onehot:3=0.5. Groups whose weights are all equal are one gate.
/// Throws InputError with a one-line message on bad input.
Gate parse_gate(std::string_view spec, int window);

/// Parses several heads: a ';'-separated list of gate specs, or "@file.json" naming a
/// JSON file that holds a list (or {"gates": [...]}) whose items are gate specs or
/// arrays of weights, or {"channels": [...]} whose items are gate specs, arrays of weights or
/// {"gate": spec or weights, "share": x}.
std::vector<Gate> parse_gates(std::string_view specs, int window);

/// The gate of the `index`-th copy of `gate` when one spec is replicated over several
/// heads: identical, except that random:SEED[:SCALE] gets seed SEED + index, so that
/// replicated random heads are independent draws.
Gate replicate_gate(const Gate& gate, int index);

/// A per-channel gate of `groups` (one gate when there is one group, or when every group has
/// the same weights). Throws InputError (naming `spec`) unless the groups share one window
/// and their shares are in (0, 1] and sum to 1.
Gate gate_from_channels(std::vector<ChannelGroup> groups, std::string spec);

/// The channels of each group of a per-channel gate at dimension d: the shares times d,
/// rounded by largest remainder so that they sum to d (a group may get 0). One entry, d, for
/// one gate.
std::vector<int> channel_counts(const Gate& gate, int dim);

/// The end of each group's channels, channel_counts summed in order: group k holds channels
/// [ends[k - 1], ends[k]) (from 0 for k = 0).
std::vector<int> channel_ends(const Gate& gate, int dim);

/// The spec channels:GROUP|GROUP|... of per-channel groups (each a gate spec, SPEC=SHARE or
/// SPEC), as parse_gate reads it.
std::string channels_spec(const std::vector<std::string>& groups);

/// Throws InputError unless every channel group gets at least one of the d channels.
void check_channel_counts(const Gate& gate, int dim);

/// Throws InputError naming `option` when `gate` is per-channel: for the commands whose theory
/// (T1's optimum, T2's dynamics) is of one gate for every channel.
void require_one_gate(const Gate& gate, const std::string& option);

/// Gate from non-negative weights (normalized to sum 1); `spec` is kept for reports.
Gate gate_from_weights(std::vector<double> weights, std::string spec);

/// Gate from finite logits by a numerically stable softmax.
Gate gate_from_logits(const std::vector<double>& logits, std::string spec);

/// The logits of random:SEED:SCALE: SCALE x N(0, 1) per slot from the Philox stream keyed by
/// SEED (Stream::gate_init), so that a trained head can start where that gate spec starts.
std::vector<double> random_logits(std::uint64_t seed, double scale, int window);

/// The law of an entry's logit when it holds the needle at slot s, in the standardized channel
/// (MODEL.md sections 4 and 9, theory/THEORY.md "Per-channel gates"): beta u_s + sd_s Z. One
/// gate: u_s = g_s / ||g||, sd_s = sqrt(1 - u_s^2). Channel groups G with shares w_G:
/// u_s = sum_G w_G g_{G,s} / n and sd_s = sqrt(1 - sum_G w_G g_{G,s}^2 / n^2), where
/// n^2 = sum_G w_G ||g_G||^2.
struct SlotLaw {
  double u = 0;
  double sd = 1;
};
std::vector<SlotLaw> slot_laws(const Gate& gate);

/// The law at an older slot under split projections: mean scaled by rho, sd sqrt(1 - rho^2 v)
/// with v = 1 - sd^2 (theory/THEORY.md, "Split projections").
SlotLaw split_law(SlotLaw law, double split_rho);

/// slot_laws of a head with split projections (run.hpp, NiahModel::split_rhos): a token's key
/// in an older slot (s < Geometry::older_slots()) has correlation rho with the key the query
/// matches, so there the needle's mean is beta rho u_s and its sd sqrt(1 - rho^2 v_s), v_s = 1 -
/// sd_s^2 (theory/THEORY.md, "Split projections"). rho = 1 leaves the laws as they are.
std::vector<SlotLaw> slot_laws(const Gate& gate, const Geometry& geometry, double split_rho);

/// Normalized weights u_s: g_s / ||g||_2 for one gate, slot_laws' u for channel groups.
std::vector<double> normalized_weights(const Gate& gate);

/// The gate of an entry whose first `first_slot` slots lie before position 0:
/// those slots get weight 0 and the softmax renormalizes over the rest.
/// If every remaining weight is 0 the entry pools nothing and all weights are 0.
std::vector<double> renormalized_weights(const Gate& gate, int first_slot);

}  // namespace phasesim
