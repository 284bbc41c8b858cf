#include "full_engine.hpp"

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "phasesim/engines/engine.hpp"
#include "phasesim/engines/full_vector_simd.hpp"

namespace phasesim::engines {

ScanNeeds FullVectorHeads::needs() const {
  ScanNeeds needs;
  for (const auto& h : heads) {
    needs.per_channel = needs.per_channel || h.groups > 0;
    needs.split = needs.split || h.older_slots() > 0;
  }
  return needs;
}

ScanNeeds FullVectorHeads::index_needs() const {
  ScanNeeds needs;
  for (const auto& r : reads) needs.per_channel = needs.per_channel || (r.on && r.index.groups > 0);
  return needs;
}

bool FullVectorHeads::reads_beyond() const {
  return std::any_of(reads.begin(), reads.end(), [](const FullVectorRead& r) { return r.on; });
}

namespace {

// Every channel group's weights of a gate, one after another, and their channels' ends.
void group_arrays(const Gate& gate, int dim, std::vector<double>& weights, std::vector<int>& ends) {
  for (const auto& group : gate.channels) {
    weights.insert(weights.end(), group.weights.begin(), group.weights.end());
  }
  ends = channel_ends(gate, dim);
}

// The head's read path: its indexer is the head with the index gate, one projection, no
// content noise, and the query noise that gives the index beta (sigma_I^2 = d / beta_I^2 - 1).
FullVectorRead read_of(const niah::NiahModel& model, int h, const FullVectorHead& head,
                       const std::vector<double>& index_weights, const std::vector<int>& ends) {
  const auto& path = model.read_path(h);
  FullVectorRead read;
  read.on = !model.plain(h);
  read.top_k = path.top_k.value_or(model.entries(h));
  read.rho = path.index_rho;
  read.sliding_window = path.sliding_window;
  read.sink = path.sink.has_value();
  read.sink_logit = path.sink.value_or(0.0);
  read.needle_tokens = model.needle_tokens;
  read.context = model.context;
  const auto& index_gate = model.index_gate(h);
  read.index = head;
  read.index.gate = index_gate.weights.data();
  read.index.groups = static_cast<int>(index_gate.channels.size());
  read.index.group_gates = index_weights.data();
  read.index.group_ends = ends.data();
  read.index.content_noise = 0;
  read.index.split_rho = 1;
  read.index.query_noise = model.index_query_noise(h);
  return read;
}

}  // namespace

FullVectorHeads full_vector_heads(const niah::NiahModel& model) {
  FullVectorHeads list;
  for (int h = 0; h < model.heads(); ++h) {
    group_arrays(model.gates[static_cast<std::size_t>(h)], *model.dim,
                 list.group_gates.emplace_back(), list.group_ends.emplace_back());
    group_arrays(model.index_gate(h), *model.dim, list.index_group_gates.emplace_back(),
                 list.index_group_ends.emplace_back());
  }
  for (int h = 0; h < model.heads(); ++h) {
    const auto i = static_cast<std::size_t>(h);
    const auto& gate = model.gates[i];
    list.heads.push_back({model.geometry(h), gate.weights.data(), model.entries(h), *model.dim,
                          model.head_query_noise(h), model.content_noise, model.rms_norm,
                          static_cast<int>(gate.channels.size()), list.group_gates[i].data(),
                          list.group_ends[i].data(), model.split_rho(h), model.key_head(h)});
    list.reads.push_back(
        read_of(model, h, list.heads.back(), list.index_group_gates[i], list.index_group_ends[i]));
  }
  return list;
}

namespace {

template <typename Real>
using OpsOf = std::conditional_t<std::is_same_v<Real, float>, FloatOps, DoubleOps>;

}  // namespace

template <typename Real>
FullScanner<Real>::FullScanner(const niah::NiahModel& model)
    : model_(model),
      heads_(full_vector_heads(model_)),
      window_(model_.max_window()),
      row_(OpsOf<Real>::row_size(*model_.dim)) {}

template <typename Real>
typename FullScanner<Real>::Workspace FullScanner<Real>::workspace() const {
  const auto reals = ScanWorkspace<Real>::reals(window_, row_, heads_.needs());
  const auto doubles = static_cast<std::size_t>(ScanWorkspace<Real>::doubles(window_));
  Workspace ws{std::vector<Real>(static_cast<std::size_t>(reals)),
               std::vector<double>(doubles),
               {},
               {},
               {},
               {}};
  if (!heads_.reads_beyond()) return ws;
  // The read path: the indexer's scan workspace, and every entry's logit and score.
  const auto index_reals = ScanWorkspace<Real>::reals(window_, row_, heads_.index_needs());
  ws.index_reals.resize(static_cast<std::size_t>(index_reals));
  ws.index_doubles.resize(doubles);
  std::int64_t entries = 0;
  for (const auto& h : heads_.heads) entries = std::max(entries, h.entries);
  ws.attention.resize(static_cast<std::size_t>(entries));
  ws.score.resize(static_cast<std::size_t>(entries));
  return ws;
}

template <typename Real>
HeadOutcome FullScanner<Real>::trial(std::uint32_t trial, std::int64_t needle, int head,
                                     Workspace& ws) const {
  const auto scratch =
      ScanWorkspace<Real>::carve(ws.reals.data(), ws.doubles.data(), window_, row_, heads_.needs());
  const auto& h = heads_.heads[static_cast<std::size_t>(head)];
  const auto index = static_cast<std::uint32_t>(head);
  const auto& read = heads_.reads[static_cast<std::size_t>(head)];
  if (read.on) {
    const auto index_scratch = ScanWorkspace<Real>::carve(
        ws.index_reals.data(), ws.index_doubles.data(), window_, row_, heads_.index_needs());
    using Ops = std::conditional_t<std::is_same_v<Real, float>, FloatOps, DoubleOps>;
    const auto scales =
        prepare_read<Ops>(h, read, model_.seed, trial, index, needle, scratch, index_scratch);
    if constexpr (std::is_same_v<Real, float>) {
      full_vector_read_simd(h, read, model_.seed, trial, index, scales, 0, h.entries, scratch,
                            index_scratch, ws.attention.data(), ws.score.data());
    } else {
      scan_read_entries<DoubleOps>(h, read, model_.seed, trial, index, scales, 0, h.entries,
                                   scratch, index_scratch, ws.attention.data(), ws.score.data());
    }
    const auto outcome = finish_read<Ops>(h, read, model_.seed, trial, index, needle,
                                          ws.attention.data(), ws.score.data(), scratch);
    return {outcome.retrieved, outcome.best, outcome.selected};
  }
  niah::Argmax best;
  if constexpr (std::is_same_v<Real, float>) {
    best = full_vector_argmax_simd(h, model_.seed, trial, index, needle, 0, h.entries, scratch);
  } else {
    best = scan_full_vector<DoubleOps>(h, model_.seed, trial, index, needle, 0, h.entries, scratch);
  }
  return {h.geometry.holds(best.entry, needle), best};
}

template class FullScanner<float>;
template class FullScanner<double>;

namespace {

template <typename Real>
class FullEngine final : public Engine {
 public:
  std::string name() const override { return std::is_same_v<Real, float> ? "full" : "full-double"; }
  bool monte_carlo() const override { return true; }
  void check(const niah::NiahModel& model) const override {
    refuse_raw_blocks(model, name());
    require_full_vector(model, name());
  }
  std::string approximation(const niah::NiahModel&) const override { return ""; }
  WorkEstimate estimate(const niah::NiahRun& run) const override {
    // Every trial draws a d-vector key for each token every cache pools (query heads share
    // their cache's) and scores each entry once per head it scans (query heads that attend
    // alike are scanned once: run_trials). Measured on AVX-512 (benchmarks/
    // commands_benchmark.cpp): 12 ns a token and 1.45 ns a coordinate in float SIMD, 20 and
    // 22 ns in double.
    const bool single = std::is_same_v<Real, float>;
    const double per_token = single ? 12e-9 : 20e-9, per_coordinate = single ? 1.45e-9 : 22e-9;
    const auto& m = run.model;
    const double dim = *m.dim;
    double per_trial = 0;
    for (int h = 0; h < m.heads(); ++h) {
      const auto entries = static_cast<double>(m.entries(h));
      if (m.key_head(h) == h) {
        const double tokens = entries * m.geometry(h).stride + m.geometry(h).window;
        per_trial += tokens * (per_token + per_coordinate * dim);
      }
      if (m.alike_head(h) == h) per_trial += entries * dim * per_coordinate;
    }
    if (!m.plain()) per_trial *= 2;  // the read path's indexer scans the entries again
    auto estimate = Engine::estimate(run);
    estimate.seconds += static_cast<double>(run.needles.trials()) * per_trial;
    return estimate;
  }
  std::vector<std::string> paths(const niah::NiahModel& model) const override {
    return std::vector<std::string>(static_cast<std::size_t>(model.heads()), "full-vector");
  }

 protected:
  niah::EngineOutput run(const niah::NiahRun& run, const Parallel& parallel) const override {
    return run_trials(FullScanner<Real>(run.model), run, parallel);
  }
};

}  // namespace

std::unique_ptr<Engine> make_full_engine() { return std::make_unique<FullEngine<float>>(); }
std::unique_ptr<Engine> make_full_double_engine() { return std::make_unique<FullEngine<double>>(); }

}  // namespace phasesim::engines
