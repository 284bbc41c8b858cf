// The streaming-rms path: the full-vector model with --rms-norm and shared tokens, O(L (W/S + S))
// a trial, none per dimension (sim/ENGINES.md, "The streaming-rms path").
#include "phasesim/core/portable_math.hpp"
#include "sampler.hpp"
#include "streaming.hpp"

namespace phasesim::engines::fast {
namespace {

// What a position draws on the streaming-rms path, from the token stream: normal c of
// position p is normal_pair_float(p, c / 2)[c % 2], c = kAlong (a_p), kChiNormal and the pair
// kChiPair, kChiPair + 1 (one attempt at the remainder's chi-square), then the frame
// coordinates from kFirstCoordinate, then xi_p (content noise). Further chi-square attempts,
// rare, draw pairs (p, kRetryBlock + 2 (attempt - 1)) and the next: no block of a position is
// read twice.
constexpr int kAlong = 0, kChiNormal = 1, kChiPair = 2, kFirstCoordinate = 4;
constexpr std::uint32_t kRetryBlock = 1u << 16;

// The length of position p's remainder outside a frame: sqrt of chi^2_{D-k}.
double remainder_length(const ChiSquare& chi, const PositionDraws::Row& row,
                        const RandomStream& stream, std::int64_t p) {
  const double z1 = row[kChiPair], z2 = row[kChiPair + 1];
  const auto retry = [&](int attempt) {
    const auto block = kRetryBlock + 2 * static_cast<std::uint32_t>(attempt - 1);
    const auto index = static_cast<std::uint32_t>(p);
    const auto pair = stream.normal_pair(index, block + 1);
    return NormalAndExponential{stream.normal_pair(index, block).x,
                                (pair.x * pair.x + pair.y * pair.y) / 2};
  };
  return std::sqrt(chi.sample(row[kChiNormal], (z1 * z1 + z2 * z2) / 2, retry));
}

// The needle's key given q: a_p and |r_p| as sampled. r_p's direction is uniform given q (the
// law of k_p given q is invariant under the rotations that fix q) and independent of every
// other key, so it is drawn as a Gaussian vector's, in the frame like any r, scaled to |r_p|.
struct Needle {
  std::int64_t position;
  double along;
  double across;
};

// What position p adds to the open entries, before their weights: a, and r as its coordinates
// z in the frame (ws-owned, frame.dimension() of them) and its remainder.
struct PositionDraw {
  double along;
  double remainder;
};

PositionDraw draw_position(const std::vector<ChiSquare>& remainders, const Needle& needle,
                           std::int64_t p, const PositionDraws::Row& row,
                           const RandomStream& stream, const PooledFrame& frame, double* z) {
  const int k = frame.dimension();
  PHASESIM_ASSERT(k < static_cast<int>(remainders.size()));  // plan_frame's bound on the frame
  for (int c = 0; c < k; ++c) z[c] = row[kFirstCoordinate + c];
  double remainder = frame.has_remainder()
                         ? remainder_length(remainders[static_cast<std::size_t>(k)], row, stream, p)
                         : 0.0;
  double a = row[kAlong];
  if (p == needle.position) {
    double squared = remainder * remainder;
    for (int c = 0; c < k; ++c) squared += z[c] * z[c];
    const double scale = squared > 0 ? needle.across / std::sqrt(squared) : 0.0;
    for (int c = 0; c < k; ++c) z[c] *= scale;
    remainder *= scale;
    a = needle.along;
  }
  return {a, remainder};
}

// Weights of a position in `count` open entries, the oldest holding it at `slot` (each next
// one S slots earlier), from the gate's g_s or, with content noise, from its log g_s: g_s, or
// log g_s + tau xi for PooledFrame::add_logs (the softmax unnormalized, which cannot change a
// normalized logit; exp(tau xi) alone overflows for large tau). False when no g_s is positive:
// the position is not drawn.
bool position_weights(const double* gate, int stride, int slot, int count, double tau, double xi,
                      double* out) {
  bool any = false;
  for (int i = 0; i < count; ++i, slot -= stride) {
    out[i] = gate[slot];
    if (tau > 0) {
      any = any || out[i] != PooledFrame::kNoWeight;
      out[i] += tau * xi;
    } else {
      any = any || out[i] > 0;
    }
  }
  return any;
}

// The normalized logit of a pooled entry, up to the common factor |q|: its cosine to q (0 for
// an entry that pools nothing, as the full engine scores it).
double cosine(const PooledFrame::Pooled& pooled) {
  const double squared = pooled.along * pooled.along + pooled.across_squared;
  return squared > 0 ? pooled.along / std::sqrt(squared) : 0.0;
}

}  // namespace

// The frame of the streaming-rms path. After an entry closes, the entries still open (at most
// ceil(W/S) - 1, all holding its last position) leave at most as many axes, and the S positions
// up to the next close add one each: a frame of ceil(W/S) + S - 1 axes never fills in the
// interior. Near position 0 it may: it is then compressed before the entries that open at the
// position join, to at most ceil(W/S) - 1 + (S > 1) <= capacity - 1 axes. A frame spans at most
// the D = d - 1 dimensions orthogonal to q, where a position has no remainder.
void plan_frame(Head& h, int dim) {
  const auto& g = h.geometry;
  const int space = dim - 1;
  h.max_open = (g.window + g.stride - 1) / g.stride;
  h.frame_capacity = std::min(space, h.max_open + g.stride - 1);
  h.frame_coords = h.frame_capacity < space ? h.frame_capacity - 1 : space;
  h.draw_blocks = (kFirstCoordinate + h.frame_coords + (h.tau > 0 ? 1 : 0) + 1) / 2;
  for (int k = 0; k <= h.frame_coords; ++k) h.remainders.emplace_back(space - k);
  for (const double w : h.weights) {
    h.log_weights.push_back(w > 0 ? portable::log(w) : PooledFrame::kNoWeight);
  }
}

// Full-vector model with --rms-norm, any gate (shared tokens, content noise, boundaries): given
// q, positions in order, each entry pooled as A e + R while its window is open, R in a
// PooledFrame of at most ceil(W/S) + S - 1 axes (sim/ENGINES.md derives it). O(W/S + S) normals
// a position, none per dimension; the argmax of the cosines over all N_c entries.
bool sample_streaming_rms(const Sampler& s, const Head& h, const Trial& t, Workspace& ws) {
  const auto& g = h.geometry;
  const double a_p = s.sample_query(t, ws).needle;
  const double r_p = std::sqrt(std::max(0.0, s.dim() * ws.key.squaredNorm() - a_p * a_p));
  const Needle needle{t.needle, a_p, r_p};
  PositionDraws draws(s.stream(t, Stream::token), h.draw_blocks, ws.draws);
  auto& frame = ws.frames[static_cast<std::size_t>(t.head)];
  frame.clear();
  niah::Argmax best;
  std::int64_t opened = 0;  // entries opened so far: the open ones end at opened - 1
  const std::int64_t last = g.position(h.entries - 1, g.window - 1);
  for (std::int64_t p = 0; p <= last; ++p) {
    const std::int64_t oldest = opened - frame.open_entries();
    std::int64_t newest = opened;
    while (newest < h.entries && g.position(newest, 0) <= p) ++newest;
    const auto row = draws.row(p);
    const double xi = h.tau > 0 ? row[kFirstCoordinate + h.frame_coords] : 0.0;
    const bool drawn =
        position_weights(h.tau > 0 ? h.log_weights.data() : h.weights.data(), g.stride,
                         static_cast<int>(p - g.position(oldest, 0)),
                         static_cast<int>(newest - oldest), h.tau, xi, ws.gate.data());
    if (drawn && frame.full()) frame.compress();  // before the new entries: see plan_frame
    for (; opened < newest; ++opened) frame.open();
    if (drawn) {
      const auto drawn_at =
          draw_position(h.remainders, needle, p, row, draws.stream(), frame, ws.across.data());
      if (h.tau > 0) {
        frame.add_logs(ws.gate.data(), drawn_at.along, ws.across.data(), drawn_at.remainder);
      } else {
        frame.add(ws.gate.data(), drawn_at.along, ws.across.data(), drawn_at.remainder);
      }
    }
    bool closed = false;
    for (std::int64_t j = opened - frame.open_entries();
         j < opened && g.position(j, g.window - 1) == p; ++j) {
      best.offer(j, cosine(frame.close_oldest()));
      closed = true;
    }
    if (closed) frame.compress();
  }
  return g.holds(best.entry, t.needle);
}

}  // namespace phasesim::engines::fast
