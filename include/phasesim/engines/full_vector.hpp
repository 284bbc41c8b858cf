#pragma once
// The full-vector model of one head in one trial (MODEL.md section 4), written once for
// the CPU `full` engine, its double-precision reference and the CUDA kernel: PHASESIM_HD
// inline functions over plain pointers, with no allocation, no exceptions and no Eigen.
// Every random number comes from a RandomStream keyed by (seed, trial, head, stream) with
// index = position:
//   key k_t       component c = (1 / sqrt(d)) * normal(t, c)            Stream::key
//   query noise   component c = (sigma_q / sqrt(d)) * normal(p, c)      Stream::query_noise
//   content xi_t  normal(t, 0)                                         Stream::content_noise
//   split key     k''_t, drawn as k_t: the token's older key is rho k_t + sqrt(1 - rho^2) k''_t
//                                                                      Stream::split_key
//
// scan_full_vector is the per-trial scan, once, over an "Ops" policy that draws a key row
// and computes an entry's logit:
//   FloatOps   floats from the block formulas (float_normal.hpp), pooled entries and logits
//              in float with every sum in a fixed order (16 partial sums, one tree): the CUDA
//              kernel runs it, and the CPU engine's SIMD code (full_vector_simd.hpp) computes
//              the same operations in the same order, so the two give the same bits;
//   DoubleOps  RandomStream::normal_pair and double throughout: the reference the float
//              engine is measured against (`phasesim precision-check`).
#include <cmath>
#include <cstdint>

#include "phasesim/core/host_device.hpp"
#include "phasesim/core/portable_math.hpp"
#include "phasesim/core/random.hpp"
#include "phasesim/core/strided.hpp"
#include "phasesim/model/geometry.hpp"
#include "phasesim/model/softmax.hpp"
#include "phasesim/niah/argmax.hpp"

namespace phasesim::engines {

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
/// zero). The softmax (model/softmax.hpp) renormalizes over what remains; when nothing remains
/// every weight is 0 and the entry pools nothing. `xi` holds the content noise by slot (unread
/// when tau == 0, and at slots that do not pool); xi and out are pointers or Strided arrays.
/// log is portable_math.hpp's, as the softmax's exp: glibc's differ from one CPU to another in
/// the last bit, and CUDA's from both.
template <class In, class Out>
PHASESIM_HD inline void entry_gate(const double* gate, int window, int first_slot, double tau,
                                   In xi, Out out) {
  if (!(tau > 0)) {  // the weights g_s renormalized by a division: no exp or log
    for (int s = 0; s < window; ++s) out[s] = s >= first_slot && gate[s] > 0 ? gate[s] : 0.0;
    normalize_weights(out, window);
    return;
  }
  for (int s = 0; s < window; ++s) {
    const bool live = s >= first_slot && gate[s] > 0;
    out[s] = live ? portable::log(gate[s]) + tau * xi[s] : kMaskedLogit;
  }
  softmax(out, window, out);
}

/// True when position t, first pooled by entry j at slot s (later entries hold it at slots
/// s - S, s - 2S, ...), has positive weight in some entry: only those keys are ever read.
PHASESIM_HD inline bool position_weighted(const Geometry& geometry, const double* gate, int slot) {
  for (int s = slot; s >= 0; s -= geometry.stride) {
    if (gate[s] > 0) return true;
  }
  return false;
}

/// One head of the full-vector model: its geometry, gate and the model's parameters. A
/// per-channel gate (MODEL.md section 9) pools channels [group_ends[k - 1], group_ends[k]) of
/// every key with group k's weights; `gate` is then the groups' mean, positive on every slot
/// some group weights.
struct FullVectorHead {
  Geometry geometry;
  const double* gate = nullptr;         ///< W weights g = softmax(b), summing to 1
  std::int64_t entries = 0;             ///< N_c: the argmax runs over entries 0..N_c-1
  int dim = 0;                          ///< d
  double query_noise = 0;               ///< sigma_q
  double content_noise = 0;             ///< tau
  bool rms_norm = false;                ///< RMS-normalize every pooled entry
  int groups = 0;                       ///< channel groups; 0: one gate for every channel
  const double* group_gates = nullptr;  ///< groups x W: group k's weights from k * W
  const int* group_ends = nullptr;      ///< groups: the end of each group's channels
  /// Split projections: slots s < W - S (older than the entry's own chunk) pool a token's
  /// older key rho k_t + sqrt(1 - rho^2) k''_t; 1: every slot pools k_t.
  double split_rho = 1;
  /// The head whose keys, content noise and older keys it reads (query heads of one cache:
  /// NiahModel::key_heads); -1: its own. Its query noise is always its own.
  int key_head = -1;

