#include "phasesim/model/gate.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <type_traits>

#include "phasesim/core/budget.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/core/files.hpp"
#include "phasesim/core/random.hpp"
#include "phasesim/model/softmax.hpp"

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

// A number of a spec in phasesim's grammar (core/error.hpp); a leading zero is refused by
// name, as the options refuse it.
template <typename Number>
bool parse_number(std::string_view spec, std::string_view text, Number& value) {
  if (has_leading_zero(text))
    bad_gate(spec, "'" + std::string(text) + "' has " + leading_zero_rule(text));
  return read_decimal(text, value) == std::errc();
}

std::vector<double> parse_numbers(std::string_view spec, std::string_view list, int window) {
  std::vector<double> values;
  for (auto item : split(list, ',')) {
    double value = 0;
    if (!parse_number(spec, item, value)) {
      bad_gate(spec, "'" + std::string(item) + "' is not a number");
    }
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
  if (!parse_number(spec, parts[0], seed)) {
    bad_gate(spec, "random needs random:SEED[:SCALE] with SEED a non-negative integer");
  }
  if (parts.size() == 2 &&
      (!parse_number(spec, parts[1], scale) || !std::isfinite(scale) || scale < 0)) {
    bad_gate(spec, "SCALE must be a finite number >= 0");
  }
  return gate_from_logits(random_logits(seed, scale, window), std::string(spec));
}

Gate one_hot(int window, int slot, std::string_view spec) {
  std::vector<double> w(static_cast<std::size_t>(window), 0.0);
  w[static_cast<std::size_t>(slot)] = 1.0;
  return gate_from_weights(std::move(w), std::string(spec));
}

// One group of channels:SPEC=SHARE|...: the spec, and its share (unset when omitted).
struct GroupSpec {
  std::string_view gate;
  std::optional<double> share;
};

GroupSpec parse_group(std::string_view spec, std::string_view item) {
  const auto equals = item.rfind('=');
  if (equals == std::string_view::npos) return {item, std::nullopt};
  double share = 0;
  const auto text = trim(item.substr(equals + 1));
  if (!parse_number(spec, text, share)) {
    bad_gate(spec, "the share '" + std::string(text) + "' of channel group '" + std::string(item) +
                       "' is not a number");
  }
  return {trim(item.substr(0, equals)), share};
}

Gate parse_channels(std::string_view spec, std::string_view args, int window) {
  const auto items = split(args, '|');
  // Every group holds W weights: refuse before allocating them all.
  check_work(
      "--window " + std::to_string(window) + " with " + counted(items.size(), "channel group"),
      {0, 32.0 * window * static_cast<double>(items.size())}, 1);
  std::vector<GroupSpec> groups;
  for (auto item : items) groups.push_back(parse_group(spec, item));
  const auto given = std::count_if(groups.begin(), groups.end(),
                                   [](const GroupSpec& g) { return g.share.has_value(); });
  if (given != 0 && given != static_cast<std::ptrdiff_t>(groups.size())) {
    bad_gate(spec, "give every channel group a share (SPEC=SHARE) or none (equal shares)");
  }
  std::vector<ChannelGroup> channels;
  for (const auto& g : groups) {
    if (g.gate.starts_with("channels:")) bad_gate(spec, "a channel group cannot be per-channel");
    auto gate = parse_gate(g.gate, window);
    const double share = g.share.value_or(1.0 / static_cast<double>(groups.size()));
    channels.push_back({std::move(gate.weights), share, std::string(g.gate)});
  }
  return gate_from_channels(std::move(channels), std::string(spec));
}

std::string weights_spec(const nlohmann::json& item) {
  std::string spec = "weights:";
  for (std::size_t i = 0; i < item.size(); ++i) spec += (i ? "," : "") + item[i].dump();
  return spec;
}

bool is_weights(const nlohmann::json& item) {
  return item.is_array() &&
         std::all_of(item.begin(), item.end(), [](const auto& x) { return x.is_number(); });
}

// A channel group of a gate file: a spec, an array of weights or {"gate": ..., "share": x}.
std::string group_spec(const nlohmann::json& item, const std::string& file) {
  if (item.is_string()) return item.get<std::string>();
  if (is_weights(item)) return weights_spec(item);
  if (item.is_object() && item.contains("gate") && item.size() <= 2) {
    const auto& gate = item["gate"];
    std::string spec = gate.is_string() ? gate.get<std::string>() : weights_spec(gate);
    if (!item.contains("share")) return spec;
    if (item["share"].is_number()) return spec + "=" + item["share"].dump();
  }
  throw InputError("invalid gate file '" + file + "' (a channel group must be a gate spec, " +
                   "an array of weights or {\"gate\": ..., \"share\": x}, got " + item.dump() +
                   ")");
}

Gate gate_from_json_item(const nlohmann::json& item, int window, const std::string& file) {
  if (item.is_string()) return parse_gate(item.get<std::string>(), window);
  if (is_weights(item)) return parse_gate(weights_spec(item), window);
  if (item.is_object() && item.size() == 1 && item.contains("channels") &&
      item["channels"].is_array() && !item["channels"].empty()) {
    std::vector<std::string> groups;
    for (const auto& group : item["channels"]) groups.push_back(group_spec(group, file));
    return parse_gate(channels_spec(groups), window);
  }
  throw InputError("invalid gate file '" + file + "' (each gate must be a gate spec string, " +
                   "an array of weights or {\"channels\": [...]}, got " + item.dump() + ")");
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
  // x / 1 is x: weights that already sum to 1 (a softmax's, often, which the searches pass
  // here at every evaluation) keep their bits without the divisions.
  if (total != 1) {
    for (double& w : weights) w /= total;
  }
  return {std::move(weights), std::move(spec), {}};
}

Gate gate_from_logits(const std::vector<double>& logits, std::string spec) {
  if (!std::all_of(logits.begin(), logits.end(), [](double b) { return std::isfinite(b); })) {
    bad_gate(spec, "logits must be finite");
  }
  // One numerator is 1 and none is larger, so their sum neither overflows nor vanishes: what
  // gate_from_weights checks and rescales cannot happen here.
  std::vector<double> weights(logits.size());
  softmax(logits.data(), static_cast<int>(logits.size()), weights.data());
  return {std::move(weights), std::move(spec), {}};
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
    if (!parse_number(spec, args, k) || k < 0 || k >= window) {
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
  if (form == "channels" && has_args) return parse_channels(spec, args, window);
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
  if (gate.per_channel() && index > 0) {
    std::vector<std::string> groups;
    for (const auto& group : gate.channels) {
      const Gate one{group.weights, group.spec, {}};
      groups.push_back(replicate_gate(one, index).spec + "=" + format_number(group.share));
    }
    return parse_gate(channels_spec(groups), gate.window());
  }
  const std::string_view spec = gate.spec;
  if (index == 0 || !spec.starts_with("random:")) return gate;
  const auto parts = split(spec.substr(7), ':');
  std::uint64_t seed = 0;
  parse_number(spec, parts[0], seed);
  std::string replica = "random:" + std::to_string(seed + static_cast<std::uint64_t>(index));
  if (parts.size() == 2) replica += ":" + std::string(parts[1]);
  return parse_gate(replica, gate.window());
}

Gate gate_from_channels(std::vector<ChannelGroup> groups, std::string spec) {
  if (groups.empty()) bad_gate(spec, "no channel groups");
  double total = 0;
  for (const auto& g : groups) {
    if (g.weights.size() != groups.front().weights.size()) {
      bad_gate(spec, "its channel groups have different windows");
    }
    if (!(g.share > 0 && g.share <= 1)) {
      bad_gate(spec, "the share of channel group '" + g.spec + "' is " + format_number(g.share) +
                         " (must be in (0, 1])");
    }
    total += g.share;
  }
  if (std::abs(total - 1) > 1e-9) {
    bad_gate(spec, "the shares of its channel groups sum to " + format_number(total) +
                       " (must sum to 1)");
  }
  const bool one_gate = std::all_of(groups.begin(), groups.end(), [&](const ChannelGroup& g) {
    return g.weights == groups.front().weights;
  });
  if (one_gate) return {std::move(groups.front().weights), std::move(spec), {}};
  std::vector<double> mean(groups.front().weights.size(), 0.0);
  for (const auto& g : groups) {
    for (std::size_t s = 0; s < mean.size(); ++s) mean[s] += g.share / total * g.weights[s];
  }
  return {std::move(mean), std::move(spec), std::move(groups)};
}

void require_one_gate(const Gate& gate, const std::string& option) {
  if (!gate.per_channel()) return;
  throw InputError("invalid " + option + " " + gate.spec +
                   " (this command's theory is of one gate for every channel; per-channel gates "
                   "run in niah, coverage and architecture files)");
}

std::vector<int> channel_counts(const Gate& gate, int dim) {
  if (!gate.per_channel()) return {dim};
  // Largest remainder: floor(share d) each, then one more to the largest fractions.
  std::vector<int> counts;
  std::vector<std::pair<double, std::size_t>> fractions;
  int assigned = 0;
  for (std::size_t k = 0; k < gate.channels.size(); ++k) {
    const double exact = gate.channels[k].share * dim;
    counts.push_back(static_cast<int>(std::floor(exact)));
    assigned += counts.back();
    fractions.emplace_back(exact - std::floor(exact), k);
  }
  std::stable_sort(fractions.begin(), fractions.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t i = 0; assigned < dim; ++i, ++assigned) ++counts[fractions[i].second];
  return counts;
}

std::vector<int> channel_ends(const Gate& gate, int dim) {
  std::vector<int> ends;
  for (const int count : channel_counts(gate, dim)) {
    ends.push_back((ends.empty() ? 0 : ends.back()) + count);
  }
  return ends;
}

std::string channels_spec(const std::vector<std::string>& groups) {
  std::string spec = "channels:";
  for (std::size_t k = 0; k < groups.size(); ++k) spec += (k ? "|" : "") + groups[k];
  return spec;
}

void check_channel_counts(const Gate& gate, int dim) {
  const auto counts = channel_counts(gate, dim);
  for (std::size_t k = 0; k < counts.size(); ++k) {
    if (counts[k] > 0) continue;
    bad_gate(gate.spec, "channel group " + std::to_string(k + 1) + " has share " +
                            format_number(gate.channels[k].share) +
                            ", none of the d = " + std::to_string(dim) +
                            " channels; every group needs a share of at " + "least 1/d");
  }
}

std::vector<SlotLaw> slot_laws(const Gate& gate) {
  std::vector<SlotLaw> laws;
  if (!gate.per_channel()) {
    for (double u : normalized_weights(gate)) laws.push_back({u, std::sqrt((1 - u) * (1 + u))});
    return laws;
  }
  double norm_sq = 0;
  for (const auto& g : gate.channels) {
    for (double w : g.weights) norm_sq += g.share * w * w;
  }
  for (int s = 0; s < gate.window(); ++s) {
    double mean = 0, square = 0;
    for (const auto& g : gate.channels) {
      const double w = g.weights[static_cast<std::size_t>(s)];
      mean += g.share * w;
      square += g.share * w * w;
    }
    laws.push_back({mean / std::sqrt(norm_sq), std::sqrt(std::max(0.0, 1 - square / norm_sq))});
  }
  return laws;
}

std::vector<SlotLaw> slot_laws(const Gate& gate, const Geometry& geometry, double split_rho) {
  auto laws = slot_laws(gate);
  if (split_rho == 1) return laws;
  for (int s = 0; s < geometry.older_slots(); ++s) {
    laws[static_cast<std::size_t>(s)] = split_law(laws[static_cast<std::size_t>(s)], split_rho);
  }
  return laws;
}

SlotLaw split_law(SlotLaw law, double split_rho) {
  const double v = 1 - law.sd * law.sd;
  return {split_rho * law.u, std::sqrt(std::max(0.0, 1 - split_rho * split_rho * v))};
}

std::vector<double> normalized_weights(const Gate& gate) {
  if (gate.per_channel()) {
    std::vector<double> u;
    for (const auto& law : slot_laws(gate)) u.push_back(law.u);
    return u;
  }
  double sum_sq = 0;
  for (double w : gate.weights) sum_sq += w * w;
  const double norm = std::sqrt(sum_sq);
  // Sized first, then written (no capacity check a slot): the searches call this at every
  // evaluation of J, 128 slots at W = 128.
  std::vector<double> u(gate.weights.size());
  for (std::size_t s = 0; s < u.size(); ++s) u[s] = gate.weights[s] / norm;
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
