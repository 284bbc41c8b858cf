#include "phasesim/inspect/inspect.hpp"

namespace phasesim::inspect {
namespace {

// What turns tensors into the model's terms, said in every document and architecture file.
const std::vector<std::string>& assumptions() {
  static const std::vector<std::string> list{
      "gates: each channel's softmax over its window's slots of the position bias alone, split "
      "projections as the layer has them (a CSA channel's older slots read the bias's first "
      "half, its newer slots the second); the table runs at content noise 0",
      "content noise: the gate projection's rows times a token whose coordinates have unit "
      "variance (an RMS-normalized hidden state, its norm's weight left out), tau_c = ||W_c||, "
      "each row's norm estimated from its first content_columns columns",
      "split projections: the correlation of a token's keys in the two halves is 0 (the key "
      "projection is not read; v4-csa's setting)",
      "a cache is read by its query heads alike (the standardized channel has no query noise), "
      "so each layer is one head; a V4.1 layer that reads another layer's cache is that cache",
      "beta: the standardized channel's signal strength is not in the weights; --beta sets it",
  };
  return list;
}

Json plan_json(const checkpoint::LayerPlan& p) {
  return {{"layer", p.layer},
          {"kind", p.kind},
          {"compress_ratio", p.ratio},
          {"window", p.ratio > 0 ? Json(p.window()) : Json()},
          {"stride", p.ratio > 0 ? Json(p.stride()) : Json()},
          {"overlap", p.overlap},
          {"compressor", p.compressor},
          {"cache_of", optional_json(p.cache_of)},
          {"index_source", p.index_source}};
}

Json checkpoint_json(const Inspection& inspection) {
  const auto& c = inspection.checkpoint();
  return {{"spelling", checkpoint::spelling_name(inspection.spelling())},
          {"files", c.files().size()},
          {"total_bytes", c.total_bytes()},
          {"bytes_read", inspection.bytes_read()}};
}

}  // namespace

Json inspection_document(const Inspection& inspection, const Prediction& prediction) {
  const auto& spec = inspection.spec();
  auto doc = new_document("inspect");
  doc["path"] = spec.path;
  doc["beta"] = spec.protocol.beta;
  doc["context"] = spec.protocol.context;
  doc["group_count"] = spec.protocol.groups;
  doc["content_columns"] = spec.content_columns;
  doc["checkpoint"] = checkpoint_json(inspection);
  doc["config"] = checkpoint::model_config_json(inspection.config());
  doc["read"] = kRead;
  doc["assumptions"] = assumptions();
  doc["layers"] = Json::array();
  std::size_t cache = 0;
  for (const auto& layer : inspection.layers()) {
    auto json = plan_json(layer.plan);
    json["compressor"] = layer.compressor ? compressor_gate_json(*layer.compressor) : Json();
    json["indexer"] = layer.indexer ? compressor_gate_json(*layer.indexer) : Json();
    json["sinks"] = layer.sinks ? sinks_json(*layer.sinks) : Json();
    json["niah"] = layer.compressor ? niah::niah_result_json(prediction.layers[cache++]) : Json();
    doc["layers"].push_back(std::move(json));
  }
  // The stack's table at the top, as niah's document has it (results.csv and to_frame give a
  // row per group); stack_layers says which checkpoint layers it holds.
  doc["stack_layers"] = inspection.stack_layers();
  doc.update(niah::niah_result_json(prediction.stack));
  doc["warnings"] = inspection.stack_plan().warnings();
  return doc;
}

std::string inspection_architecture(const Inspection& inspection) {
  std::vector<std::string> comments{
      "written by phasesim inspect " + inspection.spec().path + " (" +
          checkpoint::spelling_name(inspection.spelling()) +
          " spelling): rerun it with niah --arch FILE --engine analytic --beta " +
          format_number(inspection.spec().protocol.beta),
      "read: " + std::string(kRead)};
  for (const auto& line : assumptions()) comments.push_back("assumed: " + line);
  std::vector<std::vector<std::string>> notes;
  for (const auto& layer : inspection.layers()) {
    if (!layer.compressor) continue;
    const auto& g = *layer.compressor;
    std::vector<std::string> note{"checkpoint layer " + std::to_string(layer.plan.layer) + ": " +
                                  layer.plan.kind + ", compress ratio " +
                                  std::to_string(layer.plan.ratio) + ", " +
                                  (g.bias_tensor.empty() ? "no position bias" : g.bias_tensor)};
    if (g.content) {
      note.push_back("content noise tau (rms over " + g.content->tensor + "'s rows): " +
                     format_number(g.content->rms) + " (niah --content-noise, --engine fast)");
    }
    if (layer.sinks) {
      note.push_back("sink logits " + layer.sinks->tensor + ": mean " +
                     format_number(layer.sinks->mean) + " (reported, not modelled: see read)");
    }
    notes.push_back(std::move(note));
  }
  auto arch = inspection.architecture();
  arch.name = "inspect " + inspection.checkpoint().path();
  return niah::architecture_toml(arch, comments, notes);
}

}  // namespace phasesim::inspect