  /// Slots below this one pool older keys (0 without split projections).
  PHASESIM_HD int older_slots() const { return split_rho < 1 ? geometry.older_slots() : 0; }
};

/// What a scan workspace holds beyond every head's needs: weights per channel when some head
/// has channel groups, older keys when some head splits its projections.
struct ScanNeeds {
  bool per_channel = false;
  bool split = false;
};

/// Partial sums of the float reductions: component c adds into sum c mod 16 and the 16 sums
/// meet in one fixed tree, so SIMD of any width (4, 8 or 16 floats), the scalar code and the
/// GPU add in the same order. A key row is padded with zeros to a multiple of 16.
inline constexpr int kReduceLanes = 16;

PHASESIM_HD inline int padded_dim(int dim) {
  return (dim + kReduceLanes - 1) / kReduceLanes * kReduceLanes;
}

/// sums[0] + ... + sums[15] by the tree (l, l + 8), (l, l + 4), (l, l + 2), (l, l + 1).
template <typename Real>
PHASESIM_HD inline Real reduce_lanes(Real* sums) {
  for (int width = kReduceLanes / 2; width > 0; width /= 2) {
    for (int l = 0; l < width; ++l) sums[l] = sums[l] + sums[l + width];
  }
  return sums[0];
}

/// Row of position t in a ring of W rows: t mod W in [0, W) (t may be negative). The scans
/// step rows with ring_next instead of dividing per position: a 64-bit division costs as much
/// as the pooling it would index.
PHASESIM_HD inline int ring_row(std::int64_t t, int window) {
  const auto r = static_cast<int>(t % window);
  return r < 0 ? r + window : r;
}
PHASESIM_HD inline int ring_next(int row, int window) { return row + 1 == window ? 0 : row + 1; }

/// Caller-owned scratch of one scan (per thread on the CPU, per GPU thread): O(W d) numbers,
/// independent of the context length. `row` numbers hold one key (d, padded by the Ops).
template <typename Real>
struct ScanWorkspace {
  Strided<Real> keys;       ///< W rows: the key of position t in row t mod W
  Strided<Real> query;      ///< one row
  Strided<Real> pooled;     ///< one row: the current entry (DoubleOps)
  Strided<Real> xi;         ///< W: content noise of the positions in the ring
  Strided<Real> weights;    ///< W: the current entry's gate
  Strided<Real> interior;   ///< W: the gate of an entry with every slot, without content noise
  Strided<double> gate;     ///< W: entry_gate's output
  Strided<double> slot_xi;  ///< W: the current entry's content noise by slot
  /// W rows, a weight per channel (per-channel gates only: carved when reals() counted them):
  /// the current entry's, and an entry's with every slot and no content noise.
  Strided<Real> channel_weights;
  Strided<Real> channel_interior;
  /// W rows: the older key of position t in row t mod W (split projections only).
  Strided<Real> older_keys;
  int row = 0;

