#include "fast_engine.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "monte_carlo.hpp"
#include "phasesim/core/contract.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/core/extremes.hpp"
#include "phasesim/core/normal_block.hpp"
#include "phasesim/core/portable_math.hpp"
#include "phasesim/engines/engine.hpp"
#include "phasesim/engines/full_vector.hpp"

namespace phasesim::engines {
namespace {

constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();

// What a position draws on the streaming-rms path, from the token stream: normal c of
// position p is normal_pair_float(p, c / 2)[c % 2], c = kAlong (a_p), kChiNormal and the pair
// kChiPair, kChiPair + 1 (one attempt at the remainder's chi-square), then the frame
// coordinates from kFirstCoordinate, then xi_p (content noise). Further chi-square attempts,
// rare, draw pairs (p, kRetryBlock + 2 (attempt - 1)) and the next: no block of a position is
// read twice. kRmsBatch positions are drawn at a time.
constexpr int kAlong = 0, kChiNormal = 1, kChiPair = 2, kFirstCoordinate = 4;
constexpr std::uint32_t kRetryBlock = 1u << 16;
constexpr int kRmsBatch = 128;

std::vector<int> support_of(const Gate& gate) {
  std::vector<int> support;
  for (int s = 0; s < gate.window(); ++s) {
    if (gate.weights[static_cast<std::size_t>(s)] > 0) support.push_back(s);
  }
  return support;
}

// True when two weighted slots a < b have one phase: the token an entry holds at slot b is
// held by the entry (b - a) / S later at slot a, so those entries share it.
bool shares_tokens(const Geometry& geometry, const Gate& gate) {
  const auto support = support_of(gate);
  for (std::size_t a = 0; a < support.size(); ++a) {
    for (std::size_t b = a + 1; b < support.size(); ++b) {
      if ((support[b] - support[a]) % geometry.stride == 0) return true;
    }
  }
  return false;
}

double norm_of(const double* w, int count) {
  double sum = 0;
  for (int s = 0; s < count; ++s) sum += w[s] * w[s];
  return std::sqrt(sum);
}

double norm_of(const std::vector<double>& w) {
  return norm_of(w.data(), static_cast<int>(w.size()));
}

}  // namespace

FastPath fast_path(const niah::NiahModel& model, int head) {
  const auto& gate = model.gates[static_cast<std::size_t>(head)];
  const bool noisy = model.content_noise > 0 && support_of(gate).size() > 1;
  if (model.shares_cache(head) && model.full_vector() && model.query_noise > 0) {
    throw InputError("invalid --engine fast: head " + std::to_string(head) +
                     " shares its cache with other query heads, and with --query-noise their "
                     "logits are correlated through the keys, which fast has no exact path "
                     "for; use --engine full (without query noise they attend alike)");
  }
  if (gate.per_channel()) {
    const auto refuse = [&](const std::string& why) {
      throw InputError("invalid --engine fast: head " + std::to_string(head) +
                       " has the per-channel gate '" + gate.spec + "', " + why);
    };
    if (model.rms_norm) {
      refuse(
          "and fast has no exact path for it with --rms-norm (its pooled entries' channels "
          "have unequal variances); use --engine full");
    }
    if (!model.full_vector()) {
      if (noisy) {
        refuse(
            "and the standardized channel has no channels to give content noise; give "
            "--dim D and use --engine full or fast");
      }
      return FastPath::channel;
    }
    return shares_tokens(model.geometry(head), gate) || noisy ? FastPath::streaming_channels
                                                              : FastPath::conditional_channels;
  }
  if (!model.full_vector()) {
    return noisy && !model.rms_norm ? FastPath::streaming_entries : FastPath::channel;
  }
  const bool shared = shares_tokens(model.geometry(head), gate);
  const auto& g = model.geometry(head);
  if (model.rms_norm && shared && model.split_rho(head) < 1 && g.older_slots() > 0) {
    throw InputError("invalid --engine fast: head " + std::to_string(head) +
                     " has split projections (split_rho " + format_number(model.split_rho(head)) +
                     ") with --rms-norm and shared tokens, and fast has no exact path for them; "
                     "use --engine full");
  }
  if (model.rms_norm) return shared ? FastPath::streaming_rms : FastPath::conditional_rms;
  return shared || noisy ? FastPath::streaming_tokens : FastPath::conditional;
}

std::string fast_path_name(FastPath path) {
  switch (path) {
    case FastPath::channel:
      return "channel";
    case FastPath::streaming_entries:
      return "streaming-entries";
    case FastPath::conditional:
      return "conditional";
    case FastPath::conditional_rms:
      return "conditional-rms";
    case FastPath::streaming_tokens:
      return "streaming-tokens";
    case FastPath::streaming_rms:
      return "streaming-rms";
    case FastPath::conditional_channels:
      return "conditional-channels";
    case FastPath::streaming_channels:
      return "streaming-channels";
  }
  return "unknown";
}

FastSampler::FastSampler(const niah::NiahModel& model)
    : model_(model), dim_(model.dim.value_or(0)), beta_(model.beta_effective()) {
  for (int h = 0; h < model.heads(); ++h) heads_.push_back(plan_head(h));
}

FastSampler::Head FastSampler::plan_head(int head) const {
  const auto& gate = model_.gates[static_cast<std::size_t>(head)];
  const auto& g = model_.geometry(head);
  Head h;
  h.path = fast_path(model_, head);
  h.geometry = g;
  h.entries = model_.entries(head);
  for (int phi = 0; phi < g.stride; ++phi) h.phase_slots.push_back(g.slots_of_phase(phi));
  h.weights = gate.weights;
  h.support = support_of(gate);
  h.norm = norm_of(gate.weights);
  h.tau = h.support.size() > 1 ? model_.content_noise : 0.0;  // a one-slot gate cannot move
  if (h.path == FastPath::streaming_rms) plan_frame(h);
  h.split_rho = model_.split_rho(head);
  h.split_rest = std::sqrt((1 - h.split_rho) * (1 + h.split_rho));
  h.older_slots = h.split_rho < 1 ? g.older_slots() : 0;
  h.laws = slot_laws(gate, g, h.split_rho);
  if (gate.per_channel()) plan_channels(h, gate);
  for (std::int64_t j = 0; j < h.entries && g.first_existing_slot(j) > 0; ++j) {
    const double norm = norm_of(renormalized_weights(gate, g.first_existing_slot(j)));
    h.boundary_norms.push_back(norm);
    h.empty_boundary += norm == 0 ? 1 : 0;
  }
  return h;
}

FastSampler::Workspace FastSampler::workspace() const {
  const auto d = static_cast<Eigen::Index>(std::max(dim_, 1));
  const auto W = static_cast<Eigen::Index>(model_.max_window());
  Workspace ws;
  for (auto* v : {&ws.query, &ws.key, &ws.entry, &ws.older_key}) *v = Eigen::VectorXd::Zero(d);
  ws.normals = Eigen::VectorXd::Zero(W);  // at most W entries hold the needle
  for (auto* v : {&ws.gate, &ws.xi, &ws.token, &ws.slot_xi, &ws.older_token}) {
    *v = Eigen::VectorXd::Zero(W);
  }
  auto batch = static_cast<std::size_t>(std::max<Eigen::Index>(512, 2 * W));
  ws.more_draws.resize(batch);
  ws.split_draws.resize(batch);
  int coords = 0;
  for (const auto& h : heads_) {
    const bool rms = h.path == FastPath::streaming_rms;
    ws.frames.emplace_back(rms ? dim_ - 1 : 1, rms ? h.frame_capacity : 1, rms ? h.max_open : 1);
    coords = std::max(coords, h.frame_coords);
    batch = std::max(batch, static_cast<std::size_t>(2 * h.draw_blocks * kRmsBatch));
  }
  ws.across = Eigen::VectorXd::Zero(std::max(coords, 1));
  std::size_t groups = 1;
  for (const auto& h : heads_) groups = std::max(groups, h.groups.size());
  const auto G = static_cast<Eigen::Index>(groups);
  ws.group_tokens = ws.group_older = Eigen::VectorXd::Zero(G * W);
  ws.group_scale = ws.group_needle = Eigen::VectorXd::Zero(G);
  ws.draws.resize(batch);
  return ws;
}

bool FastSampler::retrieves(std::uint32_t trial, std::int64_t needle, int head,
                            Workspace& ws) const {
  const auto& h = heads_[static_cast<std::size_t>(head)];
  const Trial t{trial, needle, head};
  switch (h.path) {
    case FastPath::channel:
      return channel(h, t, ws);
    case FastPath::streaming_entries:
      return streaming_entries(h, t, ws);
    case FastPath::conditional:
      return conditional(h, t, ws);
    case FastPath::conditional_rms:
      return conditional_rms(h, t, ws);
    case FastPath::streaming_tokens:
      return streaming_tokens(h, t, ws);
    case FastPath::streaming_rms:
      return streaming_rms(h, t, ws);
    case FastPath::conditional_channels:
      return conditional_channels(h, t, ws);
    case FastPath::streaming_channels:
      return streaming_channels(h, t, ws);
  }
  return false;
}

// Every stream of the head whose cache it reads: query heads of one cache are exact here only
// where they share the query too (no query noise: fast_path refuses the rest), and then they
// draw alike and attend alike.
RandomStream FastSampler::stream(const Trial& t, Stream kind) const {
  return RandomStream(model_.seed, t.id, static_cast<std::uint32_t>(model_.key_head(t.head)), kind);
}

const std::vector<int>& FastSampler::needle_slots(const Head& h, const Trial& t) {
  return h.phase_slots[static_cast<std::size_t>(h.geometry.phase_of_position(t.needle))];
}

std::int64_t FastSampler::needle_entry(const Head& h, std::int64_t needle, int slot) {
  const auto& g = h.geometry;
  return (needle - g.stride + g.window - slot - g.offset) / g.stride;
}

FastSampler::Query FastSampler::sample_query(const Trial& t, Workspace& ws) const {
  const auto keys = stream(t, Stream::key);
  generate_query(keys, stream(t, Stream::query_noise), t.needle, dim_, model_.query_noise,
                 ws.query.data());
  generate_key(keys, t.needle, dim_, ws.key.data());
  const double norm = ws.query.norm();
  return {norm, std::sqrt(static_cast<double>(dim_)) * ws.query.dot(ws.key) / norm};
}

// Gate of one entry under content noise. xi is drawn per token: per (entry, slot) in the
// standardized channel, whose entries are independent by definition (as streaming_entries
// draws it), and per position in the full-vector model (as the full engine draws it).
const double* FastSampler::content_gate(const Head& h, const Trial& t, std::int64_t entry,
                                        Workspace& ws) const {
  if (h.tau == 0) return h.weights.data();
  const auto& g = h.geometry;
  const auto content = stream(t, Stream::content_noise);
  if (model_.full_vector()) {
    for (int s : h.support) ws.xi[s] = content_noise_at(content, g.position(entry, s));
  } else {
    fill_normals(content, static_cast<std::uint32_t>(entry), g.window, 1.0, ws.xi.data());
  }
  entry_gate(h.weights.data(), g.window, 0, h.tau, ws.xi.data(), ws.gate.data());
  return ws.gate.data();
}

// The needle's older projection rho a_p + sqrt(1 - rho^2) b_p has b_p = sqrt(d) <q, k''_p> /
// ||q|| ~ N(0, 1), independent of everything else (k''_p is): drawn per needle entry i.
double FastSampler::split_normal(const Trial& t, int i) const {
  return stream(t, Stream::split_key).normal(0, static_cast<std::uint32_t>(i));
}

// Standardized channel: X_s = beta u_s + sd_s Z_s (sd_s = sqrt(1 - u_s^2) for one gate;
// slot_laws for channel groups) for the m entries holding the needle, against the exact maximum
// of the N_c - m independent N(0, 1) distractors.
bool FastSampler::channel(const Head& h, const Trial& t, Workspace& ws) const {
  const auto& slots = needle_slots(h, t);
  const auto m = static_cast<int>(slots.size());
  if (m == 0) return false;
  fill_normals(stream(t, Stream::channel), 0, m, 1.0, ws.normals.data());
  double best = kMinusInfinity;
  for (int i = 0; i < m; ++i) {
    const int s = slots[static_cast<std::size_t>(i)];
    double u = h.laws[static_cast<std::size_t>(s)].u, sd = h.laws[static_cast<std::size_t>(s)].sd;
    if (h.tau > 0) {  // one gate (fast_path refuses channel groups here)
      const double* w = content_gate(h, t, needle_entry(h, t.needle, s), ws);
      u = w[s] / norm_of(w, h.geometry.window);
      sd = std::sqrt((1 - u) * (1 + u));
      if (s < h.older_slots) {
        const auto law = split_law({u, sd}, h.split_rho);
        u = law.u;
        sd = law.sd;
      }
    }
    best = std::max(best, beta_ * u + sd * ws.normals[i]);
  }
  return best > max_of_normals(h.entries - m, stream(t, Stream::distractor).uniform_pair(0, 0).x);
}

// Full-vector model, no weighted token shared by two entries, fixed gates. Given q, in units
// of ||q|| / sqrt(d), every token but the needle projects to an independent N(0, 1), so an
// entry is g_s a_p + ||rest of g|| Z if it holds the needle at slot s and ||g_j|| Z if not:
// the needle entries and the few boundary entries one by one, the interior max exactly.
bool FastSampler::conditional(const Head& h, const Trial& t, Workspace& ws) const {
  const auto& slots = needle_slots(h, t);
  const auto m = static_cast<int>(slots.size());
  if (m == 0) return false;
  const double a_p = sample_query(t, ws).needle;
  fill_normals(stream(t, Stream::channel), 0, m, 1.0, ws.normals.data());
  double best = kMinusInfinity;
  for (int i = 0; i < m; ++i) {
    const int s = slots[static_cast<std::size_t>(i)];
    const double g_s = h.weights[static_cast<std::size_t>(s)];
    const double rest = std::sqrt(std::max(0.0, (h.norm - g_s) * (h.norm + g_s)));
    const double a =
        s < h.older_slots ? h.split_rho * a_p + h.split_rest * split_normal(t, i) : a_p;
    best = std::max(best, g_s * a + rest * ws.normals[i]);
  }
  const auto distractor = stream(t, Stream::distractor);
  const auto boundary = static_cast<std::int64_t>(h.boundary_norms.size());
  double top = h.norm * max_of_normals(h.entries - boundary - m, distractor.uniform_pair(0, 0).x);
  for (std::int64_t j = 0; j < boundary; ++j) {
    const double z = distractor.normal(1, static_cast<std::uint32_t>(j));
    top = std::max(top, h.boundary_norms[static_cast<std::size_t>(j)] * z);
  }
  return best > top;
}

// As `conditional`, with every entry RMS-normalized: a distractor is an isotropic Gaussian
// vector independent of q, so its normalized logit is ||q|| times the cosine to a uniform
// direction (exact max over the non-empty ones); a needle entry c k_p + rho R is built in d
// dimensions. Entries that pool nothing score 0.
bool FastSampler::conditional_rms(const Head& h, const Trial& t, Workspace& ws) const {
  const auto& slots = needle_slots(h, t);
  const auto m = static_cast<int>(slots.size());
  if (m == 0) return false;
  const double q_norm = sample_query(t, ws).norm;
  const auto channel_stream = stream(t, Stream::channel);
  const double scale = 1 / std::sqrt(static_cast<double>(dim_));
  double best = kMinusInfinity;
  for (int i = 0; i < m; ++i) {
    const int s = slots[static_cast<std::size_t>(i)];
    const double* w = content_gate(h, t, needle_entry(h, t.needle, s), ws);
    const double norm = h.tau == 0 ? h.norm : norm_of(w, h.geometry.window);
    const double rho = std::sqrt(std::max(0.0, (norm - w[s]) * (norm + w[s])));
    fill_normals(channel_stream, static_cast<std::uint32_t>(1 + i), dim_, scale, ws.entry.data());
    if (s < h.older_slots) {  // the needle's older key rho k_p + sqrt(1 - rho^2) k''_p
      generate_key(stream(t, Stream::split_key), t.needle, dim_, ws.older_key.data());
      ws.entry = w[s] * (h.split_rho * ws.key + h.split_rest * ws.older_key) + rho * ws.entry;
    } else {
      ws.entry = w[s] * ws.key + rho * ws.entry;
    }
    const double length = ws.entry.norm();
    best = std::max(best, length > 0 ? ws.query.dot(ws.entry) / length : 0.0);
  }
  const double u = stream(t, Stream::distractor).uniform_pair(0, 0).x;
  double top = q_norm * max_of_cosines(h.entries - h.empty_boundary - m, u, dim_);
  if (h.empty_boundary > 0) top = std::max(top, 0.0);
  return best > top;
}

namespace {

// The indices [first, first + span) of the batch a sweep reads now. Every number is keyed by
// its index, so where a batch starts does not change the numbers, only when they are drawn.
class BatchRange {
 public:
  explicit BatchRange(std::int64_t span) : span_(span) {}
  std::int64_t span() const { return span_; }
  bool holds(std::int64_t index) const { return index >= first_ && index < first_ + span_; }
  void start_at(std::int64_t first) { first_ = first; }
  std::int64_t offset(std::int64_t index) const { return index - first_; }

