#include "phasesim/theorems/objective.hpp"

#include <algorithm>
#include <cmath>

#include "phasesim/channel/channel.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/core/portable_math.hpp"
#include "phasesim/model/gate.hpp"

namespace phasesim::theorems {
namespace {

// P and its gradient against the objective's rival: the distractors' maximum, or with top_k > 1
// their top_k-th largest (the top-k channel).
channel::ChannelGradient phase_channel(const Objective& objective,
                                       std::span<const channel::NeedleEntry> needle,
                                       std::int64_t distractors) {
  if (objective.top_k > 1)
    return channel::top_k_success_gradient(needle, distractors, objective.top_k);
  return channel::needle_success_gradient(needle, distractors);
}

// P(phi) and dP(phi)/du_s in the normalized model (u = g/||g||), then the chain rule
// to g: du_s/dg_t = (delta_st - u_s u_t)/||g||.
PhaseGradients normalized_phases(const Objective& objective, std::span<const double> g) {
  const auto& geometry = objective.geometry;
  const auto u = normalized_weights(gate_from_weights({g.begin(), g.end()}, "gate"));
  PhaseGradients result;
  for (int phi = 0; phi < geometry.stride; ++phi) {
    const auto slots = geometry.slots_of_phase(phi);
    std::vector<double> phase_u;
    for (int s : slots) phase_u.push_back(std::min(u[static_cast<std::size_t>(s)], 1.0));
    const auto p =
        channel::success_gradient(objective.beta, phase_u, objective.entries, objective.top_k);
    std::vector<double> d_u(g.size(), 0.0);
    for (std::size_t i = 0; i < slots.size(); ++i)
      d_u[static_cast<std::size_t>(slots[i])] = p.d_u[i];
    result.success.push_back(p.probability);
    result.d_g.push_back(normalized_backprop(g, d_u));
  }
  return result;
}

// P(phi) = A_lin(c_phi), c_phi the largest weight of phi; the gradient flows to that
// slot only (a subgradient at ties).
PhaseGradients linear_phases(const Objective& objective, std::span<const double> g) {
  const auto& geometry = objective.geometry;
  PhaseGradients result;
  for (int phi = 0; phi < geometry.stride; ++phi) {
    const auto slots = geometry.slots_of_phase(phi);
    result.success.push_back(0.0);
    result.d_g.emplace_back(g.size(), 0.0);
    if (slots.empty()) continue;
    auto best = static_cast<std::size_t>(slots.front());
    for (int s : slots) {
      if (g[static_cast<std::size_t>(s)] > g[best]) best = static_cast<std::size_t>(s);
    }
    const channel::NeedleEntry entry{objective.beta * g[best], 1.0};
    const auto p = phase_channel(objective, std::span(&entry, 1), objective.entries - 1);
    result.success.back() = p.probability;
    result.d_g.back()[best] = objective.beta * p.d_mean[0];
  }
  return result;
}

// Channel shares: slot s's entry has mean beta x_s and sd sqrt(1 - x_s) (n = 1, u = v = x),
// so dP/dx_s = beta dP/dmean_s - dP/dsd_s / (2 sd_s).
PhaseGradients channel_phases(const Objective& objective, std::span<const double> x) {
  const auto& geometry = objective.geometry;
  PhaseGradients result;
  for (int phi = 0; phi < geometry.stride; ++phi) {
    const auto slots = geometry.slots_of_phase(phi);
    std::vector<channel::NeedleEntry> needle;
    for (int s : slots) {
      const double share = std::clamp(x[static_cast<std::size_t>(s)], 0.0, 1.0);
      needle.push_back({objective.beta * share, std::sqrt(1 - share)});
    }
    const auto distractors = objective.entries - static_cast<std::int64_t>(slots.size());
    const auto p = phase_channel(objective, needle, distractors);
    result.success.push_back(p.probability);
    result.d_g.emplace_back(x.size(), 0.0);
    for (std::size_t i = 0; i < slots.size(); ++i) {
      // At sd = 0 (x_s = 1) the sd term's limit -f'(mean)/2 (dP/dsd ~ sd f'(mean), f the
      // density of the rivals' maximum) is left out: the gate is one-hot there, and its
      // logit gradient vanishes whatever dP/dx_s is.
      const double sd = needle[i].sd;
      const double noise = sd > 0 ? p.d_sd[i] / (2 * sd) : 0.0;
      result.d_g.back()[static_cast<std::size_t>(slots[i])] = objective.beta * p.d_mean[i] - noise;
    }
  }
  return result;
}

}  // namespace

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
  ObjectiveValue result{0.0, phases.success, std::vector<double>(weights.size(), 0.0)};
  for (std::size_t phi = 0; phi < w.size(); ++phi) {
    result.value += w[phi] * phases.success[phi];
    for (std::size_t s = 0; s < weights.size(); ++s)
      result.gradient[s] += w[phi] * phases.d_g[phi][s];
  }
  return result;
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