  /// Reals and doubles a workspace for windows up to W and rows of `row` numbers needs, laid
  /// out as carve does (a head with a smaller window uses the first rows of the ring and of
  /// each W-array: carve with the largest window of the heads), with what `needs` adds.
  PHASESIM_HD static std::int64_t reals(int window, int row, ScanNeeds needs) {
    const auto rows = static_cast<std::int64_t>(window) * row;
    return rows + 2 * row + 3 * window + (needs.per_channel ? 2 * rows : 0) +
           (needs.split ? rows : 0);
  }
  PHASESIM_HD static std::int64_t doubles(int window) { return 2 * window; }
  /// Carves a workspace out of reals(W, row, needs) and doubles(W) elements of stride `stride`.
  PHASESIM_HD static ScanWorkspace carve(Real* reals, double* doubles, int window, int row,
                                         ScanNeeds needs, int stride = 1) {
    const Strided<Real> r{reals, stride};
    const Strided<double> d{doubles, stride};
    const auto rows = static_cast<std::int64_t>(window) * row;
    const auto channels = r + rows + 2 * row + 3 * window;
    const auto older = channels + (needs.per_channel ? 2 * rows : 0);
    return {r,
            r + rows,
            r + rows + row,
            r + rows + 2 * row,
            r + rows + 2 * row + window,
            r + rows + 2 * row + 2 * window,
            d,
            d + window,
            channels,
            channels + rows,
            older,
            row};
  }
};

/// What an entry pools with: a weight per slot, and with channel groups a weight per slot and
/// channel (row s, channel c at channels[s * row + c]; `slots` is then positive where some
/// channel weights the slot). channels.data is null for one gate.
template <typename Real>
struct EntryWeights {
  Strided<Real> slots;
  Strided<Real> channels;
  PHASESIM_HD bool per_channel() const { return channels.data != nullptr; }
};

/// The rings an entry pools from: the key of position t in row t mod W of `keys`, and for the
/// slots below `older_slots` (split projections) its older key, in `older`.
struct KeyRings {
  const double* keys = nullptr;
  const double* older = nullptr;
  int older_slots = 0;
};

/// out[c] = sum_s w_{s,c} key_s[c] for the entry whose slot s holds position first_position + s,
/// with w_{s,c} = weights[s], or channels[s * dim + c] when channels is not null; slots whose
/// `weights` entry is 0 are skipped (their rows may be stale).
PHASESIM_HD inline void pool_entry(const double* weights, const double* channels, int window,
                                   const KeyRings& rings, int dim, std::int64_t first_position,
                                   double* out) {
  for (int c = 0; c < dim; ++c) out[c] = 0;
  for (int s = 0; s < window; ++s) {
    if (weights[s] == 0) continue;
    const double* ring = s < rings.older_slots ? rings.older : rings.keys;
    const double* key = ring + ((first_position + s) % window) * dim;
    const double* w = channels ? channels + static_cast<std::int64_t>(s) * dim : nullptr;
    for (int c = 0; c < dim; ++c) out[c] += (w ? w[c] : weights[s]) * key[c];
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

/// Float keys and logits by the block formulas (see the top of this file).
struct FloatOps {
  using Real = float;
  PHASESIM_HD static int row_size(int dim) { return padded_dim(dim); }

  /// Rows r < rows of `row` floats: out[r * row + c] = scale * normal(first + r, c) in float,
  /// c < dim.
  PHASESIM_HD static void key_rows(const RandomStream& stream, std::int64_t first, int rows,
                                   int dim, double scale, Strided<float> out, int row) {
    const auto s = static_cast<float>(scale);
    for (int r = 0; r < rows; ++r) {
      const auto index = static_cast<std::uint32_t>(first + r);
      for (int c = 0; c < dim; c += 2) {
        const auto pair = stream.normal_pair_float(index, static_cast<std::uint32_t>(c / 2), s);
        out[r * row + c] = pair.x;
        if (c + 1 < dim) out[r * row + c + 1] = pair.y;
      }
    }
  }

  PHASESIM_HD static float content(const RandomStream& stream, std::int64_t t) {
    return stream.normal_pair_float(static_cast<std::uint32_t>(t), 0).x;
  }

  /// <q, K_j> (RMS-normalized: times sqrt(d / |K_j|^2)) of the entry whose slot s holds
  /// position first + s, pooled with weights w (zero weights skipped: their rows may be stale).
  PHASESIM_HD static float entry_logit(const FullVectorHead& head, const ScanWorkspace<float>& ws,
                                       EntryWeights<float> w, std::int64_t first) {
    const int W = head.geometry.window;
    const int base = ring_row(first, W);
    const int older = head.older_slots();
    float dots[kReduceLanes] = {};
    float squares[kReduceLanes] = {};
    for (int c0 = 0; c0 < ws.row; c0 += kReduceLanes) {
      for (int l = 0; l < kReduceLanes; ++l) {
        float pooled = 0;
        for (int s = 0, r = base; s < W; ++s, r = ring_next(r, W)) {
          if (w.slots[s] == 0) continue;
          const float weight = w.per_channel() ? w.channels[s * ws.row + c0 + l] : w.slots[s];
          const auto& ring = s < older ? ws.older_keys : ws.keys;
          pooled = pooled + weight * ring[r * ws.row + c0 + l];
        }
        dots[l] = dots[l] + ws.query[c0 + l] * pooled;
        squares[l] = squares[l] + pooled * pooled;
      }
    }
    return rms_scaled(reduce_lanes(dots), head.rms_norm ? reduce_lanes(squares) : -1.0f, head.dim);
  }

  /// The logit of an entry with sum of squares `squares` after RMS normalization (squares < 0:
  /// no normalization; an entry that pools nothing scores 0).
  PHASESIM_HD static float rms_scaled(float logit, float squares, int dim) {
    if (squares < 0) return logit;
    return squares > 0 ? logit * sqrtf(static_cast<float>(dim) / squares) : 0.0f;
  }
};

/// The double-precision reference: RandomStream::normal_pair, pooled entries and logits in
/// double, summed in component order. CPU only (stride 1).
struct DoubleOps {
  using Real = double;
  PHASESIM_HD static int row_size(int dim) { return dim; }

  PHASESIM_HD static void key_rows(const RandomStream& stream, std::int64_t first, int rows,
                                   int dim, double scale, Strided<double> out, int row) {
    for (int r = 0; r < rows; ++r) {
      fill_normals(stream, static_cast<std::uint32_t>(first + r), dim, scale, out.data + r * row);
    }
  }

  PHASESIM_HD static double content(const RandomStream& stream, std::int64_t t) {
    return content_noise_at(stream, t);
  }

  PHASESIM_HD static double entry_logit(const FullVectorHead& head, const ScanWorkspace<double>& ws,
                                        EntryWeights<double> w, std::int64_t first) {
    const KeyRings rings{ws.keys.data, ws.older_keys.data, head.older_slots()};
    pool_entry(w.slots.data, w.channels.data, head.geometry.window, rings, head.dim, first,
               ws.pooled.data);
    if (head.rms_norm) rms_normalize(ws.pooled.data, head.dim);
    return dot(ws.query.data, ws.pooled.data, head.dim);
  }
};

/// Row s of `out` (rows of `row` numbers) gets gate[s] on the channels of group k.
template <typename Real, class Gate>
PHASESIM_HD inline void expand_group(const FullVectorHead& head, int k, Gate gate,
                                     Strided<Real> out, int row) {
  const int begin = k == 0 ? 0 : head.group_ends[k - 1];
  for (int s = 0; s < head.geometry.window; ++s) {
    const auto weight = static_cast<Real>(gate[s]);
    for (int c = begin; c < head.group_ends[k]; ++c) out[s * row + c] = weight;
  }
}

/// Before a scan: the query q = k_p + eps, zero padding in every row, the interior gate (and
/// its weight per channel; the padding channels' stay 0).
template <class Ops>
PHASESIM_HD inline void prepare_scan(const FullVectorHead& head, const RandomStream& keys,
                                     const RandomStream& noise, std::int64_t needle,
                                     const ScanWorkspace<typename Ops::Real>& ws) {
  using Real = typename Ops::Real;
  const int W = head.geometry.window;
  for (int r = 0; r < W; ++r) {
    for (int c = head.dim; c < ws.row; ++c) ws.keys[r * ws.row + c] = 0;
  }
  for (int c = head.dim; c < ws.row; ++c) ws.query[c] = 0;
  const double root = std::sqrt(static_cast<double>(head.dim));
  Ops::key_rows(keys, needle, 1, head.dim, 1 / root, ws.query, ws.row);
  Ops::key_rows(noise, needle, 1, head.dim, head.query_noise / root, ws.keys, ws.row);  // scratch
  for (int c = 0; c < head.dim; ++c) ws.query[c] = ws.query[c] + ws.keys[c];
  for (int s = 0; s < W; ++s) ws.interior[s] = static_cast<Real>(head.gate[s]);
  for (int k = 0; k < head.groups; ++k) {
    expand_group(head, k, head.group_gates + static_cast<std::int64_t>(k) * W, ws.channel_interior,
                 ws.row);
  }
  for (int r = 0; head.groups > 0 && r < W; ++r) {
    for (int c = head.dim; c < ws.row; ++c) {
      ws.channel_interior[r * ws.row + c] = 0;
      ws.channel_weights[r * ws.row + c] = 0;
    }
  }
  for (int r = 0; head.older_slots() > 0 && r < W; ++r) {
    for (int c = head.dim; c < ws.row; ++c) ws.older_keys[r * ws.row + c] = 0;
  }
}

/// Split projections: rows r < rows of `older`, which hold k''_t, become the older keys
/// rho k_t + sqrt(1 - rho^2) k''_t, component by component in Real (the same operations in
/// every Ops, so the SIMD engine and the kernel keep FloatOps's bits).
template <typename Real>
PHASESIM_HD inline void mix_older_rows(const FullVectorHead& head, Strided<Real> keys,
                                       Strided<Real> older, int rows, int row) {
  const auto rho = static_cast<Real>(head.split_rho);
  const auto rest = static_cast<Real>(std::sqrt(1 - head.split_rho * head.split_rho));
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < head.dim; ++c) {
      older[r * row + c] = rho * keys[r * row + c] + rest * older[r * row + c];
    }
  }
}

/// Streams the positions of entry j that no earlier entry held into the ring buffer: keys (and
/// older keys, with split projections) and content noise, only where some entry weights them,
/// keys a run of consecutive positions (consecutive rows) per Ops call. Returns the next new
/// position.
template <class Ops>
PHASESIM_HD inline std::int64_t stream_entry_positions(
    const FullVectorHead& head, const RandomStream& keys, const RandomStream& split,
    const RandomStream& content, std::int64_t j, std::int64_t next,
    const ScanWorkspace<typename Ops::Real>& ws) {
  const auto& g = head.geometry;
  const std::int64_t first = g.position(j, 0);
  const double scale = 1 / std::sqrt(static_cast<double>(head.dim));
  std::int64_t t = first > next ? first : next;
  if (t < 0) t = 0;
  std::int64_t run = 0;  // positions t - run .. t - 1 wait for their keys
  int run_row = 0;
  for (int row = ring_row(t, g.window); t <= first + g.window;
       ++t, row = ring_next(row, g.window)) {
    const bool weighted =
        t < first + g.window && position_weighted(g, head.gate, static_cast<int>(t - first));
    if (run > 0 && (!weighted || row == 0)) {
      const auto offset = static_cast<std::int64_t>(run_row) * ws.row;
      Ops::key_rows(keys, t - run, static_cast<int>(run), head.dim, scale, ws.keys + offset,
                    ws.row);
      if (head.older_slots() > 0) {
        Ops::key_rows(split, t - run, static_cast<int>(run), head.dim, scale,
                      ws.older_keys + offset, ws.row);
        mix_older_rows(head, ws.keys + offset, ws.older_keys + offset, static_cast<int>(run),
                       ws.row);
      }
      run = 0;
    }
    if (!weighted) continue;
    if (run++ == 0) run_row = row;
    if (head.content_noise > 0) ws.xi[row] = Ops::content(content, t);
  }
  return first + g.window;
}

/// The gate of entry j: the head's gate for an entry with every slot and no content noise,
/// else entry_gate (renormalized over existing slots, content noise from the ring), for each
/// channel group of a per-channel gate.
template <typename Real>
PHASESIM_HD inline EntryWeights<Real> entry_weights(const FullVectorHead& head, std::int64_t j,
                                                    const ScanWorkspace<Real>& ws) {
  const auto& g = head.geometry;
  const int W = g.window;
  const int first_slot = g.first_existing_slot(j);
  const Strided<Real> none{};
  if (head.content_noise == 0 && first_slot == 0) {
    return {ws.interior, head.groups > 0 ? ws.channel_interior : none};
  }
  if (head.content_noise > 0) {
    for (int s = 0, r = ring_row(g.position(j, 0), W); s < W; ++s, r = ring_next(r, W)) {
      if (s >= first_slot && head.gate[s] > 0) ws.slot_xi[s] = ws.xi[r];
    }
  }
  if (head.groups == 0) {
    entry_gate(head.gate, W, first_slot, head.content_noise, ws.slot_xi, ws.gate);
    for (int s = 0; s < W; ++s) ws.weights[s] = static_cast<Real>(ws.gate[s]);
    return {ws.weights, none};
  }
  for (int s = 0; s < W; ++s) ws.weights[s] = 0;
  for (int k = 0; k < head.groups; ++k) {
    entry_gate(head.group_gates + static_cast<std::int64_t>(k) * W, W, first_slot,
               head.content_noise, ws.slot_xi, ws.gate);
    expand_group(head, k, ws.gate, ws.channel_weights, ws.row);
    for (int s = 0; s < W; ++s) ws.weights[s] = ws.gate[s] > 0 ? Real(1) : ws.weights[s];
  }
  return {ws.weights, ws.channel_weights};
}

/// The streams a head's scan reads in a trial: its cache's keys, content noise and older keys
/// (NiahModel::key_heads: query heads of one cache share them) and its own query noise; and
/// the read path's indexer keys and query noise, also its cache's (full_vector_read.hpp).
struct ScanStreams {
  RandomStream keys, noise, content, split, index_keys, index_noise;

