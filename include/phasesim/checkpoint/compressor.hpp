#pragma once
// The tensors of a V4-style checkpoint that decide its phase profile (MODEL.md section 9),
// found under either published spelling and read, nothing else:
//
//   what                        DeepSeek's own                      transformers' conversion
//   compressor's position bias  layers.N.attn.compressor.ape
//   model.layers.N.self_attn.compressor.position_bias its gate projection
//   layers.N.attn.compressor.wgate.weight   ...self_attn.compressor.gate_proj.weight indexer's
//   position bias     layers.N.attn.indexer.compressor.ape
//   ...self_attn.compressor.indexer.position_bias indexer's gate projection
//   layers.N.attn.indexer.compressor.wgate.weight  ...compressor.indexer.gate_proj.weight sink
//   logits                 layers.N.attn.attn_sink             model.layers.N.self_attn.sinks
//
// Of a gate projection only the mean square of each row is kept, over its first `columns`
// columns (what inspect turns into content noise); the key projections (wkv, kv_proj) and
// norms are not read.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "phasesim/checkpoint/checkpoint.hpp"
#include "phasesim/checkpoint/model_config.hpp"

namespace phasesim::checkpoint {

enum class Spelling { deepseek, transformers };

/// "deepseek" or "transformers".
const char* spelling_name(Spelling spelling);

/// One layer's tensor names in one spelling.
struct LayerTensorNames {
  std::string bias, gate, indexer_bias, indexer_gate, sinks;
};
LayerTensorNames layer_tensor_names(Spelling spelling, int layer);

/// The spelling of `checkpoint`'s names. Throws InputError naming the names it looked for
/// when it has neither, and when it mixes both.
Spelling find_spelling(const Checkpoint& checkpoint, const ModelConfig& config);

/// A compressor's tensors as read.
struct CompressorWeights {
  int channels = 0;  ///< head_dim: the pooled vector's channels
  std::string bias_name;
  std::optional<Matrix> bias;  ///< [m, channels] or, with split projections, [m, 2 channels]
  std::string gate_name;       ///< empty where the compressor has no gate (ratio 1)
  /// Per row of the gate projection ([channels] or [2 channels] rows), the mean of its squared
  /// entries over the columns read.
  std::vector<double> gate_mean_squares;
  std::int64_t columns_read = 0;  ///< columns of the gate projection read
  std::int64_t columns = 0;       ///< its width: the hidden size
};

struct LayerWeights {
  LayerPlan plan;
  std::optional<CompressorWeights> compressor;  ///< where the layer runs its own
  std::optional<CompressorWeights> indexer;     ///< V4's CSA: the indexer's own compressor
  std::string sinks_name;
  std::optional<std::vector<double>> sinks;  ///< one logit per query head, where present
};

struct CheckpointWeights {
  Spelling spelling = Spelling::deepseek;
  std::vector<LayerWeights> layers;  ///< every layer of the config, in order
};

/// The tensors of a compressor that will be read, checked against the config.
struct CompressorTensors {
  int channels = 0;
  std::string bias;  ///< empty: none (V4.1)
  std::string gate;  ///< empty: none (ratio 1)
};

struct LayerTensors {
  LayerPlan plan;
  std::optional<CompressorTensors> compressor, indexer;
  std::string sinks;  ///< empty where the checkpoint has none
};

/// What read_weights will read, decided from the names and headers alone.
struct WeightsPlan {
  Spelling spelling = Spelling::deepseek;
  std::vector<LayerTensors> layers;  ///< every layer of the config, in order
  std::int64_t columns = 0;          ///< of each gate projection's rows (0: all)
  std::uint64_t bytes = 0;           ///< the data bytes the reads will take
  std::uint64_t largest_read = 0;    ///< the bytes of the largest of them
  std::uint64_t gate_values = 0;     ///< slots x channels over every compressor
};

/// Checks `checkpoint`'s tensors against `config` from their names and headers alone: a
/// compressor's tensor at a layer the config gives none, a missing tensor, a shape the config
/// contradicts. Throws InputError naming the file and the tensor.
WeightsPlan plan_weights(Checkpoint& checkpoint, const ModelConfig& config, std::int64_t columns);

/// The planned tensors' values: the biases and sinks whole, each gate projection's rows over
/// their first plan.columns columns. Throws InputError naming the file and the tensor (a
/// dtype phasesim does not read, a value that is not finite).
CheckpointWeights read_weights(Checkpoint& checkpoint, const WeightsPlan& plan);

}  // namespace phasesim::checkpoint
