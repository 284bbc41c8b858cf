// The two-stage-conditional path: the read path (MODEL.md section 10) in the full-vector model
// without shared weighted tokens, content noise or RMS norm, O(n d + N + W) a trial
// (sim/ENGINES.md, "The read path"). As full_vector_read.hpp defines the model: given both
// queries every token's projection on them is an independent normal per channel group, so
// only the places that are not iid are drawn one by one: the needle's entries (its tokens'
// projections exact from their keys), the boundary entries (renormalized gates), and with a
// sliding window the raw tokens and the entries that share them.
#include "phasesim/engines/full_vector.hpp"
#include "phasesim/engines/full_vector_read.hpp"
#include "sampler.hpp"

namespace phasesim::engines::fast {
namespace {

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

// Indices of the trial's Stream::read_path (those of the standardized path are 0 to 3).
enum : std::uint32_t {
  kRestNoise = 4,       // component j: Z of entry j's attention remainder
  kIndexRestNoise = 5,  // component j: Z of its selection score's remainder
  kNeedleOlder = 6,     // component i * G + g: the needle token's older projection's own part
};

// One side of the read (attention or the indexer) of a trial, given its query: Q_G, and the
// needle tokens' projections per group (A_{i,G}, token i at i * G + g).
struct Side {
  std::vector<double> shares;  // Q_G = ||q_G||^2 / ||q||^2
  std::vector<double> needle;  // A_{i,G} = sqrt(d) <q_G, k_{p+i,G}> / ||q||
  double scale = 1;            // sd given q, in units ||q|| / sqrt(d): sqrt(sum Q_G ||g_G||^2)
};

// q = (k_p + ... + k_{p+n-1}) / sqrt(n) + noise (as full_vector_read.hpp's needle_query, in
// double), then Q_G and A_{i,G} for channel ends `ends`.
Side side_of(const RandomStream& keys, const RandomStream& noise, std::int64_t needle, int n,
             int dim, double query_noise, const GroupedGate& gate, Workspace& ws) {
  ws.query.setZero();
  for (int i = 0; i < n; ++i) {
    generate_key(keys, needle + i, dim, ws.key.data());
    ws.query += ws.key;
  }
  ws.query /= std::sqrt(static_cast<double>(n));
  fill_normals(noise, static_cast<std::uint32_t>(needle), dim,
               query_noise / std::sqrt(static_cast<double>(dim)), ws.entry.data());
  ws.query += ws.entry;
  const double norm = ws.query.norm();
  const auto groups = gate.groups.size();
  Side side{std::vector<double>(groups), std::vector<double>(groups * static_cast<std::size_t>(n)),
            0};
  for (std::size_t k = 0, begin = 0; k < groups; ++k) {
    const auto end = static_cast<std::size_t>(gate.ends[k]);
    const auto q =
        ws.query.segment(static_cast<Eigen::Index>(begin), static_cast<Eigen::Index>(end - begin));
    side.shares[k] = q.squaredNorm() / (norm * norm);
    side.scale += side.shares[k] * gate.norms2[k];
    begin = end;
  }
  side.scale = std::sqrt(side.scale);
  const double root = std::sqrt(static_cast<double>(dim));
  for (int i = 0; i < n; ++i) {
    generate_key(keys, needle + i, dim, ws.key.data());
    for (std::size_t k = 0, begin = 0; k < groups; ++k) {
      const auto count = static_cast<Eigen::Index>(gate.ends[k] - static_cast<int>(begin));
      const auto b = static_cast<Eigen::Index>(begin);
      side.needle[static_cast<std::size_t>(i) * groups + k] =
          root * ws.query.segment(b, count).dot(ws.key.segment(b, count)) / norm;
      begin = static_cast<std::size_t>(gate.ends[k]);
    }
  }
  return side;
}

// The recent tokens (the window's and those of the entries that share them), from `first`:
// their projection per group, newer (component g) and older key's own part (G + g).
double recent(const RandomStream& tokens, const Side& side, std::int64_t t, std::size_t g,
              bool older) {
  const auto groups = side.shares.size();
  const auto c = static_cast<std::uint32_t>(older ? groups + g : g);
  return std::sqrt(side.shares[g]) * tokens.normal(static_cast<std::uint32_t>(t), c);
}

// An explicit entry's logit on one side: its weighted slots' projections (the needle's, a
// recent token's, or folded with every other haystack token into one normal remainder).
struct EntrySide {
  const Side& side;
  const GroupedGate& gate;
  double rho = 1, rest = 0;  // split projections (the indexer has none)
  int older_slots = 0;
  std::int64_t recent_from = 0;  // first recent token (past every token: none)
};

double entry_logit(const EntrySide& e, const Geometry& g, std::int64_t j, std::int64_t needle,
                   int n, const RandomStream& tokens, const RandomStream& read,
                   std::uint32_t noise_index) {
  const auto groups = e.gate.groups.size();
  const auto& weights = e.gate.weights_of(j);
  double logit = 0, remainder = 0;
  for (int s = 0; s < g.window; ++s) {
    const std::int64_t t = g.position(j, s);
    const bool older = s < e.older_slots;
    for (std::size_t k = 0; k < groups; ++k) {
      const double w = weights[k][static_cast<std::size_t>(s)];
      if (w == 0) continue;
      if (t >= needle && t < needle + n) {
        const auto i = static_cast<std::size_t>(t - needle);
        double a = e.side.needle[i * groups + k];
        if (older) {
          const auto c = static_cast<std::uint32_t>(i * groups + k);
          a = e.rho * a + e.rest * std::sqrt(e.side.shares[k]) * read.normal(kNeedleOlder, c);
        }
        logit += w * a;
      } else if (t >= e.recent_from) {
        double a = recent(tokens, e.side, t, k, false);
        if (older) a = e.rho * a + e.rest * recent(tokens, e.side, t, k, true);
        logit += w * a;
      } else {
        remainder += w * w * e.side.shares[k];
      }
    }
  }
  return logit + std::sqrt(remainder) * read.normal(noise_index, static_cast<std::uint32_t>(j));
}

}  // namespace

TwoStage sample_two_stage_conditional(const Sampler& s, const Head& h, const Trial& t,
                                      Workspace& ws) {
  const int n = h.needle_tokens;
  const int dim = s.dim();
  const auto attention = side_of(s.stream(t, Stream::key), s.stream(t, Stream::query_noise),
                                 t.needle, n, dim, h.query_noise, h.attention_gate, ws);
  const auto index = side_of(s.stream(t, Stream::index_key), s.stream(t, Stream::index_noise),
                             t.needle, n, dim, h.index_noise, h.index_gate_groups, ws);
  const auto& g = h.geometry;
  const std::int64_t raw_from = h.raw_from;
  // Entries that pool a raw token read it too: from the first whose window reaches it.
  const std::int64_t first_recent =
      h.read.sliding_window > 0
          ? std::max<std::int64_t>(0, floor_div(raw_from - g.offset, g.stride))
          : h.entries;
  const std::int64_t recent_from =
      h.read.sliding_window > 0 ? g.position(first_recent, 0) : h.context;
  const EntrySide main{attention,    h.attention_gate, h.split_rho,
                       h.split_rest, h.older_slots,    recent_from};
  const EntrySide indexer{index, h.index_gate_groups, 1, 0, 0, h.context};
  const auto tokens = s.stream(t, Stream::token);
  const auto read = s.stream(t, Stream::read_path);
  const double rho = h.read.index_rho;
  const double spread = std::sqrt((1 - rho) * (1 + rho));
  // The entries drawn one by one: the boundary's, the needle's, the recent ones.
  auto& list = ws.explicit_entries;
  list.clear();
  const auto add = [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t j = std::max<std::int64_t>(lo, 0); j <= std::min(hi, h.entries - 1); ++j) {
      list.push_back(j);
    }
  };
  add(0, h.boundary_entries - 1);
  add(floor_div(t.needle - g.offset, g.stride),
      floor_div(t.needle + n - 1 - g.offset - g.stride + g.window, g.stride));
  add(first_recent, h.entries - 1);
  std::sort(list.begin(), list.end());
  list.erase(std::unique(list.begin(), list.end()), list.end());
  ws.places.clear();
  for (const auto j : list) {
    const double a = entry_logit(main, g, j, t.needle, n, tokens, read, kRestNoise);
    const double i = entry_logit(indexer, g, j, t.needle, n, tokens, read, kIndexRestNoise);
    const bool needle = holds_needle(g, j, t.needle, n);
    ws.places.push_back({rho * a / attention.scale + spread * i / index.scale, a, needle, false});
  }
  const auto explicit_entries = static_cast<std::int64_t>(list.size());
  for (std::int64_t x = raw_from; x < h.context; ++x) {  // the raw tokens: every channel, newer
    const bool needle = x >= t.needle && x < t.needle + n;
    double a = 0;
    for (std::size_t k = 0; k < attention.shares.size(); ++k) {
      a += needle
               ? attention
                     .needle[static_cast<std::size_t>(x - t.needle) * attention.shares.size() + k]
               : recent(tokens, attention, x, k, false);
    }
    ws.places.push_back({0.0, a, needle, true});
  }
  Rest rest;
  rest.entries = h.entries - explicit_entries;
  rest.scale = attention.scale;
  rest.rho = rho;
  rest.top_k = h.top_k;
  rest.sink = h.read.sink;
  return read_two_stages(ws.places, rest, s.stream(t, Stream::selection));
}

}  // namespace phasesim::engines::fast
