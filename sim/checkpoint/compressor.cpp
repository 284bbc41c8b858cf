#include "phasesim/checkpoint/compressor.hpp"

#include <algorithm>
#include <cctype>
#include <optional>

#include "phasesim/core/error.hpp"

namespace phasesim::checkpoint {
namespace {

std::string attention_prefix(Spelling spelling, int layer) {
  const auto n = std::to_string(layer);
  return spelling == Spelling::deepseek ? "layers." + n + ".attn."
                                        : "model.layers." + n + ".self_attn.";
}

// What a tensor of a layer's attention is, by its name after the attention's prefix.
enum class Role { other, compressor, indexer_compressor };

Role role_of(Spelling spelling, std::string_view rest) {
  if (spelling == Spelling::deepseek) {
    if (rest.starts_with("compressor.")) return Role::compressor;
    if (rest.starts_with("indexer.compressor.")) return Role::indexer_compressor;
    return Role::other;
  }
  if (!rest.starts_with("compressor.")) return Role::other;
  rest.remove_prefix(11);
  if (!rest.starts_with("indexer.")) return Role::compressor;
  rest.remove_prefix(8);
  for (const char* part : {"position_bias", "gate_proj.", "kv_proj.", "kv_norm."}) {
    if (rest.starts_with(part)) return Role::indexer_compressor;
  }
  return Role::other;  // the indexer's query and weights projections
}

// The layer a name belongs to, and the rest after its attention's prefix; unset for names
// outside the layers' attention (embeddings, experts, DeepSeek's mtp.N).
std::optional<std::pair<std::int64_t, std::string_view>> attention_name(Spelling spelling,
                                                                        std::string_view name) {
  const std::string_view head = spelling == Spelling::deepseek ? "layers." : "model.layers.";
  const std::string_view attention = spelling == Spelling::deepseek ? ".attn." : ".self_attn.";
  if (!name.starts_with(head)) return std::nullopt;
  name.remove_prefix(head.size());
  std::size_t digits = 0;
  std::int64_t layer = 0;
  while (digits < name.size() && digits < 9 &&
         std::isdigit(static_cast<unsigned char>(name[digits]))) {
    layer = layer * 10 + (name[digits++] - '0');
  }
  if (digits == 0) return std::nullopt;
  name.remove_prefix(digits);
  if (!name.starts_with(attention)) return std::nullopt;
  name.remove_prefix(attention.size());
  return std::pair{layer, name};
}

std::string describe(const LayerPlan& p) {
  if (p.ratio == 0) return "window-only (compress ratio 0)";
  if (p.cache_of) {
    return "a reader of layer " + std::to_string(*p.cache_of) +
           "'s compressed cache (kv_source_layers)";
  }
  return p.kind + " with compress ratio " + std::to_string(p.ratio);
}

// Every compressor tensor must sit at a layer whose plan runs that compressor.
void check_layers(const Checkpoint& ckpt, const ModelConfig& config, Spelling spelling) {
  for (const auto& name : ckpt.names()) {
    const auto at = attention_name(spelling, name);
    if (!at) continue;
    const auto role = role_of(spelling, at->second);
    if (role == Role::other) continue;
    const auto disagree = [&](const std::string& what) {
      throw InputError("config '" + config.file + "' disagrees with checkpoint file '" +
                       ckpt.file_of(name) + "': tensor " + name + " " + what);
    };
    if (at->first >= config.layers) {
      disagree("belongs to layer " + std::to_string(at->first) + ", the config has " +
               std::to_string(config.layers) + " layers (0 to " +
               std::to_string(config.layers - 1) + ")");
    }
    const auto& p = config.plan[static_cast<std::size_t>(at->first)];
    if (role == Role::compressor && !p.compressor) {
      disagree("is a compressor's, the config makes layer " + std::to_string(p.layer) + " " +
               describe(p));
    }
    if (role == Role::indexer_compressor && !p.indexer) {
      disagree("is an indexer's compressor's, the config makes layer " + std::to_string(p.layer) +
               " " + describe(p) + ", which has none");
    }
  }
}

struct Expected {
  const ModelConfig& config;
  const LayerPlan& plan;
  Checkpoint& ckpt;

  const TensorInfo& tensor(const std::string& name, const char* what) const {
    if (!ckpt.has(name)) {
      throw InputError("checkpoint '" + ckpt.path() + "' has no " + what + " for layer " +
                       std::to_string(plan.layer) + ", which config '" + config.file + "' makes " +
                       describe(plan) + ": looked for " + name);
    }
    return ckpt.tensor(name);
  }

