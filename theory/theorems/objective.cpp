#include "phasesim/theorems/objective.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "phasesim/channel/channel.hpp"
#include "phasesim/channel/success_table.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/core/portable_math.hpp"
#include "phasesim/model/gate.hpp"

namespace phasesim::theorems {
namespace {

// P and dP/dx of one phase's coordinates under a law: from the objective's success tables when
// it has them, else from the quadrature, each distinct x once per evaluation (a one-hot gate
// asks for two: its own phase's and that of every other phase). The tables hold the argmax
// channel; under selection (top_k > 1, the top-k channel) every phase is integrated.
class PhaseSuccess {
 public:
  PhaseSuccess(const Objective& objective, channel::EntryLaw law)
      : objective_(objective), law_(law) {
    if (objective.tables && objective.top_k == 1)
      tabled_.emplace(objective.tables->phases(law, objective.beta, objective.entries));
  }

  channel::SuccessGradient operator()(std::span<const double> x) {
    const auto& o = objective_;
    if (tabled_) return (*tabled_)(x);
    for (const auto& [at, value] : computed_) {
      if (std::equal(at.begin(), at.end(), x.begin(), x.end())) return value;
    }
    computed_.emplace_back(std::vector<double>(x.begin(), x.end()),
                           channel::law_success_gradient(law_, o.beta, o.entries, x, o.top_k));
    return computed_.back().second;
  }

