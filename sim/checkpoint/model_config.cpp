#include "phasesim/checkpoint/model_config.hpp"

#include <algorithm>

#include "phasesim/core/error.hpp"

namespace phasesim::checkpoint {
namespace {

constexpr std::int64_t kMaxLayers = 4096;
constexpr std::int64_t kMaxSize = 1 << 20;  // ratios, windows, dims, heads: room to spare

struct Reader {
  const Json& config;
  const std::string& file;

  [[noreturn]] void fail(const std::string& what) const {
    throw InputError("invalid config '" + file + "' (" + what + ")");
  }

  // The first of `keys` the config has, or null.
  const Json* find(std::initializer_list<const char*> keys, std::string* found = nullptr) const {
    for (const auto* key : keys) {
      const auto it = config.find(key);
      if (it == config.end() || it->is_null()) continue;
      if (found != nullptr) *found = key;
      return &*it;
    }
    return nullptr;
  }

  std::int64_t integer(const Json& value, const std::string& key, std::int64_t low,
                       std::int64_t high) const {
    if (!value.is_number_integer() || value.get<std::int64_t>() < low ||
        value.get<std::int64_t>() > high) {
      fail(key + " must be an integer in [" + std::to_string(low) + ", " + std::to_string(high) +
           "], got " + value.dump());
    }
    return value.get<std::int64_t>();
  }

  std::optional<std::int64_t> optional(std::initializer_list<const char*> keys, std::int64_t low,
                                       std::int64_t high = kMaxSize) const {
    std::string key;
    const auto* value = find(keys, &key);
    if (value == nullptr) return std::nullopt;
    return integer(*value, key, low, high);
  }

