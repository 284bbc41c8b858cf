#pragma once
// How a head reads its cache (MODEL.md section 10). Stage 1 (selection) keeps the top k of the
// visible entries by a selection score with its own gate and signal strength (an indexer),
// correlated rho with the entry's attention logit; stage 2 (attention) takes the argmax over
// what stage 1 kept, the sliding window's last N raw tokens and a sink with a fixed
// standardized logit (if the sink wins, nothing is read). With raw blocks (NSA's selection
// branch, MoBA) stage 2 reads the raw tokens of the selected entries instead of their pooled
// keys: the needle's own token at u = 1 if its entry was kept. With every field off this is
// section 4's argmax over all entries.
#include <cstdint>
#include <optional>
#include <string>

#include "phasesim/core/document.hpp"
#include "phasesim/model/gate.hpp"

namespace phasesim::niah {

/// The most tokens a needle may have: its places and residuals are drawn per trial.
inline constexpr int kMaxNeedleTokens = 256;
/// The largest --top-k: a selection's work and memory grow with k.
inline constexpr std::int64_t kMaxTopK = std::int64_t{1} << 24;

/// One head's read path, resolved (every field at its value or its default).
struct ReadPath {
  std::optional<std::int64_t> top_k;  ///< stage 1 keeps the k best entries; unset: all of them
  std::optional<Gate> index_gate;     ///< the selection score's gate; unset: the head's gate
  std::optional<double> index_beta;   ///< its signal strength; unset: the head's beta (below)
  double index_rho = 0;               ///< correlation of an entry's selection and attention logits
  int sliding_window = 0;             ///< the last N tokens also read raw, one entry each
  std::optional<double> sink;         ///< a stage-2 competitor with this standardized logit
  /// Stage 2's signal strength (its layer's own projections); unset: the model's beta.
  std::optional<double> beta;
  /// Stage 2 reads the W raw tokens of each kept entry (W = S), not its pooled key.
  bool raw_blocks = false;

  /// True when stage 1 drops some of `entries` entries.
  bool selects(std::int64_t entries) const { return top_k && *top_k < entries; }
  /// True when nothing but section 4's argmax is read (selection, if any, keeps everything).
  bool plain(std::int64_t entries) const {
    return !selects(entries) && sliding_window == 0 && !sink && !raw_blocks;
  }
};

/// A head's read path as a user states it (a command line, or a layer or head of an
/// architecture file): unset fields take another statement's values, then the defaults.
struct ReadPathValues {
  std::optional<std::int64_t> top_k;
  std::optional<Gate> index_gate;
  std::optional<double> index_beta;
  std::optional<double> index_rho;
  std::optional<std::int64_t> sliding_window;
  std::optional<double> sink;
  std::optional<double> beta;  ///< only from a file: the command line's --beta is the model's
  std::optional<bool> raw_blocks;

  /// These values where set, else those of `fallback`.
  ReadPathValues over(const ReadPathValues& fallback) const;
  /// The read path these values give, the defaults where they are unset.
  ReadPath resolve() const;
  /// True when no value is set.
  bool empty() const;
};

/// The read path's options on the command line, every field under its option's name
/// (NiahSpec::read): what they say applies to every head an architecture file leaves unset.
struct ReadPathOptions {
  std::optional<std::int64_t> top_k;
  std::optional<std::string> index_gates;  ///< one spec, or ';'-separated, one per head
  std::optional<double> index_beta;
  std::optional<double> index_rho;
  std::optional<std::int64_t> sliding_window;
  std::optional<double> sink;
  bool raw_blocks = false;  ///< a flag: set, every head without a file value reads raw blocks
};

/// Throws InputError unless every set value is allowed, whatever the context: --top-k at
/// least 1 (and at most kMaxTopK), --index-rho in [-1, 1], --index-beta finite and >= 0,
/// --sliding-window >= 0, --sink finite, beta finite and >= 0. `where` prefixes the option's name
/// in messages ("" on the command line: "invalid --top-k 0 (...)"; "a.toml: layer 2: " in a file:
/// "invalid a.toml: layer 2: top_k 0 (...)", keys then named as the file writes them).
void validate_read_path(const ReadPathValues& values, const std::string& where = "");

/// {"top_k", "index_gate", "index_beta", "index_rho", "sliding_window", "sink", "beta",
/// "raw_blocks"}, each where set (the index gate as its spec): what a report says of a head's
/// read path.
Json read_path_json(const ReadPath& path);

}  // namespace phasesim::niah