  PHASESIM_HD ScanStreams(const FullVectorHead& head, std::uint64_t seed, std::uint32_t trial,
                          std::uint32_t head_index)
      : keys(seed, trial, cache_of(head, head_index), Stream::key),
        noise(seed, trial, head_index, Stream::query_noise),
        content(seed, trial, cache_of(head, head_index), Stream::content_noise),
        split(seed, trial, cache_of(head, head_index), Stream::split_key),
        index_keys(seed, trial, cache_of(head, head_index), Stream::index_key),
        index_noise(seed, trial, cache_of(head, head_index), Stream::index_noise) {}

  PHASESIM_HD static std::uint32_t cache_of(const FullVectorHead& head, std::uint32_t index) {
    return head.key_head < 0 ? index : static_cast<std::uint32_t>(head.key_head);
  }
};

/// The argmax of <q, K_j> over entries begin..end-1 for head `head_index` in `trial` and a
/// needle at p, keys regenerated position by position. Each logit is computed from the same
/// keys in the same order whatever range it is scanned in, so a kernel may split the N_c
/// entries into ranges, one per thread, and merge their argmaxes (Argmax::merge) into the
/// full scan's answer, bit for bit.
template <class Ops>
PHASESIM_HD inline niah::Argmax scan_full_vector(const FullVectorHead& head, std::uint64_t seed,
                                                 std::uint32_t trial, std::uint32_t head_index,
                                                 std::int64_t needle, std::int64_t begin,
                                                 std::int64_t end,
                                                 const ScanWorkspace<typename Ops::Real>& ws) {
  const ScanStreams streams(head, seed, trial, head_index);
  prepare_scan<Ops>(head, streams.keys, streams.noise, needle, ws);
  niah::Argmax best;
  std::int64_t next = 0;  // the range's first entry streams all of its positions
  for (std::int64_t j = begin; j < end; ++j) {
    next = stream_entry_positions<Ops>(head, streams.keys, streams.split, streams.content, j, next,
                                       ws);
    const auto w = entry_weights(head, j, ws);
    best.offer(j, Ops::entry_logit(head, ws, w, head.geometry.position(j, 0)));
  }
  return best;
}

/// Keys a scan of all N_c entries generates, the query's aside: entry j streams positions
/// jS+o..jS+o+S-1 (o: the head's offset), the one at slot W - S + i for i < S, and generates
/// it when some entry weights it. The work measure behind gpu-check's key-vectors per second.
inline std::int64_t scanned_keys(const FullVectorHead& head) {
  const auto& g = head.geometry;
  std::int64_t phases = 0;
  for (int slot = g.window - g.stride; slot < g.window; ++slot) {
    if (slot >= 0 && position_weighted(g, head.gate, slot)) ++phases;
  }
  return head.entries * phases;
}

}  // namespace phasesim::engines
