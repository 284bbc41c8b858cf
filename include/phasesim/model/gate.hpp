#pragma once
// Positional gates g = softmax(b) over the W slots of a window (MODEL.md section 3).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace phasesim {

/// The pooling weights of one head: W non-negative numbers summing to 1. Exact zeros
/// are allowed (a one-hot gate is the limit of its logits).
struct Gate {
  std::vector<double> weights;
  std::string spec;  ///< the text it was parsed from, for reports

  int window() const { return static_cast<int>(weights.size()); }
};

/// The gate forms, for --help texts.
inline constexpr const char* kGateFormsHelp =
    "uniform, last, onehot:K, weights:a,b,..., logits:a,b,... or random:SEED[:SCALE]";

/// Parses one gate for a window of W slots. Forms:
///   uniform | last | onehot:K | weights:a,b,... | logits:a,b,... | random:SEED[:SCALE]
/// `random` draws logits SCALE * N(0, 1) (SCALE defaults to 1) from the Philox stream
/// keyed by SEED. Throws InputError with a one-line message on bad input.
Gate parse_gate(std::string_view spec, int window);

/// Parses several heads: a ';'-separated list of gate specs, or "@file.json" naming a
/// JSON file that holds a list (or {"gates": [...]}) whose items are gate specs or
/// arrays of weights.
std::vector<Gate> parse_gates(std::string_view specs, int window);

/// The gate of the `index`-th copy of `gate` when one spec is replicated over several
/// heads: identical, except that random:SEED[:SCALE] gets seed SEED + index, so that
/// replicated random heads are independent draws.
Gate replicate_gate(const Gate& gate, int index);

/// Gate from non-negative weights (normalized to sum 1); `spec` is kept for reports.
Gate gate_from_weights(std::vector<double> weights, std::string spec);

/// Gate from finite logits by a numerically stable softmax.
Gate gate_from_logits(const std::vector<double>& logits, std::string spec);

/// The logits of random:SEED:SCALE: SCALE x N(0, 1) per slot from the Philox stream keyed by
/// SEED (Stream::gate_init), so that a trained head can start where that gate spec starts.
std::vector<double> random_logits(std::uint64_t seed, double scale, int window);

/// Normalized weights u_s = g_s / ||g||_2.
std::vector<double> normalized_weights(const Gate& gate);

/// The gate of an entry whose first `first_slot` slots lie before position 0:
/// those slots get weight 0 and the softmax renormalizes over the rest.
/// If every remaining weight is 0 the entry pools nothing and all weights are 0.
std::vector<double> renormalized_weights(const Gate& gate, int first_slot);

}  // namespace phasesim