  std::optional<std::vector<int>> layer_list(std::initializer_list<const char*> keys,
                                             int layers) const {
    std::string key;
    const auto* value = find(keys, &key);
    if (value == nullptr) return std::nullopt;
    if (!value->is_array()) fail(key + " must be a list of layer numbers, got " + value->dump());
    std::vector<int> list;
    for (const auto& item : *value)
      list.push_back(static_cast<int>(integer(item, key, 0, layers - 1)));
    std::sort(list.begin(), list.end());
    return list;
  }
};

// The compress ratio of every layer: compress_ratios (extra entries are the MTP layers'), or
// layer_types with compress_rates.
std::vector<int> ratios_of(const Reader& r, ModelConfig& c) {
  std::vector<int> ratios;
  if (const auto* list = r.find({"compress_ratios"})) {
    c.kinds_from = "compress_ratios";
    if (!list->is_array() || list->size() < static_cast<std::size_t>(c.layers)) {
      r.fail("compress_ratios must list a ratio for each of the " + std::to_string(c.layers) +
             " layers, got " +
             (list->is_array() ? counted(list->size(), "entry", "entries") : list->dump()));
    }
    for (const auto& item : *list)
      ratios.push_back(static_cast<int>(r.integer(item, "compress_ratios", 0, kMaxSize)));
    c.ignored_ratios = static_cast<int>(ratios.size()) - c.layers;
    ratios.resize(static_cast<std::size_t>(c.layers));
    return ratios;
  }
  const auto* types = r.find({"layer_types"});
  if (types == nullptr) r.fail("no layer kinds: looked for compress_ratios and layer_types");
  c.kinds_from = "layer_types";
  if (!types->is_array() || types->size() != static_cast<std::size_t>(c.layers)) {
    r.fail("layer_types must list the kind of each of the " + std::to_string(c.layers) + " layers");
  }
  const auto* rates = r.find({"compress_rates"});
  if (rates != nullptr && !rates->is_object())
    r.fail("compress_rates must be an object of layer types to ratios");
  const auto rate = [&](const char* type, int fallback) {
    if (rates == nullptr || !rates->contains(type)) return fallback;
    return static_cast<int>(
        r.integer((*rates)[type], std::string("compress_rates.") + type, 1, kMaxSize));
  };
  for (const auto& type : *types) {
    const auto name = type.is_string() ? type.get<std::string>() : type.dump();
    if (name == "sliding_attention")
      ratios.push_back(0);
    else if (name == "compressed_sparse_attention")
      ratios.push_back(rate("compressed_sparse_attention", 4));
    else if (name == "heavily_compressed_attention")
      ratios.push_back(rate("heavily_compressed_attention", 128));
    else
      r.fail("layer_types has '" + name +
             "' (allowed: sliding_attention, compressed_sparse_attention, "
             "heavily_compressed_attention)");
  }
  return ratios;
}

// V4: CSA (ratio 4, or compressed_sparse_attention) overlaps and has an indexer; HCA does not.
void plan_v4(ModelConfig& c, const Json& types) {
  for (auto& p : c.plan) {
    if (p.ratio == 0) continue;
    const bool csa = c.kinds_from == "layer_types"
                         ? types[static_cast<std::size_t>(p.layer)] == "compressed_sparse_attention"
                         : p.ratio == 4;
    p.kind = csa ? "csa" : "hca";
    p.overlap = p.indexer = csa;
    p.compressor = p.bias = true;
  }
}

// V4.1: compressors at the kv sources only, the other compressed layers on the latest below.
void plan_shared(ModelConfig& c, const Reader& r) {
  const auto& sources = *c.kv_source_layers;
  for (int s : sources) {
    if (c.plan[static_cast<std::size_t>(s)].ratio == 0) {
      r.fail("kv_source_layers names layer " + std::to_string(s) + ", whose compress ratio is 0");
    }
  }
  for (auto& p : c.plan) {
    if (c.index_source_layers) {
      p.index_source =
          std::binary_search(c.index_source_layers->begin(), c.index_source_layers->end(), p.layer);
    }
    if (p.ratio == 0) continue;
    p.kind = "shared";
    p.compressor = std::binary_search(sources.begin(), sources.end(), p.layer);
    if (p.compressor) continue;
    const auto below = std::upper_bound(sources.begin(), sources.end(), p.layer);
    if (below == sources.begin()) {
      r.fail("layer " + std::to_string(p.layer) + " compresses (ratio " + std::to_string(p.ratio) +
             ") but no kv_source_layers entry is at or below it");
    }
    p.cache_of = *(below - 1);
  }
}

}  // namespace

ModelConfig read_model_config(const Json& config, const std::string& file) {
  const Reader r{config, file};
  ModelConfig c;
  c.file = file;
  const auto layers = r.optional({"num_hidden_layers", "n_layers"}, 1, kMaxLayers);
  if (!layers) r.fail("no layer count: looked for num_hidden_layers and n_layers");
  c.layers = static_cast<int>(*layers);
  const auto ratios = ratios_of(r, c);
  c.sliding_window = r.optional({"sliding_window", "window_size"}, 0);
  c.index_topk = r.optional({"index_topk"}, 1);
  c.attention_heads = r.optional({"num_attention_heads", "n_heads"}, 1);
  c.head_dim = r.optional({"head_dim"}, 1);
  c.index_head_dim = r.optional({"index_head_dim"}, 1);
  c.index_heads = r.optional({"index_n_heads"}, 1);
  c.hidden_size = r.optional({"hidden_size", "dim"}, 1);
  c.kv_source_layers = r.layer_list({"kv_source_layers", "kv_source_layer_ids"}, c.layers);
  c.index_source_layers = r.layer_list({"index_source_layers", "index_source_layer_ids"}, c.layers);
  for (int l = 0; l < c.layers; ++l) {
    LayerPlan p;
    p.layer = l;
    p.ratio = ratios[static_cast<std::size_t>(l)];
    p.kind = "window";
    c.plan.push_back(p);
  }
  if (c.shared_caches()) {
    plan_shared(c, r);
  } else {
    const auto* types = r.find({"layer_types"});
    plan_v4(c, types != nullptr ? *types : Json::array());
  }
  return c;
}

Json model_config_json(const ModelConfig& c) {
  Json ratios = Json::array();
  for (const auto& p : c.plan) ratios.push_back(p.ratio);
  Json doc;
  doc["file"] = c.file;
  doc["layers"] = c.layers;
  doc["kinds_from"] = c.kinds_from;
  doc["compress_ratios"] = ratios;
  doc["ignored_ratios"] = c.ignored_ratios;
  doc["sliding_window"] = optional_json(c.sliding_window);
  doc["index_topk"] = optional_json(c.index_topk);
  doc["num_attention_heads"] = optional_json(c.attention_heads);
  doc["head_dim"] = optional_json(c.head_dim);
  doc["index_head_dim"] = optional_json(c.index_head_dim);
  doc["index_n_heads"] = optional_json(c.index_heads);
  doc["hidden_size"] = optional_json(c.hidden_size);
  doc["kv_source_layers"] = optional_json(c.kv_source_layers);
  doc["index_source_layers"] = optional_json(c.index_source_layers);
  return doc;
}

}  // namespace phasesim::checkpoint
