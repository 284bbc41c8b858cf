#include <algorithm>
#include <cstdio>

#include "phasesim/niah/architecture.hpp"

namespace phasesim::niah {
namespace {

// A TOML basic string: quotes, backslashes and control characters escaped.
std::string toml_quoted(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04X", static_cast<unsigned char>(c));
      out += escape;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// `gate = "SPEC"`, or a per-channel gate's `channels = [...]`: its groups' specs alone when
// their shares are equal (the parser's default), else each with its share. The index gate
// under its own keys, index_gate and index_channels.
std::string gate_text(const Gate& gate, const std::string& indent, const std::string& prefix = "") {
  if (!gate.per_channel()) return prefix + "gate = " + toml_quoted(gate.spec);
  const double equal = 1.0 / static_cast<double>(gate.channels.size());
  const bool equal_shares = std::all_of(gate.channels.begin(), gate.channels.end(),
                                        [&](const ChannelGroup& g) { return g.share == equal; });
  std::string text = prefix + "channels = [\n";
  for (const auto& group : gate.channels) {
    text += indent + "  " +
            (equal_shares ? toml_quoted(group.spec)
                          : "{ gate = " + toml_quoted(group.spec) +
                                ", share = " + format_number(group.share) + " }") +
            ",\n";
  }
  return text + indent + "]";
}

// The values of one cache: each `key = value` joined by `separator`.
std::vector<std::string> head_values(const ArchitectureHead& head, const std::string& indent) {
  const auto& g = head.geometry;
  std::vector<std::string> values{"window = " + std::to_string(g.window),
                                  "stride = " + std::to_string(g.stride)};
  if (g.offset != 0) values.push_back("offset = " + std::to_string(g.offset));
  if (head.split_rho != 1) values.push_back("split_rho = " + format_number(head.split_rho));
  if (head.query_heads > 1) values.push_back("query_heads = " + std::to_string(head.query_heads));
  values.push_back(gate_text(head.gate, indent));
  // The read path (MODEL.md section 10) as the file gave it: the values it sets.
  const auto& read = head.read_path;
  if (read.top_k) values.push_back("top_k = " + std::to_string(*read.top_k));
  if (read.index_gate) values.push_back(gate_text(*read.index_gate, indent, "index_"));
  if (read.index_beta) values.push_back("index_beta = " + format_number(*read.index_beta));
  if (read.index_rho) values.push_back("index_rho = " + format_number(*read.index_rho));
  if (read.sliding_window)
    values.push_back("sliding_window = " + std::to_string(*read.sliding_window));
  if (read.sink) values.push_back("sink = " + format_number(*read.sink));
  if (read.beta) values.push_back("beta = " + format_number(*read.beta));
  if (read.raw_blocks)
    values.push_back(*read.raw_blocks ? "raw_blocks = true" : "raw_blocks = false");
  return values;
}

std::string layer_text(const std::vector<const ArchitectureHead*>& caches) {
  std::string text;
  if (caches.size() == 1) {
    for (const auto& value : head_values(*caches.front(), "")) text += value + "\n";
    return text;
  }
  text += "heads = [\n";
  for (const auto* head : caches) {
    std::string inline_table;
    for (const auto& value : head_values(*head, "  "))
      inline_table += (inline_table.empty() ? "" : ", ") + value;
    text += "  { " + inline_table + " },\n";
  }
  return text + "]\n";
}

// A stack's keys of a layer: its kind where the file gave one, how it gets its cache.
std::string stack_text(const ArchitectureLayer& layer) {
  std::string text;
  if (layer.labelled) text += "kind = " + toml_quoted(layer.kind) + "\n";
  if (layer.shares > 0) text += "shares = " + std::to_string(layer.shares) + "\n";
  if (layer.window_only) {
    text += "window_only = true\nsliding_window = " + std::to_string(layer.sliding_window) + "\n";
    if (layer.sink) text += "sink = " + format_number(*layer.sink) + "\n";
  }
  return text;
}

}  // namespace

std::string architecture_toml(const Architecture& arch, const std::vector<std::string>& comments,
                              const std::vector<std::vector<std::string>>& layer_notes) {
  std::string text;
  for (const auto& line : comments) text += "# " + line + "\n";
  text += "name = " + toml_quoted(arch.name) + "\n";
  if (!arch.description.empty()) text += "description = " + toml_quoted(arch.description) + "\n";
  for (int layer = 1; layer <= arch.layers; ++layer) {
    std::vector<const ArchitectureHead*> caches;
    for (const auto& head : arch.heads) {
      if (head.layer == layer && head.holds_cache()) caches.push_back(&head);
    }
    text += "\n[[layer]]\n";
    const auto index = static_cast<std::size_t>(layer - 1);
    if (index < layer_notes.size()) {
      for (const auto& line : layer_notes[index]) text += "# " + line + "\n";
    }
    text += index < arch.stack.size() ? stack_text(arch.stack[index]) : "";
    if (!caches.empty()) text += layer_text(caches);
  }
  if (arch.fit) {
    const auto& f = *arch.fit;
    text += "\n[fit]\ntable = " + toml_quoted(f.table) + "\nbeta = " + format_number(f.beta) +
            "\none_gate = " + toml_quoted(f.one_gate) +
            "\none_gate_beta = " + format_number(f.one_gate_beta) + "\n";
  }
  return text;
}

}  // namespace phasesim::niah
