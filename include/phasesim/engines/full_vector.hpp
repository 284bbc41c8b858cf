#pragma once
// The full-vector model of one head in one trial (MODEL.md section 4), written once for
// the CPU `full` engine and the CUDA kernel: PHASESIM_HD inline functions over plain
// pointers, with no allocation, no exceptions and no Eigen. The CPU engine calls them in
// an OpenMP loop over trials; a kernel calls them per (trial, head) and must draw the
// same keys, so every random number here comes from a RandomStream keyed by
// (seed, trial, head, stream) with index = position:
//   key k_t       component c = (1 / sqrt(d)) * normal(t, c)            Stream::key
//   query noise   component c = (sigma_q / sqrt(d)) * normal(p, c)      Stream::query_noise
//   content xi_t  normal(t, 0)                                         Stream::content_noise
#include <cmath>
#include <cstdint>

#include "phasesim/core/host_device.hpp"
#include "phasesim/core/random.hpp"
#include "phasesim/model/geometry.hpp"
#include "phasesim/niah/argmax.hpp"

namespace phasesim {

/// `count` N(0, 1) numbers of `index`, times `scale`: out[c] = scale * stream.normal(index, c),
/// computed a Box-Muller pair (one Philox call) at a time.
PHASESIM_HD inline void fill_normals(const RandomStream& stream, std::uint32_t index, int count,
                                     double scale, double* out) {
  for (int c = 0; c < count; c += 2) {
    const auto pair = stream.normal_pair(index, static_cast<std::uint32_t>(c / 2));
    out[c] = scale * pair.x;
    if (c + 1 < count) out[c + 1] = scale * pair.y;
  }
}

/// Key k_t ~ N(0, I_d / d) of position t.
PHASESIM_HD inline void generate_key(const RandomStream& keys, std::int64_t t, int dim,
                                     double* out) {
  fill_normals(keys, static_cast<std::uint32_t>(t), dim, 1 / std::sqrt(static_cast<double>(dim)),
               out);
}

/// Query for a needle at p: q = k_p + eps, eps ~ N(0, sigma_q^2 I_d / d).
PHASESIM_HD inline void generate_query(const RandomStream& keys, const RandomStream& noise,
                                       std::int64_t needle, int dim, double query_noise,
                                       double* query) {
  generate_key(keys, needle, dim, query);
  const double scale = query_noise / std::sqrt(static_cast<double>(dim));
  for (int c = 0; c < dim; c += 2) {
    const auto pair =
        noise.normal_pair(static_cast<std::uint32_t>(needle), static_cast<std::uint32_t>(c / 2));
    query[c] += scale * pair.x;
    if (c + 1 < dim) query[c + 1] += scale * pair.y;
  }
}

/// Content term xi_t ~ N(0, 1) of the gate at position t.
PHASESIM_HD inline double content_noise_at(const RandomStream& content, std::int64_t t) {
  return content.normal(static_cast<std::uint32_t>(t), 0);
}

/// The gate of one entry. Slots before `first_slot` lie at negative positions and do not
/// exist; with content noise tau, slot s gets logit log(g_s) + tau * xi[s] (zero weights stay
/// zero). The softmax renormalizes over what remains; when nothing remains every weight is 0
/// and the entry pools nothing. `xi` holds the content noise by slot (unread when tau == 0).
PHASESIM_HD inline void entry_gate(const double* gate, int window, int first_slot, double tau,
                                   const double* xi, double* out) {
  double top = 0;
  bool any = false;
  for (int s = first_slot; s < window; ++s) {
    if (gate[s] <= 0) continue;
    const double logit = std::log(gate[s]) + (tau > 0 ? tau * xi[s] : 0.0);
    if (!any || logit > top) top = logit;
    any = true;
  }
  double total = 0;
  for (int s = 0; s < window; ++s) {
    const bool live = s >= first_slot && gate[s] > 0;
    out[s] = live ? std::exp(std::log(gate[s]) + (tau > 0 ? tau * xi[s] : 0.0) - top) : 0.0;
    total += out[s];
  }
  for (int s = 0; s < window; ++s) out[s] = any ? out[s] / total : 0.0;
}

/// out = sum_s weights[s] * row(first_position + s) of a ring buffer holding the key of
/// position t in row t mod W; zero weights are skipped (their rows may be stale).
PHASESIM_HD inline void pool_entry(const double* weights, int window, const double* ring, int dim,
                                   std::int64_t first_position, double* out) {
  for (int c = 0; c < dim; ++c) out[c] = 0;
  for (int s = 0; s < window; ++s) {
    if (weights[s] == 0) continue;
    const double* key = ring + ((first_position + s) % window) * dim;
    for (int c = 0; c < dim; ++c) out[c] += weights[s] * key[c];
  }
}

PHASESIM_HD inline double dot(const double* a, const double* b, int dim) {
  double sum = 0;
  for (int c = 0; c < dim; ++c) sum += a[c] * b[c];
  return sum;
}

/// RMS normalization v <- v / sqrt(mean(v^2)); a zero vector (an entry that pools nothing)
/// stays zero.
PHASESIM_HD inline void rms_normalize(double* v, int dim) {
  const double sum_sq = dot(v, v, dim);
  if (sum_sq == 0) return;
  const double scale = std::sqrt(static_cast<double>(dim) / sum_sq);
  for (int c = 0; c < dim; ++c) v[c] *= scale;
}

/// True when entry j pools position p (false for j < 0: no entry).
PHASESIM_HD inline bool entry_contains(const Geometry& geometry, std::int64_t j, std::int64_t p) {
  const std::int64_t first = geometry.position(j, 0);
  return j >= 0 && p >= first && p < first + geometry.window;
}

/// True when position t, first pooled by entry j at slot s (later entries hold it at slots
/// s - S, s - 2S, ...), has positive weight in some entry: only those keys are ever read.
PHASESIM_HD inline bool position_weighted(const Geometry& geometry, const double* gate, int slot) {
  for (int s = slot; s >= 0; s -= geometry.stride) {
    if (gate[s] > 0) return true;
  }
  return false;
}

/// One head of the full-vector model: its geometry, gate and the model's parameters.
struct FullVectorHead {
  Geometry geometry;
  const double* gate = nullptr;  ///< W weights g = softmax(b), summing to 1
  std::int64_t entries = 0;      ///< N_c: the argmax runs over entries 0..N_c-1
  int dim = 0;                   ///< d
  double query_noise = 0;        ///< sigma_q
  double content_noise = 0;      ///< tau
  bool rms_norm = false;         ///< RMS-normalize every pooled entry
};

/// Caller-owned scratch of one trial (per thread on the CPU, per thread or block on a GPU):
/// memory O(W * d), independent of the context length.
struct FullVectorWorkspace {
  double* keys;     ///< W x d ring buffer: the key of position t in row t mod W
  double* xi;       ///< W: content noise of the same positions
  double* query;    ///< d
  double* pooled;   ///< d: the current entry
  double* weights;  ///< W: the current entry's gate
  double* slot_xi;  ///< W: the current entry's content noise by slot

