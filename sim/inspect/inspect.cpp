#include "phasesim/inspect/inspect.hpp"

#include "phasesim/core/error.hpp"
#include "phasesim/engines/analytic_engine.hpp"

namespace phasesim::inspect {
namespace {

// What a compressor's gates hold per slot and channel: its weight, its logits' text twice
// (the group's spec and the gate's), in each of the copies a plan keeps.
constexpr double kBytesPerGateValue = 200;
// What a read costs beyond its bytes: a positioned read per row, decoding, mean squares.
constexpr double kSecondsPerByte = 2e-9;

// A layer of the stack: the cache of one compressor, read by the layer's query heads alike
// (one here: in the standardized channel they attend alike, and V4.1's layers that read
// another layer's cache are that cache).
niah::ArchitectureHead stack_head(const InspectedLayer& layer,
                                  const checkpoint::ModelConfig& config, int index) {
  niah::ArchitectureHead head;
  head.layer = index;
  head.geometry = layer.compressor->geometry;
  head.gate = layer.compressor->gate;
  // Split projections: the halves are separate rows of the key projection, and nothing in
  // the public code ties them (v4-csa's setting; docs/INSPECT.md).
  head.split_rho = layer.plan.overlap ? 0.0 : 1.0;
  // The read path (kRead): a layer with an indexer keeps its top index_topk entries by the
  // indexer's own gate, and every layer reads its sliding window raw.
  if (layer.indexer && config.index_topk) {
    head.read_path.top_k = *config.index_topk;
    head.read_path.index_gate = layer.indexer->gate;
  }
  if (config.sliding_window) head.read_path.sliding_window = *config.sliding_window;
  return head;
}

niah::Architecture one_layer(const niah::Architecture& stack, std::size_t index) {
  niah::Architecture arch;
  arch.name = stack.name + ", layer " + std::to_string(index + 1);
  arch.file = stack.file;
  arch.layers = 1;
  arch.heads = {stack.heads[index]};
  arch.heads.front().layer = 1;
  return arch;
}

InspectedLayer inspected(const checkpoint::LayerWeights& w) {
  InspectedLayer layer{w.plan, std::nullopt, std::nullopt, std::nullopt};
  if (w.compressor) layer.compressor = compressor_gate(*w.compressor, w.plan);
  if (w.indexer) layer.indexer = compressor_gate(*w.indexer, w.plan);
  if (w.sinks) layer.sinks = sinks_of(w.sinks_name, *w.sinks);
  return layer;
}

}  // namespace

engines::NiahPlan prediction_plan(const niah::Architecture& architecture, const Protocol& protocol,
                                  const engines::EngineRegistry& engines) {
  niah::NiahSpec spec;
  spec.architecture = architecture;
  spec.beta = protocol.beta;
  spec.context = protocol.context;
  spec.groups = protocol.groups;
  return engines::prepare(spec, engines.get<engines::AnalyticEngine>(), 1);
}

Inspection::Inspection(InspectSpec spec, std::shared_ptr<const engines::EngineRegistry> engines)
    : spec_(std::move(spec)),
      engines_(std::move(engines)),
      checkpoint_(checkpoint::Checkpoint::open(spec_.path)),
      config_(checkpoint::read_model_config(checkpoint_.config(), checkpoint_.config_file())) {
  require_non_negative(static_cast<double>(spec_.content_columns), "--content-columns");
  const auto plan = checkpoint::plan_weights(checkpoint_, config_, spec_.content_columns);
  // A read holds its bytes and their doubles (8 a byte at most, for FP8) at once.
  check_work("inspect " + spec_.path,
             {kSecondsPerByte * static_cast<double>(plan.bytes),
              kBytesPerGateValue * static_cast<double>(plan.gate_values) +
                  9.0 * static_cast<double>(plan.largest_read)},
             1);
  const auto weights = checkpoint::read_weights(checkpoint_, plan);
  spelling_ = weights.spelling;
  bytes_read_ = checkpoint_.bytes_read();
  architecture_.name = "inspect " + spec_.path;
  architecture_.file = spec_.path;
  for (const auto& w : weights.layers) {
    layers_.push_back(inspected(w));
    const auto& layer = layers_.back();
    if (!layer.compressor) continue;
    stack_layers_.push_back(layer.plan.layer);
    architecture_.heads.push_back(stack_head(layer, config_, ++architecture_.layers));
  }
  if (architecture_.heads.empty()) {
    throw InputError("checkpoint '" + spec_.path + "' has no compressed layer (config '" +
                     config_.file +
                     "' makes every layer read its sliding window only): no gate to inspect");
  }
  stack_plan_ = prediction_plan(architecture_, spec_.protocol, *engines_);
}

WorkEstimate Inspection::estimate() const {
  // The stack's tables, then each layer's alone: twice the stack's quadratures.
  auto work = stack_plan_->estimate();
  work.seconds *= 2;
  return work;
}

Prediction Inspection::predict() const {
  Prediction prediction;
  const Parallel serial{1};
  for (std::size_t i = 0; i < architecture_.heads.size(); ++i) {
    const auto plan = prediction_plan(one_layer(architecture_, i), spec_.protocol, *engines_);
    prediction.layers.push_back(engines::run_niah(plan, serial));
  }
  prediction.stack = engines::run_niah(*stack_plan_, serial);
  return prediction;
}

}  // namespace phasesim::inspect
