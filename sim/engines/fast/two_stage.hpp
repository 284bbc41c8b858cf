#pragma once
// The read path's two stages (MODEL.md section 10), sampled exactly from the places a trial
// draws one by one (the needle's entries and raw tokens, and on the full-vector paths the
// entries and raw tokens that are not iid) and the rest of the visible entries, iid, drawn by
// their order statistics: the cost grows with the places, not with k or the context.
#include <cstdint>
#include <optional>
#include <span>

#include "phasesim/core/random.hpp"

namespace phasesim::engines::fast {

/// A place drawn one by one: a compressed entry (stage 1 ranks it) or a raw token of the
/// sliding window (always read).
struct Place {
  double selection = 0;  ///< standardized selection score (compressed entries)
  double attention = 0;  ///< attention logit, in the trial's units
  bool needle = false;   ///< holds a needle token
  bool raw = false;
};

/// The competitors not drawn one by one, and the rules of the read.
struct Rest {
  std::int64_t entries = 0;  ///< visible entries besides the places: iid (s, a) pairs
  double scale = 1;          ///< a = scale (rho s + sqrt(1 - rho^2) Z), s ~ N(0, 1)
  double rho = 0;            ///< index_rho
  std::int64_t top_k = 0;    ///< stage 1 keeps k entries (no selection when k >= all entries)
  std::int64_t raw = 0;      ///< iid raw haystack tokens of the window, raw_scale N(0, 1) each
  double raw_scale = 1;
  std::optional<double> sink;  ///< the sink's logit, in the trial's units
  /// Raw blocks (MODEL.md section 10): stage 2 reads each kept entry as its W raw tokens, iid
  /// N(0, 1) but the needle's (its place's attention logit, at u = 1); 0: the pooled keys.
  /// Every place then holds the needle (the standardized path).
  std::int64_t block_tokens = 0;
};

/// Stage 1 passed some needle place (a raw needle token always passes); stage 2 read the
/// needle.
struct TwoStage {
  bool selected = false;
  bool retrieved = false;
};

/// The outcome of one trial's read. `places` is reordered (compressed entries by selection
/// score); `stream` is the trial's Stream::selection.
TwoStage read_two_stages(std::span<Place> places, const Rest& rest, const RandomStream& stream);

}  // namespace phasesim::engines::fast