 private:
  std::int64_t span_;
  // No batch drawn yet: no index lies inside, so the first call draws (-1 would put index 0
  // inside and read the previous trial's numbers).
  std::int64_t first_ = std::numeric_limits<std::int64_t>::min();
};

// What a sweep over increasing indices reads, from the block generator a batch at a time (its
// float normals, RandomStream::normal_pair_float): row(i)[c] = normal(i, c), c < cols.
class RowNormals {
 public:
  RowNormals(const RandomStream& stream, int cols, std::vector<float>& batch)
      : stream_(stream),
        cols_(cols),
        range_(static_cast<std::int64_t>(batch.size()) / cols),
        batch_(batch) {}
  const float* operator()(std::int64_t index) {
    if (!range_.holds(index)) {
      range_.start_at(index);
      normal_rows(stream_, static_cast<std::uint32_t>(index), range_.span(), cols_, 1.0f,
                  batch_.data(), cols_);
    }
    return batch_.data() + range_.offset(index) * cols_;
  }

 private:
  RandomStream stream_;
  int cols_;
  BatchRange range_;
  std::vector<float>& batch_;
};

// Scalars keyed by position, value(t) = normal_pair(t / 2, block)[t % 2], likewise.
class PositionNormals {
 public:
  PositionNormals(const RandomStream& stream, std::uint32_t block, std::vector<float>& batch)
      : stream_(stream),
        block_(block),
        range_(static_cast<std::int64_t>(batch.size())),
        batch_(batch) {}
  double operator()(std::int64_t t) {
    if (!range_.holds(t)) {
      range_.start_at(t - t % 2);  // a pair's two numbers come together
      normal_sequence(stream_, static_cast<std::uint32_t>(t / 2), block_, range_.span(), 1.0f,
                      batch_.data());
    }
    return batch_[static_cast<std::size_t>(range_.offset(t))];
  }