  /// Doubles a workspace for windows up to W and dimension d needs, laid out as above (a
  /// head with a smaller window uses the first rows of the ring and of each W-array).
  PHASESIM_HD static std::int64_t size(int window, int dim) {
    return static_cast<std::int64_t>(window + 2) * dim + 3 * window;
  }
  /// Carves a workspace out of `size(window, dim)` doubles.
  PHASESIM_HD static FullVectorWorkspace carve(double* memory, int window, int dim) {
    double* keys = memory;
    double* xi = keys + static_cast<std::int64_t>(window) * dim;
    double* query = xi + window;
    double* pooled = query + dim;
    double* weights = pooled + dim;
    return {keys, xi, query, pooled, weights, weights + window};
  }
};

/// Streams the positions of entry j that no earlier entry held into the ring buffer: keys
/// and content noise, only where some entry weights them. Returns the next new position.
PHASESIM_HD inline std::int64_t stream_entry_positions(const FullVectorHead& head,
                                                       const RandomStream& keys,
                                                       const RandomStream& content, std::int64_t j,
                                                       std::int64_t next, FullVectorWorkspace ws) {
  const auto& g = head.geometry;
  const std::int64_t first = g.position(j, 0);
  std::int64_t t = first > next ? first : next;
  if (t < 0) t = 0;
  for (; t < first + g.window; ++t) {
    if (!position_weighted(g, head.gate, static_cast<int>(t - first))) continue;
    const std::int64_t row = t % g.window;
    generate_key(keys, t, head.dim, ws.keys + row * head.dim);
    if (head.content_noise > 0) ws.xi[row] = content_noise_at(content, t);
  }
  return first + g.window;
}

/// Logit <q, K_j> of entry j, whose positions are already in the ring buffer.
PHASESIM_HD inline double entry_logit(const FullVectorHead& head, std::int64_t j,
                                      FullVectorWorkspace ws) {
  const auto& g = head.geometry;
  const int W = g.window;
  const std::int64_t first = g.position(j, 0);
  const int first_slot = g.first_existing_slot(j);
  if (head.content_noise > 0) {
    for (int s = first_slot; s < W; ++s) {
      if (head.gate[s] > 0) ws.slot_xi[s] = ws.xi[(first + s) % W];
    }
  }
  entry_gate(head.gate, W, first_slot, head.content_noise, ws.slot_xi, ws.weights);
  pool_entry(ws.weights, W, ws.keys, head.dim, first, ws.pooled);
  if (head.rms_norm) rms_normalize(ws.pooled, head.dim);
  return dot(ws.query, ws.pooled, head.dim);
}

/// The argmax of <q, K_j> over entries begin..end-1 for head `head_index` in `trial` and a
/// needle at p, keys regenerated position by position. Each logit is computed from the same
/// keys in the same order whatever range it is scanned in, so a kernel may split the N_c
/// entries into ranges, one per thread, and merge their argmaxes (Argmax::merge) into the
/// full scan's answer, bit for bit.
PHASESIM_HD inline Argmax full_vector_argmax(const FullVectorHead& head, std::uint64_t seed,
                                             std::uint32_t trial, std::uint32_t head_index,
                                             std::int64_t needle, std::int64_t begin,
                                             std::int64_t end, FullVectorWorkspace ws) {
  const RandomStream keys(seed, trial, head_index, Stream::key);
  const RandomStream noise(seed, trial, head_index, Stream::query_noise);
  const RandomStream content(seed, trial, head_index, Stream::content_noise);
  generate_query(keys, noise, needle, head.dim, head.query_noise, ws.query);
  Argmax best;
  std::int64_t next = 0;  // the range's first entry streams all of its positions
  for (std::int64_t j = begin; j < end; ++j) {
    next = stream_entry_positions(head, keys, content, j, next, ws);
    best.offer(j, entry_logit(head, j, ws));
  }
  return best;
}

/// The entry head `head_index` attends to in `trial` for a needle at p: the argmax of
/// <q, K_j> over all N_c entries.
PHASESIM_HD inline Argmax full_vector_argmax(const FullVectorHead& head, std::uint64_t seed,
                                             std::uint32_t trial, std::uint32_t head_index,
                                             std::int64_t needle, FullVectorWorkspace ws) {
  return full_vector_argmax(head, seed, trial, head_index, needle, 0, head.entries, ws);
}

/// Keys a scan of all N_c entries generates, the query's aside: entry j streams positions
/// jS..jS+S-1, the one of phase phi at slot W - S + phi, and generates it when some entry
/// weights it. The work measure behind gpu-check's key-vectors per second.
inline std::int64_t scanned_keys(const FullVectorHead& head) {
  const auto& g = head.geometry;
  std::int64_t phases = 0;
  for (int slot = g.window - g.stride; slot < g.window; ++slot) {
    if (slot >= 0 && position_weighted(g, head.gate, slot)) ++phases;
  }
  return head.entries * phases;
}

}  // namespace phasesim
