#include "phasesim/model/gate.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>
#include <type_traits>

#include "phasesim/core/budget.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/core/files.hpp"
#include "phasesim/core/portable_math.hpp"
#include "phasesim/core/random.hpp"

namespace phasesim {
namespace {

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\n\r");
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(" \t\n\r");
  return text.substr(first, last - first + 1);
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const auto end = text.find(separator, start);
    parts.push_back(trim(text.substr(start, end - start)));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

[[noreturn]] void bad_gate(std::string_view spec, const std::string& why) {
  throw InputError("invalid gate '" + std::string(spec) + "' (" + why + ")");
}

template <typename Number>
bool parse_number(std::string_view text, Number& value) {
  if constexpr (std::is_floating_point_v<Number>) {
    return read_number(text, value);
  } else {
    const auto* end = text.data() + text.size();
    const auto result = std::from_chars(text.data(), end, value);
    return result.ec == std::errc() && result.ptr == end;
  }
}

std::vector<double> parse_numbers(std::string_view spec, std::string_view list, int window) {
  std::vector<double> values;
  for (auto item : split(list, ',')) {
    double value = 0;
    if (!parse_number(item, value)) bad_gate(spec, "'" + std::string(item) + "' is not a number");
    values.push_back(value);
  }
  if (static_cast<int>(values.size()) != window) {
    bad_gate(spec, "has " + counted(values.size(), "value") + ", the window needs " +
                       std::to_string(window));
  }
  return values;
}

Gate parse_random(std::string_view spec, std::string_view args, int window) {
  const auto parts = split(args, ':');
  std::uint64_t seed = 0;
  double scale = 1.0;
  if (parts.size() > 2) {
    bad_gate(spec, "random takes random:SEED or random:SEED:SCALE, not " +
                       std::to_string(parts.size()) + " fields after 'random:'");
  }
  if (!parse_number(parts[0], seed)) {
    bad_gate(spec, "random needs random:SEED[:SCALE] with SEED a non-negative integer");
  }
  if (parts.size() == 2 && (!parse_number(parts[1], scale) || !std::isfinite(scale) || scale < 0)) {
    bad_gate(spec, "SCALE must be a finite number >= 0");
  }
  return gate_from_logits(random_logits(seed, scale, window), std::string(spec));
}

Gate one_hot(int window, int slot, std::string_view spec) {
  std::vector<double> w(static_cast<std::size_t>(window), 0.0);
  w[static_cast<std::size_t>(slot)] = 1.0;
  return gate_from_weights(std::move(w), std::string(spec));
}

Gate gate_from_json_item(const nlohmann::json& item, int window, const std::string& file) {
  if (item.is_string()) return parse_gate(item.get<std::string>(), window);
  if (item.is_array() &&
      std::all_of(item.begin(), item.end(), [](const auto& x) { return x.is_number(); })) {
    std::string spec = "weights:";
    for (std::size_t i = 0; i < item.size(); ++i) {
      spec += (i ? "," : "") + item[i].dump();
    }
    return parse_gate(spec, window);
  }
  throw InputError("invalid gate file '" + file + "' (each gate must be a gate spec string " +
                   "or an array of weights, got " + item.dump() + ")");
}

std::vector<Gate> parse_gate_file(const std::string& file, int window) {
  const auto text = read_input_file(file, "gate file");
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError("invalid gate file '" + file + "' (not valid JSON: " + e.what() + ")");
  }
  const auto& list = doc.is_object() && doc.contains("gates") ? doc["gates"] : doc;
  require(list.is_array() && !list.empty(), "invalid gate file '" + file +
                                                "' (expected a non-empty list of gates, or " +
                                                "{\"gates\": [...]})");
  std::vector<Gate> gates;
  for (const auto& item : list) gates.push_back(gate_from_json_item(item, window, file));
  return gates;
}

}  // namespace

std::vector<double> random_logits(std::uint64_t seed, double scale, int window) {
  const RandomStream stream(seed, 0, 0, Stream::gate_init);
  std::vector<double> logits(static_cast<std::size_t>(window));
  for (int s = 0; s < window; ++s) {
    logits[static_cast<std::size_t>(s)] = scale * stream.normal(0, static_cast<std::uint32_t>(s));
  }
  return logits;
}