 private:
  RandomStream stream_;
  std::uint32_t block_;
  BatchRange range_;
  std::vector<float>& batch_;
};

// The argmax over entries 0..entries-1 of logit(j), after draw(p) for each position of entry j
// that no earlier entry held and some entry weights, in order: the streaming paths' sweep.
template <class Draw, class Logit>
niah::Argmax stream_entries(const Geometry& g, const double* weights, std::int64_t entries,
                            Draw draw, Logit logit) {
  niah::Argmax best;
  std::int64_t next = 0;  // first position not drawn yet
  for (std::int64_t j = 0; j < entries; ++j) {
    const std::int64_t first = g.position(j, 0);
    for (std::int64_t p = std::max({next, first, std::int64_t{0}}); p < first + g.window; ++p) {
      if (position_weighted(g, weights, static_cast<int>(p - first))) draw(p);
    }
    next = first + g.window;
    best.offer(j, logit(j));
  }
  return best;
}

}  // namespace

// Standardized channel with content noise: independent entries, each with its own gate from
// its own xi and its own N(0, 1) token projections (beta for the needle's token; at an older
// slot of split projections rho beta + sqrt(1 - rho^2) b).
bool FastSampler::streaming_entries(const Head& h, const Trial& t, Workspace& ws) const {
  const auto& g = h.geometry;
  RowNormals token(stream(t, Stream::token), g.window, ws.draws);
  RowNormals content(stream(t, Stream::content_noise), g.window, ws.more_draws);
  niah::Argmax best;
  for (std::int64_t j = 0; j < h.entries; ++j) {
    const float* tokens = token(j);
    const float* xi = content(j);
    for (int s = 0; s < g.window; ++s) {
      ws.token[s] = tokens[s];
      ws.xi[s] = xi[s];
    }
    if (g.holds(j, t.needle)) {
      const auto s = static_cast<int>(t.needle - g.position(j, 0));
      ws.token[s] =
          s < h.older_slots ? h.split_rho * beta_ + h.split_rest * split_normal(t, s) : beta_;
    }
    entry_gate(h.weights.data(), g.window, 0, h.tau, ws.xi.data(), ws.gate.data());
    double logit = 0;
    for (int s : h.support) logit += ws.gate[s] * ws.token[s];
    best.offer(j, logit);
  }
  return g.holds(best.entry, t.needle);
}

// Logit of entry j from the ring of token projections (and content noise) of its positions.
double FastSampler::ring_logit(const Head& h, std::int64_t j, Workspace& ws) const {
  const auto& g = h.geometry;
  const int W = g.window;
  const std::int64_t first = g.position(j, 0);
  const int first_slot = g.first_existing_slot(j);
  const double* w = h.weights.data();
  if (h.tau > 0 || first_slot > 0) {
    for (int s : h.support) ws.slot_xi[s] = s >= first_slot ? ws.xi[(first + s) % W] : 0.0;
    entry_gate(h.weights.data(), W, first_slot, h.tau, ws.slot_xi.data(), ws.gate.data());
    w = ws.gate.data();
  }
  double logit = 0;
  for (int s : h.support) {
    const auto& tokens = s < h.older_slots ? ws.older_token : ws.token;
    logit += s >= first_slot ? w[s] * tokens[(first + s) % W] : 0.0;
  }
  return logit;
}

// Full-vector model, exact for any gate and content noise (no RMS norm): given q, each
// position's projection a_t (a_p for the needle, N(0, 1) otherwise), content noise and, with
// split projections, its older projection rho a_t + sqrt(1 - rho^2) b_t are
// drawn once, kept in a ring of the last W positions, and shared by the entries that hold
// it; the argmax of sum_s g_{j,s} a_{t(j,s)} over all N_c entries. No d factor.
bool FastSampler::streaming_tokens(const Head& h, const Trial& t, Workspace& ws) const {
  const auto& g = h.geometry;
  const int W = g.window;
  const double a_p = sample_query(t, ws).needle;
  const auto token = stream(t, Stream::token);
  PositionNormals projection(token, 0, ws.draws);
  PositionNormals xi(token, 1, ws.more_draws);
  PositionNormals older(token, 2, ws.split_draws);
  const auto draw = [&](std::int64_t p) {
    ws.token[p % W] = p == t.needle ? a_p : projection(p);
    if (h.tau > 0) ws.xi[p % W] = xi(p);
    if (h.older_slots > 0) {
      ws.older_token[p % W] = h.split_rho * ws.token[p % W] + h.split_rest * older(p);
    }
  };
  const auto best = stream_entries(g, h.weights.data(), h.entries, draw,
                                   [&](std::int64_t j) { return ring_logit(h, j, ws); });
  return g.holds(best.entry, t.needle);
}

// The frame of the streaming-rms path. After an entry closes, the entries still open (at most
// ceil(W/S) - 1, all holding its last position) leave at most as many axes, and the S positions
// up to the next close add one each: a frame of ceil(W/S) + S - 1 axes never fills in the
// interior. Near position 0 it may: it is then compressed before the entries that open at the
// position join, to at most ceil(W/S) - 1 + (S > 1) <= capacity - 1 axes. A frame spans at most
// the D = d - 1 dimensions orthogonal to q, where a position has no remainder.
void FastSampler::plan_frame(Head& h) const {
  const auto& g = h.geometry;
  const int space = dim_ - 1;
  h.max_open = (g.window + g.stride - 1) / g.stride;
  h.frame_capacity = std::min(space, h.max_open + g.stride - 1);
  h.frame_coords = h.frame_capacity < space ? h.frame_capacity - 1 : space;
  h.draw_blocks = (kFirstCoordinate + h.frame_coords + (h.tau > 0 ? 1 : 0) + 1) / 2;
  for (int k = 0; k <= h.frame_coords; ++k) h.remainders.emplace_back(space - k);
  for (const double w : h.weights) {
    h.log_weights.push_back(w > 0 ? portable::log(w) : PooledFrame::kNoWeight);
  }
}

namespace {

// The normals of the streaming-rms path, normal(p, c) = normal_pair_float(p, c / 2)[c % 2],
// drawn for a batch of positions block by block, so that the block generator runs at its full
// width over positions whatever the few blocks a position needs.
class PositionDraws {
 public:
  PositionDraws(const RandomStream& stream, int blocks, std::vector<float>& batch)
      : stream_(stream),
        blocks_(blocks),
        range_(static_cast<std::int64_t>(batch.size()) / (2 * blocks)),
        batch_(batch) {}
  const RandomStream& stream() const { return stream_; }

