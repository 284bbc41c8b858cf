#include "phasesim/inspect/gates.hpp"

#include <algorithm>
#include <cmath>

namespace phasesim::inspect {
namespace {

// Channel c's logits over the window's slots (a compressor without bias: all 0).
std::vector<double> channel_logits(const checkpoint::CompressorWeights& w,
                                   const checkpoint::LayerPlan& plan, int c) {
  const int m = plan.ratio;
  std::vector<double> logits(static_cast<std::size_t>(plan.window()), 0.0);
  if (!w.bias) return logits;
  for (int s = 0; s < plan.window(); ++s) {
    logits[static_cast<std::size_t>(s)] =
        plan.overlap && s >= m ? w.bias->at(s - m, w.channels + c) : w.bias->at(s % m, c);
  }
  return logits;
}

std::string logits_spec(const std::vector<double>& logits) {
  std::string spec = "logits:";
  for (std::size_t s = 0; s < logits.size(); ++s) spec += (s ? "," : "") + format_number(logits[s]);
  return spec;
}

double variance(const std::vector<double>& values) {
  double mean = 0, square = 0;
  for (double v : values) mean += v / static_cast<double>(values.size());
  for (double v : values) square += (v - mean) * (v - mean) / static_cast<double>(values.size());
  return square;
}

// One channel group per channel, as parse_gate reads `channels = [SPEC, ...]` with equal
// shares (one gate when every channel's weights are the same).
Gate channel_gate(const std::vector<std::string>& specs, int window, const std::string& label) {
  std::vector<ChannelGroup> groups;
  for (const auto& spec : specs) {
    auto gate = parse_gate(spec, window);
    groups.push_back({std::move(gate.weights), 1.0 / static_cast<double>(specs.size()), spec});
  }
  const bool one = std::all_of(groups.begin(), groups.end(), [&](const ChannelGroup& g) {
    return g.weights == groups.front().weights;
  });
  if (one) return parse_gate(specs.front(), window);
  return gate_from_channels(std::move(groups), label);
}

ContentSpread content_spread(const checkpoint::CompressorWeights& w) {
  ContentSpread noise{w.gate_name, 0, INFINITY, 0, w.columns_read, w.columns};
  for (double mean_square : w.gate_mean_squares) {
    const double tau = std::sqrt(static_cast<double>(w.columns) * mean_square);
    noise.rms += tau * tau / static_cast<double>(w.gate_mean_squares.size());
    noise.min = std::min(noise.min, tau);
    noise.max = std::max(noise.max, tau);
  }
  noise.rms = std::sqrt(noise.rms);
  return noise;
}

}  // namespace

CompressorGate compressor_gate(const checkpoint::CompressorWeights& weights,
                               const checkpoint::LayerPlan& plan) {
  CompressorGate g;
  g.bias_tensor = weights.bias_name;
  g.channels = weights.channels;
  g.geometry = {plan.window(), plan.stride(), 0};
  std::vector<std::string> specs;
  for (int c = 0; c < weights.channels; ++c) {
    const auto logits = channel_logits(weights, plan, c);
    g.bias_spread += variance(logits) / weights.channels;
    specs.push_back(logits_spec(logits));
  }
  g.bias_spread = std::sqrt(g.bias_spread);
  g.gate = channel_gate(specs, plan.window(),
                        (weights.bias_name.empty() ? "no position bias" : weights.bias_name) +
                            " (" + counted(weights.channels, "channel") + ")");
  g.phases = phase_coverage(g.geometry, g.gate);
  for (const auto& p : g.phases) (p.channel_share > 0 ? g.covered : g.blind).push_back(p.phase);
  if (!weights.gate_name.empty()) g.content = content_spread(weights);
  return g;
}

Sinks sinks_of(const std::string& tensor, const std::vector<double>& logits) {
  Sinks s{tensor, static_cast<int>(logits.size()), 0, 0, 0};
  if (logits.empty()) return s;
  s.min = *std::min_element(logits.begin(), logits.end());
  s.max = *std::max_element(logits.begin(), logits.end());
  for (double v : logits) s.mean += v / static_cast<double>(logits.size());
  return s;
}

Json compressor_gate_json(const CompressorGate& g) {
  Json doc;
  doc["bias_tensor"] = g.bias_tensor.empty() ? Json() : Json(g.bias_tensor);
  doc["channels"] = g.channels;
  doc["window"] = g.geometry.window;
  doc["stride"] = g.geometry.stride;
  doc["gate_weights"] = g.gate.weights;
  doc["phases"] = phase_coverage_json(g.phases);
  doc["covered_phases"] = g.covered;
  doc["blind_phases"] = g.blind;
  doc["bias_spread"] = g.bias_spread;
  if (g.content) {
    const auto& c = *g.content;
    doc["content_noise"] = {{"tensor", c.tensor},
                            {"rms", c.rms},
                            {"min", c.min},
                            {"max", c.max},
                            {"columns_read", c.columns_read},
                            {"columns", c.columns}};
  } else {
    doc["content_noise"] = Json();
  }
  return doc;
}

Json sinks_json(const Sinks& s) {
  return {
      {"tensor", s.tensor}, {"heads", s.heads}, {"min", s.min}, {"mean", s.mean}, {"max", s.max}};
}

}  // namespace phasesim::inspect