Gate gate_from_weights(std::vector<double> weights, std::string spec) {
  const bool valid = std::all_of(weights.begin(), weights.end(),
                                 [](double w) { return std::isfinite(w) && w >= 0; });
  if (!valid) bad_gate(spec, "weights must be finite and >= 0");
  double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  if (std::isinf(total)) {
    // Weights near the double range overflow the sum: scale by the largest first. Only
    // then, so that ordinary weights keep their exact normalization (and results).
    const double top = *std::max_element(weights.begin(), weights.end());
    for (double& w : weights) w /= top;
    total = std::accumulate(weights.begin(), weights.end(), 0.0);
  }
  if (!(total > 0)) bad_gate(spec, "weights must not all be zero");
  for (double& w : weights) w /= total;
  return {std::move(weights), std::move(spec)};
}

Gate gate_from_logits(const std::vector<double>& logits, std::string spec) {
  if (!std::all_of(logits.begin(), logits.end(), [](double b) { return std::isfinite(b); })) {
    bad_gate(spec, "logits must be finite");
  }
  const double top = *std::max_element(logits.begin(), logits.end());
  std::vector<double> weights;
  for (double b : logits) weights.push_back(portable::exp(b - top));
  return gate_from_weights(std::move(weights), std::move(spec));
}

Gate parse_gate(std::string_view spec, int window) {
  require_at_least(window, 1, "--window");
  // A gate and the copies made of it (logits, normalized weights, per thread): refuse a
  // window whose gates alone would not fit before allocating them.
  check_work("--window " + std::to_string(window), {0, 32.0 * window}, 1);
  spec = trim(spec);
  const auto colon = spec.find(':');
  const auto form = spec.substr(0, colon);
  const auto args = colon == std::string_view::npos ? std::string_view{} : spec.substr(colon + 1);
  const bool has_args = colon != std::string_view::npos;
  const auto W = static_cast<std::size_t>(window);

  if (form == "uniform" && !has_args) {
    return gate_from_weights(std::vector<double>(W, 1.0), std::string(spec));
  }
  if (form == "last" && !has_args) return one_hot(window, window - 1, spec);
  if (form == "onehot" && has_args) {
    int k = -1;
    if (!parse_number(args, k) || k < 0 || k >= window) {
      bad_gate(spec, "onehot:K needs an integer K in [0, " + std::to_string(window - 1) + "]");
    }
    return one_hot(window, k, spec);
  }
  if (form == "weights" && has_args) {
    return gate_from_weights(parse_numbers(spec, args, window), std::string(spec));
  }
  if (form == "logits" && has_args) {
    return gate_from_logits(parse_numbers(spec, args, window), std::string(spec));
  }
  if (form == "random" && has_args) return parse_random(spec, args, window);
  if (spec.find(';') != std::string_view::npos) {
    bad_gate(spec, "one gate here, not a ';'-separated list of heads; niah --gates takes several");
  }
  bad_gate(spec, std::string("use ") + kGateFormsHelp);
}

std::vector<Gate> parse_gates(std::string_view specs, int window) {
  specs = trim(specs);
  if (!specs.empty() && specs.front() == '@') {
    return parse_gate_file(std::string(specs.substr(1)), window);
  }
  std::vector<Gate> gates;
  for (auto spec : split(specs, ';')) gates.push_back(parse_gate(spec, window));
  return gates;
}

Gate replicate_gate(const Gate& gate, int index) {
  const std::string_view spec = gate.spec;
  if (index == 0 || !spec.starts_with("random:")) return gate;
  const auto parts = split(spec.substr(7), ':');
  std::uint64_t seed = 0;
  parse_number(parts[0], seed);
  std::string replica = "random:" + std::to_string(seed + static_cast<std::uint64_t>(index));
  if (parts.size() == 2) replica += ":" + std::string(parts[1]);
  return parse_gate(replica, gate.window());
}

std::vector<double> normalized_weights(const Gate& gate) {
  double sum_sq = 0;
  for (double w : gate.weights) sum_sq += w * w;
  const double norm = std::sqrt(sum_sq);
  std::vector<double> u;
  for (double w : gate.weights) u.push_back(w / norm);
  return u;
}

std::vector<double> renormalized_weights(const Gate& gate, int first_slot) {
  std::vector<double> w = gate.weights;
  double total = 0;
  for (std::size_t s = 0; s < w.size(); ++s) {
    if (static_cast<int>(s) < first_slot) w[s] = 0;
    total += w[s];
  }
  for (double& x : w) x = total > 0 ? x / total : 0.0;
  return w;
}

}  // namespace phasesim
