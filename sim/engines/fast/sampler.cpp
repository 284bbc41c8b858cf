// The fast engine's sampler: each head's plan, the per-thread scratch, and the streams and
// per-trial draws its paths share.
#include "sampler.hpp"

#include "phasesim/engines/full_vector.hpp"
#include "streaming.hpp"

namespace phasesim::engines::fast {

Sampler::Sampler(const niah::NiahModel& model) : model_(model), dim_(model.dim.value_or(0)) {
  // Only the heads the engine scans are planned: the others repeat their alike head's
  // outcome (run_trials), and a stack's thousands of query heads cost more to plan than to scan.
  for (int h = 0; h < model.heads(); ++h) {
    heads_.push_back(model.alike_head(h) == h ? plan_head(h) : Head{});
  }
}

Head Sampler::plan_head(int head) const {
  const auto& gate = model_.gates[static_cast<std::size_t>(head)];
  const auto& g = model_.geometry(head);
  Head h;
  h.path = path_for(model_, head);
  h.geometry = g;
  h.entries = model_.entries(head);
  for (int phi = 0; phi < g.stride; ++phi) h.phase_slots.push_back(g.slots_of_phase(phi));
  h.weights = gate.weights;
  h.support = support_of(gate);
  h.norm = norm_of(h.weights.data(), static_cast<int>(h.weights.size()));
  h.tau = h.support.size() > 1 ? model_.content_noise : 0.0;  // a one-slot gate cannot move
  h.beta = model_.head_beta(head);
  h.query_noise = model_.head_query_noise(head);
  if (h.path == Path::streaming_rms) plan_frame(h, dim_);
  h.split_rho = model_.split_rho(head);
  h.split_rest = std::sqrt((1 - h.split_rho) * (1 + h.split_rho));
  h.older_slots = h.split_rho < 1 ? g.older_slots() : 0;
  h.laws = slot_laws(gate, g, h.split_rho);
  if (gate.per_channel()) plan_channels(h, gate);
  h.read = model_.read_path(head);
  h.gate = gate;
  h.index_gate = model_.index_gate(head);
  h.gate_laws = gate_laws(h.gate);
  h.index_gate_laws = gate_laws(h.index_gate);
  h.index_beta = model_.index_beta(head);
  h.needle_tokens = model_.needle_tokens;
  h.raw_from = model_.context - h.read.sliding_window;
  h.top_k = h.read.top_k.value_or(h.entries);
  h.context = model_.context;
  if (h.path == Path::two_stage_conditional) {
    h.attention_gate = grouped_gate(gate, g, h.entries, dim_);
    h.index_gate_groups = grouped_gate(h.index_gate, g, h.entries, dim_);
    h.index_noise = model_.index_query_noise(head);
  }
  for (std::int64_t j = 0; j < h.entries && g.first_existing_slot(j) > 0; ++j) {
    const auto w = renormalized_weights(gate, g.first_existing_slot(j));
    const double norm = norm_of(w.data(), static_cast<int>(w.size()));
    h.boundary_norms.push_back(norm);
    h.empty_boundary += norm == 0 ? 1 : 0;
  }
  h.boundary_entries = static_cast<std::int64_t>(h.boundary_norms.size());
  return h;
}

GroupedGate grouped_gate(const Gate& gate, const Geometry& geometry, std::int64_t entries,
                         int dim) {
  GroupedGate grouped;
  if (gate.per_channel()) {
    for (const auto& group : gate.channels) grouped.groups.push_back(group.weights);
  } else {
    grouped.groups.push_back(gate.weights);
  }
  grouped.ends = channel_ends(gate, dim);
  for (const auto& w : grouped.groups) {
    double norm2 = 0;
    for (const double x : w) norm2 += x * x;
    grouped.norms2.push_back(norm2);
  }
  for (std::int64_t j = 0; j < entries && geometry.first_existing_slot(j) > 0; ++j) {
    auto& groups = grouped.boundary.emplace_back();
    for (const auto& w : grouped.groups) {
      groups.push_back(renormalized_weights({w, "group", {}}, geometry.first_existing_slot(j)));
    }
  }
  return grouped;
}

// Channel groups: each group's weights and channels (channel_counts at d, in order), ||g_G||^2,
// and each boundary entry's renormalized ||g_{G,j}||^2 (conditional_channels); the position
// draws of streaming_channels: a projection per group, then xi.
void Sampler::plan_channels(Head& h, const Gate& gate) const {
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

Workspace Sampler::workspace() const {
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
    const bool rms = h.path == Path::streaming_rms;
    ws.frames.emplace_back(rms ? dim_ - 1 : 1, rms ? h.frame_capacity : 1, rms ? h.max_open : 1);
    coords = std::max(coords, h.frame_coords);
    batch = std::max(batch, static_cast<std::size_t>(2 * h.draw_blocks * kPositionsPerBatch));
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

// Every stream of the head whose cache it reads: query heads of one cache are exact here only
// where they share the query too (no query noise: path_for refuses the rest), and then they
// draw alike and attend alike.
RandomStream Sampler::stream(const Trial& t, Stream kind) const {
  return RandomStream(model_.seed, t.id, static_cast<std::uint32_t>(model_.key_head(t.head)), kind);
}

Query Sampler::sample_query(const Trial& t, Workspace& ws) const {
  const auto keys = stream(t, Stream::key);
  const double noise = heads_[static_cast<std::size_t>(t.head)].query_noise;
  generate_query(keys, stream(t, Stream::query_noise), t.needle, dim_, noise, ws.query.data());
  generate_key(keys, t.needle, dim_, ws.key.data());
  const double norm = ws.query.norm();
  return {norm, std::sqrt(static_cast<double>(dim_)) * ws.query.dot(ws.key) / norm};
}

// Given q, in units of ||q|| / sqrt(d): group G's share Q_G = ||q_G||^2 / ||q||^2 of the query,
// whose square root scales a token's projection sqrt(d) <q_G, k_G> / ||q|| ~ N(0, Q_G), and the
// needle's projection A_G = sqrt(d) <q_G, k_{p,G}> / ||q|| (they sum to its a_p).
void Sampler::sample_groups(const Head& h, const Trial& t, Workspace& ws) const {
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

// The needle's older projection rho a_p + sqrt(1 - rho^2) b_p has b_p = sqrt(d) <q, k''_p> /
// ||q|| ~ N(0, 1), independent of everything else (k''_p is): drawn per needle entry i.
double Sampler::split_normal(const Trial& t, int i) const {
  return stream(t, Stream::split_key).normal(0, static_cast<std::uint32_t>(i));
}

// Gate of one entry under content noise. xi is drawn per token: per (entry, slot) in the
// standardized channel, whose entries are independent by definition (as streaming_entries
// draws it), and per position in the full-vector model (as the full engine draws it).
const double* Sampler::content_gate(const Head& h, const Trial& t, std::int64_t entry,
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

}  // namespace phasesim::engines::fast
