#pragma once
// The read path of the full-vector model (MODEL.md section 10), written once for the CPU
// engines and the CUDA kernel as full_vector.hpp's scan is: PHASESIM_HD functions over plain
// pointers, no allocation, no exceptions.
//
// A needle of n tokens has the query q = (k_p + ... + k_{p+n-1}) / sqrt(n) + eps. The indexer is
// a second head over the same entries: its own keys k^I_t (Stream::index_key, keyed like the
// keys by the cache, so that query heads of one cache share the selection), its own gate and
// channel groups, one projection (no split) and no content noise, and the query
// q^I = (k^I_p + ...) / sqrt(n) + eps^I, eps^I ~ N(0, sigma_I^2 I / d) (Stream::index_noise),
// sigma_I^2 = d / beta_I^2 - 1 so that beta_I = sqrt(d / (1 + sigma_I^2)). Entry j's
// selection score is
//   s_j = rho a_j / sd_a + sqrt(1 - rho^2) i_j / sd_i,
// a_j = <q, K_j> and i_j = <q^I, K^I_j>, sd_a and sd_i their standard deviations given the
// queries for an entry of every slot that holds no needle token: sqrt(sum_G ||q_G||^2
// ||g_G||^2 / d) (one gate: ||q|| ||g|| / sqrt(d)), or ||q|| for RMS-normalized entries. So
// given the queries an interior entry's two logits are Gaussian of correlation rho, and the
// standardized channel (s = rho A + sqrt(1 - rho^2) I) is the large-d limit.
//
// Stage 1 keeps the k entries of the highest s_j (a tie keeps the lower entry): one exact
// selection per trial over the stored scores (select_threshold, a radix select on the scores'
// bits, so that every target and the GPU pick the same entries). Stage 2 is the argmax, as
// attention compares them, of the kept entries' a_j, the last N tokens' raw logits <q, k_t>
// (RMS-normalized keys with --rms-norm) and the sink, whose logit is its standardized value
// times a raw token's standard deviation given q (||q|| / sqrt(d), or ||q|| with --rms-norm).
// The winner's index: an entry j < N_c, a raw token N_c + (t - (L - N)), the sink N_c + N.
#include <cmath>
#include <cstdint>

#include "phasesim/engines/full_vector.hpp"

