#pragma once
// What config.json says of a V4-style model's attention layers (MODEL.md section 9), in
// either published form: DeepSeek's own (n_layers, compress_ratios, window_size, n_heads,
// dim, kv_source_layers) or the transformers conversion (num_hidden_layers, layer_types with
// compress_rates, sliding_window, num_attention_heads, hidden_size, kv_source_layer_ids),
// nested under text_config or not (Checkpoint::config merges it).
//
// Each layer's plan follows the public code: compress ratio 0 reads the sliding window only;
// V4's ratio 4 (transformers' compressed_sparse_attention) is CSA, overlapping windows
// W = 2m, S = m read from two halves of a split projection, with a Lightning Indexer that
// runs its own compressor; any other ratio (heavily_compressed_attention) is HCA, W = S = m.
// Both have a per-slot, per-channel position bias. A config with V4.1's shared caches
// (kv_source_layers) runs a compressor only at those layers, W = S = m with no position bias
// (ratio 1: the projection alone), and every other compressed layer reads the cache of the
// latest source at or below it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "phasesim/core/document.hpp"

namespace phasesim::checkpoint {

/// One attention layer as the config lays it out.
struct LayerPlan {
  int layer = 0;                ///< as the checkpoint's tensor names number it, from 0
  int ratio = 0;                ///< compress ratio m; 0: the sliding window only
  std::string kind;             ///< "window", "csa", "hca", or "shared" (V4.1's compressed layers)
  bool overlap = false;         ///< W = 2m with split projections (CSA)
  bool compressor = false;      ///< runs its own compressor
  bool bias = false;            ///< its compressor has a position bias (V4's ape)
  bool indexer = false;         ///< a Lightning Indexer with its own compressor (V4's CSA)
  bool index_source = false;    ///< V4.1: selects its own top-k (index_source_layers)
  std::optional<int> cache_of;  ///< V4.1: the layer whose compressed cache it reads

  int window() const { return overlap ? 2 * ratio : ratio; }
  int stride() const { return ratio; }
};

struct ModelConfig {
  std::string file;
  int layers = 0;
  std::string kinds_from;  ///< "compress_ratios" or "layer_types"
  int ignored_ratios = 0;  ///< compress_ratios past the layers (the MTP layers')
  std::vector<LayerPlan> plan;
  std::optional<std::int64_t> sliding_window, index_topk, attention_heads, head_dim, index_head_dim,
      index_heads, hidden_size;
  std::optional<std::vector<int>> kv_source_layers, index_source_layers;

  /// V4.1: compressors only at kv_source_layers.
  bool shared_caches() const { return kv_source_layers.has_value(); }
};

/// The model config of `config` (config.json's object); `file` names it in messages. Throws
/// InputError "invalid config 'FILE' (...)": no layer count or layer kinds, a value of the
/// wrong type or out of range, layer lists of the wrong length, a kv source that does not
/// compress or a compressed layer with no source at or below it.
ModelConfig read_model_config(const Json& config, const std::string& file);

/// What the inspect document says of the config: every key it read, under phasesim's names.
Json model_config_json(const ModelConfig& config);

}  // namespace phasesim::checkpoint