  [[noreturn]] void bad_shape(const TensorInfo& t, const std::string& expected) const {
    throw InputError("invalid checkpoint file '" + ckpt.file_of(t.name) + "': tensor " + t.name +
                     ": shape " + t.shape_text() + " (config '" + config.file + "' makes layer " +
                     std::to_string(plan.layer) + " " + describe(plan) + ": expected " + expected +
                     ")");
  }
};

// The bytes a read of `name` takes: all of it, or of a 2-D tensor the first `columns` of each
// row (an FP8 tensor's scales, a few bytes, aside).
std::uint64_t read_bytes(Checkpoint& ckpt, const std::string& name, std::int64_t columns) {
  const auto& t = ckpt.tensor(name);
  if (t.shape.size() != 2 || columns <= 0 || columns >= t.shape[1]) return t.bytes();
  return static_cast<std::uint64_t>(t.shape[0] * columns) *
         static_cast<std::uint64_t>(dtype_bits(t.dtype) / 8);
}

// The channels of a compressor: the config's head_dim where given, else from the bias (or
// gate) rows; the bias [m, coff d] and gate [coff d, hidden] checked against them.
CompressorTensors plan_compressor(const Expected& e, const std::string& bias,
                                  const std::string& gate, std::optional<std::int64_t> dim) {
  const int coff = e.plan.overlap ? 2 : 1;
  const auto* b = e.plan.bias ? &e.tensor(bias, "position bias") : nullptr;
  const auto* g = e.plan.ratio > 1 ? &e.tensor(gate, "gate projection") : nullptr;
  // V4.1 at ratio 1: no bias, no gate, one slot; its channels are all alike.
  if (!b && !g) {
    return {static_cast<int>(std::clamp<std::int64_t>(dim.value_or(1), 1, 1 << 20)), "", ""};
  }
  const auto width =
      b ? (b->shape.size() == 2 ? b->shape[1] : -1) : (g && !g->shape.empty() ? g->shape[0] : -1);
  const auto d = dim.value_or(width > 0 && width % coff == 0 ? width / coff : 0);
  const auto rows = coff == 2 ? "2 x " + std::to_string(d) : std::to_string(d);
  if (b &&
      (b->shape.size() != 2 || b->shape[0] != e.plan.ratio || b->shape[1] != coff * d || d == 0)) {
    e.bad_shape(*b, "[" + std::to_string(e.plan.ratio) + ", " + rows + "]");
  }
  const auto hidden = e.config.hidden_size.value_or(g && g->shape.size() == 2 ? g->shape[1] : 0);
  if (g && (g->shape.size() != 2 || g->shape[0] != coff * d || g->shape[1] != hidden || d == 0 ||
            hidden == 0)) {
    e.bad_shape(*g, "[" + rows + ", " + std::to_string(hidden) + "]");
  }
  if (d == 0 || d > (1 << 20)) e.bad_shape(b ? *b : *g, "a head_dim in [1, 1048576]");
  return {static_cast<int>(d), b ? bias : "", g ? gate : ""};
}

std::string plan_sinks(const Expected& e, const std::string& name) {
  if (!e.ckpt.has(name)) return "";
  const auto& t = e.ckpt.tensor(name);
  const auto heads = e.config.attention_heads;
  if (t.shape.size() != 1 || (heads && t.shape[0] != *heads)) {
    e.bad_shape(t, "[" + (heads ? std::to_string(*heads) : std::string("heads")) +
                       "], one logit per query head");
  }
  return name;
}

CompressorWeights read_compressor(Checkpoint& ckpt, const CompressorTensors& t,
                                  std::int64_t columns) {
  CompressorWeights w;
  w.channels = t.channels;
  w.bias_name = t.bias;
  if (!t.bias.empty()) w.bias = ckpt.read_matrix(t.bias);
  if (t.gate.empty()) return w;
  w.gate_name = t.gate;
  const auto rows = ckpt.read_matrix(t.gate, columns);
  w.columns_read = rows.columns;
  w.columns = rows.full_columns;
  for (std::int64_t r = 0; r < rows.rows; ++r) {
    double sum = 0;
    for (std::int64_t c = 0; c < rows.columns; ++c) sum += rows.at(r, c) * rows.at(r, c);
    w.gate_mean_squares.push_back(sum / static_cast<double>(rows.columns));
  }
  return w;
}

void count(WeightsPlan& plan, Checkpoint& ckpt, const CompressorTensors& t,
           const LayerPlan& layer) {
  plan.gate_values +=
      static_cast<std::uint64_t>(layer.window()) * static_cast<std::uint64_t>(t.channels);
  for (const auto* name : {&t.bias, &t.gate}) {
    if (name->empty()) continue;
    const auto bytes = read_bytes(ckpt, *name, name == &t.gate ? plan.columns : 0);
    plan.bytes += bytes;
    plan.largest_read = std::max(plan.largest_read, bytes);
  }
}
}  // namespace

const char* spelling_name(Spelling spelling) {
  return spelling == Spelling::deepseek ? "deepseek" : "transformers";
}

LayerTensorNames layer_tensor_names(Spelling spelling, int layer) {
  const auto p = attention_prefix(spelling, layer);
  if (spelling == Spelling::deepseek) {
    return {p + "compressor.ape", p + "compressor.wgate.weight", p + "indexer.compressor.ape",
            p + "indexer.compressor.wgate.weight", p + "attn_sink"};
  }
  return {p + "compressor.position_bias", p + "compressor.gate_proj.weight",
          p + "compressor.indexer.position_bias", p + "compressor.indexer.gate_proj.weight",
          p + "sinks"};
}

Spelling find_spelling(const Checkpoint& checkpoint, const ModelConfig& config) {
  bool deepseek = false, transformers = false;
  for (const auto& name : checkpoint.names()) {
    deepseek = deepseek || attention_name(Spelling::deepseek, name).has_value();
    transformers = transformers || attention_name(Spelling::transformers, name).has_value();
  }
  if (deepseek && transformers) {
    throw InputError("invalid checkpoint '" + checkpoint.path() +
                     "' (its names mix DeepSeek's spelling, layers.N.attn.*, and transformers', "
                     "model.layers.N.self_attn.*)");
  }
  if (deepseek || transformers) return deepseek ? Spelling::deepseek : Spelling::transformers;
  int layer = 0;
  for (const auto& p : config.plan) {
    if (p.compressor) {
      layer = p.layer;
      break;
    }
  }
  const auto ours = layer_tensor_names(Spelling::deepseek, layer);
  const auto theirs = layer_tensor_names(Spelling::transformers, layer);
  throw InputError("checkpoint '" + checkpoint.path() +
                   "' has no attention tensors in either published spelling: looked for " +
                   ours.bias + ", " + ours.sinks + " (DeepSeek's) and " + theirs.bias + ", " +
                   theirs.sinks + " (transformers')");
}

WeightsPlan plan_weights(Checkpoint& checkpoint, const ModelConfig& config, std::int64_t columns) {
  WeightsPlan plan;
  plan.spelling = find_spelling(checkpoint, config);
  plan.columns = columns;
  check_layers(checkpoint, config, plan.spelling);
  for (const auto& layer : config.plan) {
    const Expected e{config, layer, checkpoint};
    const auto names = layer_tensor_names(plan.spelling, layer.layer);
    LayerTensors t{layer, std::nullopt, std::nullopt, plan_sinks(e, names.sinks)};
    if (layer.compressor)
      t.compressor = plan_compressor(e, names.bias, names.gate, config.head_dim);
    if (layer.indexer) {
      t.indexer = plan_compressor(e, names.indexer_bias, names.indexer_gate, config.index_head_dim);
    }
    for (const auto& c : {t.compressor, t.indexer}) {
      if (c) count(plan, checkpoint, *c, layer);
    }
    if (!t.sinks.empty()) plan.bytes += checkpoint.tensor(t.sinks).bytes();
    plan.layers.push_back(std::move(t));
  }
  return plan;
}

CheckpointWeights read_weights(Checkpoint& checkpoint, const WeightsPlan& plan) {
  CheckpointWeights weights;
  weights.spelling = plan.spelling;
  for (const auto& t : plan.layers) {
    LayerWeights layer{t.plan, std::nullopt, std::nullopt, t.sinks, std::nullopt};
    if (t.compressor) layer.compressor = read_compressor(checkpoint, *t.compressor, plan.columns);
    if (t.indexer) layer.indexer = read_compressor(checkpoint, *t.indexer, plan.columns);
    if (!t.sinks.empty()) layer.sinks = checkpoint.read_matrix(t.sinks).values;
    weights.layers.push_back(std::move(layer));
  }
  return weights;
}

}  // namespace phasesim::checkpoint
