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

FullVectorHeads full_vector_heads(const niah::NiahModel& model) {
  FullVectorHeads list;
  for (const auto& gate : model.gates) {
    auto& weights = list.group_gates.emplace_back();
    auto& ends = list.group_ends.emplace_back();
    for (const auto& group : gate.channels) {
      weights.insert(weights.end(), group.weights.begin(), group.weights.end());
    }
    ends = channel_ends(gate, *model.dim);
  }
  for (int h = 0; h < model.heads(); ++h) {
    const auto i = static_cast<std::size_t>(h);
    const auto& gate = model.gates[i];
    list.heads.push_back({model.geometry(h), gate.weights.data(), model.entries(h), *model.dim,
                          model.query_noise, model.content_noise, model.rms_norm,
                          static_cast<int>(gate.channels.size()), list.group_gates[i].data(),
                          list.group_ends[i].data(), model.split_rho(h), model.key_head(h)});
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
  return {std::vector<Real>(static_cast<std::size_t>(reals)),
          std::vector<double>(static_cast<std::size_t>(ScanWorkspace<Real>::doubles(window_)))};
}

template <typename Real>
HeadOutcome FullScanner<Real>::trial(std::uint32_t trial, std::int64_t needle, int head,
                                     Workspace& ws) const {
  const auto scratch =
      ScanWorkspace<Real>::carve(ws.reals.data(), ws.doubles.data(), window_, row_, heads_.needs());
  const auto& h = heads_.heads[static_cast<std::size_t>(head)];
  const auto index = static_cast<std::uint32_t>(head);
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
  void check(const niah::NiahModel& model) const override { require_full_vector(model, name()); }
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
    double cells = 0;
    for (int h = 0; h < m.heads(); ++h) {
      const auto entries = static_cast<double>(m.entries(h));
      if (m.key_head(h) == h) {
        const double tokens = entries * m.geometry(h).stride + m.geometry(h).window;
        cells += tokens * (per_token + per_coordinate * dim);
      }
      if (m.alike_head(h) == h) cells += entries * dim * per_coordinate;
    }
    auto estimate = Engine::estimate(run);
    estimate.seconds += static_cast<double>(run.needles.trials()) * cells;
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