 private:
  const Objective& objective_;
  channel::EntryLaw law_;
  std::optional<channel::SuccessTables::Phases> tabled_;
  std::vector<std::pair<std::vector<double>, channel::SuccessGradient>> computed_;
};

// The slots of every phase in increasing order (Geometry::slots_of_phase of each), in one pass.
std::vector<std::vector<int>> slots_by_phase(const Geometry& geometry) {
  std::vector<std::vector<int>> slots(static_cast<std::size_t>(geometry.stride));
  for (int s = 0; s < geometry.window; ++s) {
    slots[static_cast<std::size_t>(geometry.phase_of_slot(s))].push_back(s);
  }
  return slots;
}

PhaseGradients empty_phases(const Geometry& geometry) {
  PhaseGradients result;
  for (int s = 0; s < geometry.window; ++s) result.phase.push_back(geometry.phase_of_slot(s));
  result.slope.assign(static_cast<std::size_t>(geometry.window), 0.0);
  return result;
}

// P(phi) and dP(phi)/du_s in the normalized model (u = g/||g||); the chain rule to g is
// PhaseGradients' (du_s/dg_t = (delta_st - u_s u_t)/||g||).
PhaseGradients normalized_phases(const Objective& objective, std::span<const double> g) {
  const auto u = normalized_weights(gate_from_weights({g.begin(), g.end()}, "gate"));
  PhaseSuccess success(objective, channel::EntryLaw::normalized);
  auto result = empty_phases(objective.geometry);
  result.gate.assign(g.begin(), g.end());
  for (const auto& slots : slots_by_phase(objective.geometry)) {
    std::vector<double> phase_u;
    for (int s : slots) phase_u.push_back(std::min(u[static_cast<std::size_t>(s)], 1.0));
    const auto p = success(phase_u);
    for (std::size_t i = 0; i < slots.size(); ++i)
      result.slope[static_cast<std::size_t>(slots[i])] = p.d_u[i];
    result.success.push_back(p.probability);
  }
  return result;
}

// P(phi) = A_lin(c_phi), c_phi the largest weight of phi; the gradient flows to that
// slot only (a subgradient at ties).
PhaseGradients linear_phases(const Objective& objective, std::span<const double> g) {
  PhaseSuccess success(objective, channel::EntryLaw::linear);
  auto result = empty_phases(objective.geometry);
  for (const auto& slots : slots_by_phase(objective.geometry)) {
    result.success.push_back(0.0);
    if (slots.empty()) continue;
    auto best = static_cast<std::size_t>(slots.front());
    for (int s : slots) {
      if (g[static_cast<std::size_t>(s)] > g[best]) best = static_cast<std::size_t>(s);
    }
    const auto p = success(std::span(&g[best], 1));
    result.success.back() = p.probability;
    result.slope[best] = p.d_u[0];
  }
  return result;
}

// Channel shares: slot s's entry has mean beta x_s and sd sqrt(1 - x_s) (n = 1, u = v = x).
PhaseGradients channel_phases(const Objective& objective, std::span<const double> x) {
  PhaseSuccess success(objective, channel::EntryLaw::shares);
  auto result = empty_phases(objective.geometry);
  for (const auto& slots : slots_by_phase(objective.geometry)) {
    std::vector<double> shares;
    for (int s : slots) shares.push_back(std::clamp(x[static_cast<std::size_t>(s)], 0.0, 1.0));
    const auto p = success(shares);
    result.success.push_back(slots.empty() ? 0.0 : p.probability);
    for (std::size_t i = 0; i < slots.size(); ++i)
      result.slope[static_cast<std::size_t>(slots[i])] = p.d_u[i];
  }
  return result;
}

}  // namespace

Objective tabled(Objective objective) {
  if (!objective.tables) objective.tables = std::make_shared<channel::SuccessTables>();
  return objective;
}

RetentionModel parse_retention_model(std::string_view name) {
  if (name == "normalized") return RetentionModel::normalized;
  if (name == "linear") return RetentionModel::linear;
  if (name == "channels") return RetentionModel::channels;
  throw InputError("invalid --model " + std::string(name) +
                   " (must be normalized, linear or channels)");
}

std::string to_string(RetentionModel model) {
  switch (model) {
    case RetentionModel::normalized:
      return "normalized";
    case RetentionModel::linear:
      return "linear";
    case RetentionModel::channels:
      return "channels";
  }
  return "unknown";
}

void Objective::validate() const {
  geometry.validate();
  require_non_negative(beta, "--beta");
  require(entries >= geometry.window, "invalid --entries " + std::to_string(entries) +
                                          " (must be at least the window, " +
                                          std::to_string(geometry.window) + ")");
  if (!phase_weights.empty()) normalized_phase_weights(phase_weights, geometry.stride);
  require_in_range(top_k, 1, entries - geometry.window, "--top-k");
}

std::vector<double> Objective::weights() const {
  if (phase_weights.empty()) {
    return std::vector<double>(static_cast<std::size_t>(geometry.stride), 1.0 / geometry.stride);
  }
  return normalized_phase_weights(phase_weights, geometry.stride);
}

std::vector<double> normalized_phase_weights(std::span<const double> raw, int stride,
                                             const std::string& option) {
  require(static_cast<int>(raw.size()) == stride,
          "invalid " + option + " (has " + counted(raw.size(), "value") + ", one per phase needs " +
              std::to_string(stride) + ")");
  double total = 0;
  for (double x : raw) {
    require(std::isfinite(x) && x >= 0,
            "invalid " + option + " " + format_number(x) + " (each must be finite and >= 0)");
    total += x;
  }
  require(total > 0, "invalid " + option + " (must not all be zero)");
  std::vector<double> w(raw.begin(), raw.end());
  for (double& x : w) x /= total;
  return w;
}

ObjectiveValue evaluate_weights(const Objective& objective, std::span<const double> weights) {
  require(static_cast<int>(weights.size()) == objective.geometry.window,
          "gate has " + counted(weights.size(), "weight") + ", the window needs " +
              std::to_string(objective.geometry.window));
  const auto w = objective.weights();
  const auto phases = phase_gradients(objective, weights);
  ObjectiveValue result{0.0, phases.success, phases.weighted_gradient(w)};
  for (std::size_t phi = 0; phi < w.size(); ++phi) result.value += w[phi] * phases.success[phi];
  return result;
}

std::vector<double> PhaseGradients::weighted_gradient(std::span<const double> a) const {
  std::vector<double> d_x(slope.size());
  for (std::size_t s = 0; s < slope.size(); ++s)
    d_x[s] = a[static_cast<std::size_t>(phase[s])] * slope[s];
  return gate.empty() ? d_x : normalized_backprop(gate, d_x);
}

double PhaseGradients::derivative(int phi, int t) const {
  const auto at = static_cast<std::size_t>(t);
  const double own = phase[at] == phi ? slope[at] : 0.0;
  if (gate.empty()) return own;
  // normalized_backprop's arithmetic for this phase's d_u (zero off the phase), term by term.
  double norm = 0;
  for (double x : gate) norm += x * x;
  norm = std::sqrt(norm);
  double radial = 0;
  for (std::size_t s = 0; s < gate.size(); ++s) {
    if (phase[s] == phi) radial += gate[s] / norm * slope[s];
  }
  return (own - gate[at] / norm * radial) / norm;
}

PhaseGradients phase_gradients(const Objective& objective, std::span<const double> weights) {
  switch (objective.model) {
    case RetentionModel::linear:
      return linear_phases(objective, weights);
    case RetentionModel::channels:
      return channel_phases(objective, weights);
    case RetentionModel::normalized:
      break;
  }
  return normalized_phases(objective, weights);
}

ObjectiveValue evaluate_logits(const Objective& objective, std::span<const double> logits) {
  const auto g = gate_from_logits({logits.begin(), logits.end()}, "logits").weights;
  auto result = evaluate_weights(objective, g);
  result.gradient = softmax_backprop(g, result.gradient);
  return result;
}

std::vector<double> normalized_backprop(std::span<const double> g, std::span<const double> d_u) {
  double norm = 0;
  for (double x : g) norm += x * x;
  norm = std::sqrt(norm);
  double radial = 0;  // sum_s u_s dJ/du_s
  for (std::size_t s = 0; s < g.size(); ++s) radial += g[s] / norm * d_u[s];
  std::vector<double> d_g(g.size());
  for (std::size_t t = 0; t < g.size(); ++t) d_g[t] = (d_u[t] - g[t] / norm * radial) / norm;
  return d_g;
}

std::vector<double> softmax_backprop(std::span<const double> g, std::span<const double> d_g) {
  double mean = 0;  // sum_s g_s dJ/dg_s
  for (std::size_t s = 0; s < g.size(); ++s) mean += g[s] * d_g[s];
  std::vector<double> d_b(g.size());
  for (std::size_t s = 0; s < g.size(); ++s) d_b[s] = g[s] * (d_g[s] - mean);
  return d_b;
}

GateSummary summarize_gate(std::span<const double> weights) {
  GateSummary summary;
  for (std::size_t s = 0; s < weights.size(); ++s) {
    const double g = weights[s];
    if (g > summary.max_weight) summary.max_weight = g, summary.argmax = static_cast<int>(s);
    if (g > 0) summary.entropy -= g * portable::log(g);
    if (g > kEffectiveWeight) ++summary.k_effective;
  }
  return summary;
}

std::vector<double> initial_logits(const std::string& spec, int window) {
  std::vector<double> logits;
  const auto gate = parse_gate(spec, window);
  require_one_gate(gate, "--init");
  for (double w : gate.weights) logits.push_back(portable::log(std::max(w, 1e-300)));
  return logits;
}

}  // namespace phasesim::theorems