namespace phasesim::engines {

/// A head's read path as the scans take it.
struct FullVectorRead {
  bool on = false;         ///< false: section 4's argmax (scan_full_vector)
  std::int64_t top_k = 0;  ///< stage 1 keeps k entries (k >= N_c: all)
  double rho = 0;          ///< index_rho
  int sliding_window = 0;  ///< N
  bool sink = false;
  double sink_logit = 0;     ///< standardized
  int needle_tokens = 1;     ///< n
  std::int64_t context = 0;  ///< L
  FullVectorHead index;      ///< the indexer: its gate and groups, query_noise = sigma_I
};

/// What a trial's read found: the winner (Argmax::entry as above) and the two stages.
struct ReadOutcome {
  niah::Argmax best;
  bool selected = false;   ///< some needle entry kept, or a needle token in the window
  bool retrieved = false;  ///< the winner holds a needle token
};

/// q = (k_p + ... + k_{p+n-1}) / sqrt(n) + eps into ws.query (n = 1: prepare_scan's query),
/// key rows drawn into ws.keys' first row as scratch. Call after prepare_scan.
template <class Ops>
PHASESIM_HD inline void needle_query(const FullVectorHead& head, const RandomStream& keys,
                                     const RandomStream& noise, std::int64_t needle, int tokens,
                                     const ScanWorkspace<typename Ops::Real>& ws) {
  using Real = typename Ops::Real;
  if (tokens == 1) return;
  const double root = std::sqrt(static_cast<double>(head.dim));
  for (int c = 0; c < head.dim; ++c) ws.query[c] = 0;
  for (int i = 0; i < tokens; ++i) {
    Ops::key_rows(keys, needle + i, 1, head.dim, 1 / root, ws.keys, ws.row);
    for (int c = 0; c < head.dim; ++c) ws.query[c] = ws.query[c] + ws.keys[c];
  }
  const auto scale = static_cast<Real>(1 / std::sqrt(static_cast<double>(tokens)));
  Ops::key_rows(noise, needle, 1, head.dim, head.query_noise / root, ws.keys, ws.row);
  for (int c = 0; c < head.dim; ++c) ws.query[c] = ws.query[c] * scale + ws.keys[c];
}

/// The standard deviation of an entry's logit given the query, for an entry of every slot
/// that holds no needle token: sqrt(sum_G ||q_G||^2 ||g_G||^2 / d), or ||q|| RMS-normalized.
template <typename Real>
PHASESIM_HD inline double logit_scale(const FullVectorHead& head, Strided<Real> query) {
  const int W = head.geometry.window;
  double total = 0;
  for (int k = 0, begin = 0; k < (head.groups > 0 ? head.groups : 1); ++k) {
    const int end = head.groups > 0 ? head.group_ends[k] : head.dim;
    const double* gate =
        head.groups > 0 ? head.group_gates + static_cast<std::int64_t>(k) * W : head.gate;
    double q2 = 0, g2 = 0;
    for (int c = begin; c < end; ++c) q2 += static_cast<double>(query[c]) * query[c];
    for (int s = 0; s < W; ++s) g2 += gate[s] * gate[s];
    total += head.rms_norm ? q2 : q2 * g2;
    begin = end;
  }
  return std::sqrt(head.rms_norm ? total : total / head.dim);
}

/// True when entry j of the head pools one of the needle's tokens p..p+n-1.
PHASESIM_HD inline bool holds_needle(const Geometry& g, std::int64_t j, std::int64_t needle,
                                     int tokens) {
  const std::int64_t first = g.position(j, 0);
  const std::int64_t lo = first > needle ? first : needle;
  const std::int64_t hi =
      first + g.window - 1 < needle + tokens - 1 ? first + g.window - 1 : needle + tokens - 1;
  return j >= 0 && lo <= hi;
}

/// Both queries of a trial's read, and the scales that standardize the two logits.
struct ReadQueries {
  double attention_scale = 1;  ///< sd_a
  double index_scale = 1;      ///< sd_i
};

/// Prepares both scans (prepare_scan of the head and of the indexer, and the needle's queries)
/// and returns the scales of the selection score.
template <class Ops>
PHASESIM_HD inline ReadQueries prepare_read(const FullVectorHead& head, const FullVectorRead& read,
                                            std::uint64_t seed, std::uint32_t trial,
                                            std::uint32_t head_index, std::int64_t needle,
                                            const ScanWorkspace<typename Ops::Real>& ws,
                                            const ScanWorkspace<typename Ops::Real>& index_ws) {
  const ScanStreams s(head, seed, trial, head_index);
  prepare_scan<Ops>(head, s.keys, s.noise, needle, ws);
  needle_query<Ops>(head, s.keys, s.noise, needle, read.needle_tokens, ws);
  prepare_scan<Ops>(read.index, s.index_keys, s.index_noise, needle, index_ws);
  needle_query<Ops>(read.index, s.index_keys, s.index_noise, needle, read.needle_tokens, index_ws);
  return {logit_scale(head, ws.query), logit_scale(read.index, index_ws.query)};
}

/// Stage 1's scan of entries begin..end-1 after prepare_read (its scales): attention[j] = a_j and
/// score[j] = s_j (arrays of all N_c entries, indexed from 0), the keys of both heads
/// regenerated position by position as scan_full_vector does, so that a kernel may split the
/// entries into ranges.
template <class Ops>
PHASESIM_HD inline void scan_read_entries(const FullVectorHead& head, const FullVectorRead& read,
                                          std::uint64_t seed, std::uint32_t trial,
                                          std::uint32_t head_index, ReadQueries scales,
                                          std::int64_t begin, std::int64_t end,
                                          const ScanWorkspace<typename Ops::Real>& ws,
                                          const ScanWorkspace<typename Ops::Real>& index_ws,
                                          typename Ops::Real* attention, double* score) {
  const ScanStreams s(head, seed, trial, head_index);
  const double rest = std::sqrt((1 - read.rho) * (1 + read.rho));
  std::int64_t next = 0, index_next = 0;
  for (std::int64_t j = begin; j < end; ++j) {
    next = stream_entry_positions<Ops>(head, s.keys, s.split, s.content, j, next, ws);
    index_next = stream_entry_positions<Ops>(read.index, s.index_keys, s.split, s.content, j,
                                             index_next, index_ws);
    const auto first = head.geometry.position(j, 0);
    const auto a = Ops::entry_logit(head, ws, entry_weights(head, j, ws), first);
    const auto i =
        Ops::entry_logit(read.index, index_ws, entry_weights(read.index, j, index_ws), first);
    attention[j] = a;
    score[j] = read.rho * (a / scales.attention_scale) + rest * (i / scales.index_scale);
  }
}

/// An order of doubles as unsigned integers: larger value, larger key.
PHASESIM_HD inline std::uint64_t order_key(double value) {
  const std::uint64_t bits = portable::detail::bits_of(value);
  return bits >> 63 ? ~bits : bits | (std::uint64_t{1} << 63);
}

/// The k-th highest score in the order (score down, entry up): its key, and how many entries
/// of that key are kept (those of the lowest indices).
struct Threshold {
  std::uint64_t key = 0;
  std::int64_t ties = 0;
};

/// Stage 1's threshold over score[0..n) (1 <= k <= n): a radix select, 8 bits a pass.
PHASESIM_HD inline Threshold select_threshold(const double* score, std::int64_t n, std::int64_t k) {
  std::uint64_t prefix = 0, mask = 0;
  std::int64_t remaining = k;  // the rank still to find among the keys that match the prefix
  for (int shift = 56; shift >= 0; shift -= 8) {
    std::int64_t counts[256] = {};
    for (std::int64_t j = 0; j < n; ++j) {
      const auto key = order_key(score[j]);
      if ((key & mask) == prefix) ++counts[(key >> shift) & 0xff];
    }
    int digit = 255;
    for (; digit > 0 && counts[digit] < remaining; --digit) remaining -= counts[digit];
    prefix |= static_cast<std::uint64_t>(digit) << shift;
    mask |= std::uint64_t{0xff} << shift;
  }
  return {prefix, remaining};
}

/// True when the read's winner (ReadOutcome::best.entry, as above) holds a token of the needle.
PHASESIM_HD inline bool reads_needle(const FullVectorHead& head, const FullVectorRead& read,
                                     std::int64_t needle, std::int64_t winner) {
  const std::int64_t entries = head.entries;
  if (winner < entries) return holds_needle(head.geometry, winner, needle, read.needle_tokens);
  const std::int64_t t = read.context - read.sliding_window + (winner - entries);
  return winner < entries + read.sliding_window && t >= needle && t < needle + read.needle_tokens;
}

/// Stage 2 of a trial from the stored logits and scores of all N_c entries (one thread): the
/// kept entries, the window's raw tokens (their keys drawn into ws's first row) and the sink.
/// Call after the scan, with the head's workspace as the scan left it (its query).
template <class Ops>
PHASESIM_HD inline ReadOutcome finish_read(const FullVectorHead& head, const FullVectorRead& read,
                                           std::uint64_t seed, std::uint32_t trial,
                                           std::uint32_t head_index, std::int64_t needle,
                                           const typename Ops::Real* attention, const double* score,
                                           const ScanWorkspace<typename Ops::Real>& ws) {
  const std::int64_t entries = head.entries;
  const bool selects = read.top_k < entries;
  const auto threshold = selects ? select_threshold(score, entries, read.top_k) : Threshold{};
  ReadOutcome out;
  std::int64_t ties = threshold.ties;
  for (std::int64_t j = 0; j < entries; ++j) {
    if (selects) {
      const auto key = order_key(score[j]);
      if (key < threshold.key || (key == threshold.key && ties-- <= 0)) continue;
    }
    out.selected = out.selected || holds_needle(head.geometry, j, needle, read.needle_tokens);
    out.best.offer(j, attention[j]);
  }
  // The raw tokens: a head of one slot weighted 1 (every channel), one projection.
  const RandomStream keys(seed, trial, ScanStreams::cache_of(head, head_index), Stream::key);
  FullVectorHead raw = head;
  raw.geometry = Geometry{1, 1, 0};
  raw.groups = 0;
  raw.split_rho = 1;
  ws.weights[0] = 1;
  const double root = std::sqrt(static_cast<double>(head.dim));
  const std::int64_t from = read.context - read.sliding_window;
  for (std::int64_t t = from; t < read.context; ++t) {
    Ops::key_rows(keys, t, 1, head.dim, 1 / root, ws.keys, ws.row);
    const bool needle_token = t >= needle && t < needle + read.needle_tokens;
    out.selected = out.selected || needle_token;
    out.best.offer(entries + (t - from), Ops::entry_logit(raw, ws, {ws.weights, {}}, t));
  }
  if (read.sink) {
    double q2 = 0;
    for (int c = 0; c < head.dim; ++c) q2 += static_cast<double>(ws.query[c]) * ws.query[c];
    const double unit = head.rms_norm ? std::sqrt(q2) : std::sqrt(q2 / head.dim);
    out.best.offer(entries + read.sliding_window, read.sink_logit * unit);
  }
  out.retrieved = reads_needle(head, read, needle, out.best.entry);
  return out;
}

}  // namespace phasesim::engines