  /// The normals of one position: row[c] = normal(p, c).
  struct Row {
    const float* first;  ///< normal(p, 0)
    std::int64_t block_stride;
    double operator[](int c) const { return first[(c / 2) * block_stride + c % 2]; }
  };
  Row row(std::int64_t p) {
    if (!range_.holds(p)) draw_from(p);
    return {batch_.data() + 2 * range_.offset(p), 2 * range_.span()};
  }

 private:
  void draw_from(std::int64_t p) {
    range_.start_at(p);
    for (int b = 0; b < blocks_; ++b) {
      normal_sequence(stream_, static_cast<std::uint32_t>(p), static_cast<std::uint32_t>(b),
                      2 * range_.span(), 1.0f, batch_.data() + 2 * b * range_.span());
    }
  }

  RandomStream stream_;
  int blocks_;
  BatchRange range_;
  std::vector<float>& batch_;
};

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

// Full-vector model with --rms-norm, any gate (shared tokens, content noise, boundaries): given
// q, positions in order, each entry pooled as A e + R while its window is open, R in a
// PooledFrame of at most ceil(W/S) + S - 1 axes (sim/ENGINES.md derives it). O(W/S + S) normals
// a position, none per dimension; the argmax of the cosines over all N_c entries.
bool FastSampler::streaming_rms(const Head& h, const Trial& t, Workspace& ws) const {
  const auto& g = h.geometry;
  const double a_p = sample_query(t, ws).needle;
  const double r_p = std::sqrt(std::max(0.0, dim_ * ws.key.squaredNorm() - a_p * a_p));
  const Needle needle{t.needle, a_p, r_p};
  PositionDraws draws(stream(t, Stream::token), h.draw_blocks, ws.draws);
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

// Channel groups: each group's weights and channels (channel_counts at d, in order), ||g_G||^2,
// and each boundary entry's renormalized ||g_{G,j}||^2 (conditional_channels); the position
// draws of streaming_channels: a projection per group, then xi.
void FastSampler::plan_channels(Head& h, const Gate& gate) const {
  for (const auto& group : gate.channels) {
    h.groups.push_back(group.weights);
    double norm2 = 0;
    for (const double w : group.weights) norm2 += w * w;
    h.group_norms2.push_back(norm2);
  }
  h.group_ends = channel_ends(gate, dim_);
  const auto& g = h.geometry;
  for (std::int64_t j = 0; j < h.entries && g.first_existing_slot(j) > 0; ++j) {
    auto& norms = h.boundary_group_norms2.emplace_back();
    for (const auto& group : h.groups) {
      const auto w = renormalized_weights({group, "group", {}}, g.first_existing_slot(j));
      double norm2 = 0;
      for (const double x : w) norm2 += x * x;
      norms.push_back(norm2);
    }
  }
  // Per position: a projection per group, xi, and with split projections b per group.
  const int groups = static_cast<int>(h.groups.size());
  h.draw_blocks = (groups + 1 + (h.older_slots > 0 ? groups : 0) + 1) / 2;
}

// Given q, in units of ||q|| / sqrt(d): group G's share Q_G = ||q_G||^2 / ||q||^2 of the query,
// whose square root scales a token's projection sqrt(d) <q_G, k_G> / ||q|| ~ N(0, Q_G), and the
// needle's projection A_G = sqrt(d) <q_G, k_{p,G}> / ||q|| (they sum to its a_p).
void FastSampler::sample_groups(const Head& h, const Trial& t, Workspace& ws) const {
  const double q_norm = sample_query(t, ws).norm;
  const double root = std::sqrt(static_cast<double>(dim_));
  for (std::size_t k = 0, begin = 0; k < h.groups.size(); ++k) {
    const auto end = static_cast<std::size_t>(h.group_ends[k]);
    const auto n = static_cast<Eigen::Index>(end - begin);
    const auto q = ws.query.segment(static_cast<Eigen::Index>(begin), n);
    const auto key = ws.key.segment(static_cast<Eigen::Index>(begin), n);
    ws.group_scale[static_cast<Eigen::Index>(k)] = q.norm() / q_norm;
    ws.group_needle[static_cast<Eigen::Index>(k)] = root * q.dot(key) / q_norm;
    begin = end;
  }
}

// `conditional` with channel groups. Given q, a token's group-G projection is N(0, Q_G), every
// one independent, so an entry holding the needle at slot s is sum_G g_{G,s} A_G plus a normal
// of variance sum_G Q_G (||g_G||^2 - g_{G,s}^2), and any other entry a normal of variance
// sum_G Q_G ||g_{G,j}||^2: one for every interior entry, so their maximum is exact.
bool FastSampler::conditional_channels(const Head& h, const Trial& t, Workspace& ws) const {
  const auto& slots = needle_slots(h, t);
  const auto m = static_cast<int>(slots.size());
  if (m == 0) return false;
  sample_groups(h, t, ws);
  const auto variance = [&](const std::vector<double>& norms2, int slot) {
    double sum = 0;
    for (std::size_t k = 0; k < h.groups.size(); ++k) {
      const double w = slot < 0 ? 0.0 : h.groups[k][static_cast<std::size_t>(slot)];
      const double q = ws.group_scale[static_cast<Eigen::Index>(k)];
      sum += q * q * std::max(0.0, norms2[k] - w * w);
    }
    return sum;
  };
  fill_normals(stream(t, Stream::channel), 0, m, 1.0, ws.normals.data());
  double best = kMinusInfinity;
  for (int i = 0; i < m; ++i) {
    const int s = slots[static_cast<std::size_t>(i)];
    double mean = 0, older = 0;  // older: the variance of the older key's own part, given q
    for (std::size_t k = 0; k < h.groups.size(); ++k) {
      const double w = h.groups[k][static_cast<std::size_t>(s)];
      const double q = ws.group_scale[static_cast<Eigen::Index>(k)];
      mean += w * ws.group_needle[static_cast<Eigen::Index>(k)];
      older += w * w * q * q;
    }
    if (s < h.older_slots) {
      mean = h.split_rho * mean + h.split_rest * std::sqrt(older) * split_normal(t, i);
    }
    best = std::max(best, mean + std::sqrt(variance(h.group_norms2, s)) * ws.normals[i]);
  }
  const auto distractor = stream(t, Stream::distractor);
  const auto boundary = static_cast<std::int64_t>(h.boundary_group_norms2.size());
  const double interior = std::sqrt(variance(h.group_norms2, -1));
  double top = interior * max_of_normals(h.entries - boundary - m, distractor.uniform_pair(0, 0).x);
  for (std::int64_t j = 0; j < boundary; ++j) {
    const double z = distractor.normal(1, static_cast<std::uint32_t>(j));
    const auto& norms2 = h.boundary_group_norms2[static_cast<std::size_t>(j)];
    top = std::max(top, std::sqrt(variance(norms2, -1)) * z);
  }
  return best > top;
}

// Logit of entry j from the rings of per-group token projections: sum over groups of
// sum_s g_{G,j,s} a_{t(j,s),G}, each group's gate renormalized and moved by content noise as
// one gate's is (ring_logit).
double FastSampler::channels_logit(const Head& h, std::int64_t j, Workspace& ws) const {
  const auto& g = h.geometry;
  const int W = g.window;
  const std::int64_t first = g.position(j, 0);
  const int first_slot = g.first_existing_slot(j);
  const bool moved = h.tau > 0 || first_slot > 0;
  if (moved) {
    for (int s : h.support) ws.slot_xi[s] = s >= first_slot ? ws.xi[(first + s) % W] : 0.0;
  }
  double logit = 0;
  for (std::size_t k = 0; k < h.groups.size(); ++k) {
    const double* w = h.groups[k].data();
    if (moved) {
      entry_gate(w, W, first_slot, h.tau, ws.slot_xi.data(), ws.gate.data());
      w = ws.gate.data();
    }
    const auto offset = static_cast<std::int64_t>(k) * W;
    const double* tokens = ws.group_tokens.data() + offset;
    const double* older = ws.group_older.data() + offset;
    for (int s : h.support) {
      if (s < first_slot) continue;  // before position 0: no token, and no ring row to read
      logit += w[s] * (s < h.older_slots ? older[(first + s) % W] : tokens[(first + s) % W]);
    }
  }
  return logit;
}

// `streaming_tokens` with channel groups: given q, each position draws one projection per group
// (sqrt(Q_G) N(0, 1); A_G for the needle) and its content noise, kept in rings of the last W
// positions; the argmax of channels_logit over all N_c entries. O(G) normals a position.
bool FastSampler::streaming_channels(const Head& h, const Trial& t, Workspace& ws) const {
  const auto& g = h.geometry;
  const int W = g.window;
  const auto G = static_cast<int>(h.groups.size());
  sample_groups(h, t, ws);
  PositionDraws draws(stream(t, Stream::token), h.draw_blocks, ws.draws);
  const auto draw = [&](std::int64_t p) {
    const auto row = draws.row(p);
    for (int k = 0; k < G; ++k) {
      const auto i = static_cast<std::size_t>(k * W + p % W);
      ws.group_tokens[i] = p == t.needle ? ws.group_needle[k] : ws.group_scale[k] * row[k];
      if (h.older_slots > 0) {
        ws.group_older[i] =
            h.split_rho * ws.group_tokens[i] + h.split_rest * ws.group_scale[k] * row[G + 1 + k];
      }
    }
    if (h.tau > 0) ws.xi[p % W] = row[G];
  };
  const auto best = stream_entries(g, h.weights.data(), h.entries, draw,
                                   [&](std::int64_t j) { return channels_logit(h, j, ws); });
  return g.holds(best.entry, t.needle);
}

namespace {

// What a streaming path costs per entry and slot of a trial, measured on one core of an AMD
// EPYC (AVX-512): 4.7 ns on streaming-tokens (BM_FastStreaming), 19 ns on streaming-rms
// (BM_FastStreamingRms, d = 64 and 512 alike).
double seconds_per_slot(FastPath path) {
  switch (path) {
    case FastPath::streaming_entries:
    case FastPath::streaming_tokens:
    case FastPath::streaming_channels:  // per group: the estimate multiplies
      return 5e-9;
    case FastPath::streaming_rms:
      return 2e-8;
    default:
      return 0;
  }
}

class FastEngine final : public Engine {
 public:
  std::string name() const override { return "fast"; }
  bool monte_carlo() const override { return true; }
  void check(const niah::NiahModel& model) const override {
    for (int h = 0; h < model.heads(); ++h) fast_path(model, h);
  }
  std::string approximation(const niah::NiahModel&) const override { return ""; }
  WorkEstimate estimate(const niah::NiahRun& run) const override {
    // The streaming paths visit every entry of every trial; the others cost O(W) per trial,
    // the base estimate.
    auto estimate = Engine::estimate(run);
    const auto trials = static_cast<double>(run.needles.trials());
    for (int h = 0; h < run.model.heads(); ++h) {
      const auto& gate = run.model.gates[static_cast<std::size_t>(h)];
      const auto groups = static_cast<double>(std::max<std::size_t>(1, gate.channels.size()));
      const auto slots = static_cast<double>(run.model.entries(h)) * run.model.geometry(h).window;
      estimate.seconds += trials * slots * groups * seconds_per_slot(fast_path(run.model, h));
    }
    return estimate;
  }
  std::vector<std::string> paths(const niah::NiahModel& model) const override {
    std::vector<std::string> paths;
    for (int h = 0; h < model.heads(); ++h) paths.push_back(fast_path_name(fast_path(model, h)));
    return paths;
  }

 protected:
  niah::EngineOutput run(const niah::NiahRun& run, const Parallel& parallel) const override {
    return run_trials(FastSampler(run.model), run, parallel);
  }
};

}  // namespace

std::unique_ptr<Engine> make_fast_engine() { return std::make_unique<FastEngine>(); }

}  // namespace phasesim::engines
