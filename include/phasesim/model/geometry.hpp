#pragma once
// Window/stride geometry of the compressed cache (MODEL.md section 2).
//
// Entry j pools slots s = 0..W-1 at positions t(j, s) = j*S + S - W + s + o, so the window
// ends at the end of chunk j, shifted by the head's offset o (0 <= o < S; 0 unless an
// architecture file shifts a head's entry boundaries). Slots at negative positions do not
// exist. The phase of a position stays t mod S whatever the offset: an offset moves which
// slot holds a phase, not the phases.
#include <cstdint>
#include <vector>

#include "phasesim/core/host_device.hpp"

namespace phasesim {

/// Entries first..last, both included; empty when last < first.
struct EntryRange {
  std::int64_t first = 0;
  std::int64_t last = -1;

  PHASESIM_HD bool contains(std::int64_t entry) const { return entry >= first && entry <= last; }
};

/// Positions first..last, both included.
struct PositionRange {
  std::int64_t first = 0;
  std::int64_t last = -1;
};

/// Where the entries of a head lie over the positions of a context. Every question of the
/// form "which entries hold position p" is answered here, offset included, for the engines,
/// the needle planner and the training lab alike.
struct Geometry {
  int window = 8;  ///< W: tokens pooled into one entry
  int stride = 4;  ///< S: a new entry every S tokens
  int offset = 0;  ///< o: entry boundaries shifted by o tokens, 0 <= o < S

  /// Throws InputError unless window >= 1, stride >= 1 and 0 <= offset < stride.
  void validate() const;

  /// Position of slot s of entry j (negative: the slot does not exist).
  PHASESIM_HD std::int64_t position(std::int64_t entry, int slot) const {
    return entry * stride + stride - window + slot + offset;
  }
  /// Phase of a position: t mod S, in [0, S).
  PHASESIM_HD int phase_of_position(std::int64_t t) const {
    const auto r = static_cast<int>(t % stride);
    return r < 0 ? r + stride : r;
  }
  /// Phase of slot s: (s + S - W + o) mod S.
  PHASESIM_HD int phase_of_slot(int slot) const {
    return phase_of_position(static_cast<std::int64_t>(slot) + stride - window + offset);
  }
  /// Slots 0..W-S-1, older than the entry's own chunk (its last S slots): W - S, 0 when W <= S.
  /// Split projections read them through the older key (NiahModel::split_rhos).
  PHASESIM_HD int older_slots() const { return window > stride ? window - stride : 0; }
  /// First slot of entry j that lies at a non-negative position.
  PHASESIM_HD int first_existing_slot(std::int64_t entry) const {
    const std::int64_t first = window - stride - offset - entry * stride;
    return first > 0 ? static_cast<int>(first) : 0;
  }
  /// Entries written before a query at position L: N_c = floor((L - o) / S), those whose
  /// window ends before L.
  PHASESIM_HD std::int64_t entries_before(std::int64_t context) const {
    return context > offset ? (context - offset) / stride : 0;
  }
  /// True when entry j pools position p (false for j < 0: no such entry).
  PHASESIM_HD bool holds(std::int64_t entry, std::int64_t p) const {
    const std::int64_t first = position(entry, 0);
    return entry >= 0 && p >= first && p < first + window;
  }
  /// The entries among the first `entry_count` that pool position p: they are consecutive,
  /// from floor((p - o) / S) up to floor((p - o - S + W) / S).
  PHASESIM_HD EntryRange entries_holding(std::int64_t p, std::int64_t entry_count) const {
    const std::int64_t first = floor_div(p - offset, stride);
    const std::int64_t last = floor_div(p - offset - stride + window, stride);
    return {first > 0 ? first : 0, last < entry_count - 1 ? last : entry_count - 1};
  }
  /// The interior needle positions with `entry_count` entries: [max(W, o), N_c S + o - W],
  /// where every entry that holds the needle exists, has all its slots at positions >= 0
  /// (no renormalized gate) and ends before the query. Empty when the entries are too few.
  PositionRange interior(std::int64_t entry_count) const {
    return {window > offset ? window : offset, entry_count * stride + offset - window};
  }
  /// m_phi: slots of phase phi, i.e. how many entries hold a token of that phase.
  PHASESIM_HD int multiplicity(int phase) const {
    int count = 0;
    for (int s = 0; s < window; ++s) count += phase_of_slot(s) == phase ? 1 : 0;
    return count;
  }

  /// Slots of phase phi, in increasing order (empty for a structurally blind phase).
  std::vector<int> slots_of_phase(int phase) const;

 private:
  /// floor(a / b) for b > 0.
  PHASESIM_HD static std::int64_t floor_div(std::int64_t a, std::int64_t b) {
    return a >= 0 ? a / b : -((-a + b - 1) / b);
  }
};

}  // namespace phasesim
