// The compressor tensors of a checkpoint: found under both spellings, checked against the
// config from their names and headers (every refusal by its message), read with the gate
// projection's rows cut to their first columns.
#include "phasesim/checkpoint/compressor.hpp"

#include <doctest/doctest.h>

#include "phasesim/core/error.hpp"
#include "support/checkpoint_writer.hpp"
#include "support/cli_runner.hpp"

using namespace phasesim::checkpoint;
using phasesim::InputError;
using phasesim::test::RawTensor;
using phasesim::test::SmallModel;
using phasesim::test::TempDir;

namespace {

struct Written {
  std::string folder, config, file;
};

// `model` in `dir`/`name`, its tensors passed through `edit` and its config through `configure`.
Written write(const TempDir& dir, const std::string& name, const SmallModel& model,
              const std::function<void(std::vector<RawTensor>&)>& edit = {},
              const std::function<void(nlohmann::ordered_json&)>& configure = {}) {
  const auto folder = dir / name;
  std::filesystem::create_directories(folder);
  auto tensors = model.tensors();
  if (edit) edit(tensors);
  auto config = model.config();
  if (configure) configure(config);
  phasesim::test::write_json(folder / "config.json", config);
  phasesim::test::write_safetensors(folder / "model.safetensors", tensors);
  return {folder.string(), (folder / "config.json").string(),
          (folder / "model.safetensors").string()};
}

std::string refusal(const Written& w, std::int64_t columns = 0) {
  try {
    auto ckpt = Checkpoint::open(w.folder);
    const auto config = read_model_config(ckpt.config(), ckpt.config_file());
    read_weights(ckpt, plan_weights(ckpt, config, columns));
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("both spellings read the same weights; the gate's rows over their first columns") {
  const TempDir dir("compressor-spellings");
  SmallModel model;
  const auto ours = write(dir, "ours", model);
  model.deepseek = false;
  const auto theirs = write(dir, "theirs", model);
  std::vector<CheckpointWeights> read;
  for (const auto& w : {ours, theirs}) {
    auto ckpt = Checkpoint::open(w.folder);
    const auto config = read_model_config(ckpt.config(), ckpt.config_file());
    const auto plan = plan_weights(ckpt, config, 3);
    // Biases (4x8, 8x4, 4x8 floats; 4x4 indexer ones twice), gate rows (8, 4, 8 and the
    // indexers' 4 + 4, three columns each) and sinks (2 floats a layer).
    CHECK(plan.bytes == 4 * (32 + 32 + 32 + 16 + 16) + 4 * 3 * (8 + 4 + 8 + 4 + 4) + 4 * 2 * 4);
    const auto before = ckpt.bytes_read();
    read.push_back(read_weights(ckpt, plan));
    CHECK(ckpt.bytes_read() - before == plan.bytes);
  }
  CHECK(read[0].spelling == Spelling::deepseek);
  CHECK(read[1].spelling == Spelling::transformers);
  for (std::size_t l = 0; l < 4; ++l) {
    const auto& a = read[0].layers[l];
    const auto& b = read[1].layers[l];
    CHECK(a.compressor.has_value() == (l > 0));
    CHECK(a.indexer.has_value() == (l == 1 || l == 3));
    CHECK(a.sinks == b.sinks);
    if (!a.compressor) continue;
    CHECK(a.compressor->bias->values == b.compressor->bias->values);
    CHECK(a.compressor->gate_mean_squares == b.compressor->gate_mean_squares);
    CHECK(a.compressor->channels == 4);
    CHECK((a.compressor->columns_read == 3 && a.compressor->columns == 8));
  }
  // Row r holds r % 4 + 1 in every column.
  CHECK(read[0].layers[1].compressor->gate_mean_squares[6] == 9.0);
  CHECK(read[0].layers[1].indexer->bias->values.size() == 16);
  CHECK(read[0].layers[2].sinks == std::vector<double>{1.0, 1.0});
  CHECK(read[1].layers[1].compressor->bias_name ==
        "model.layers.1.self_attn.compressor.position_bias");
}

TEST_CASE("a checkpoint whose tensors disagree with its config is refused, naming both") {
  const TempDir dir("compressor-refused");
  const SmallModel model;
  const auto w = write(dir, "window", model, {}, [](auto& c) {
    c["compress_ratios"] = {0, 0, 8, 4};
  });
  CHECK(refusal(w) == "config '" + w.config + "' disagrees with checkpoint file '" + w.file +
                          "': tensor layers.1.attn.compressor.ape is a compressor's, the config "
                          "makes layer 1 window-only (compress ratio 0)");
  const auto few = write(dir, "few", model, {}, [](auto& c) {
    c["n_layers"] = 3;
    c["compress_ratios"] = {0, 4, 8};
  });
  CHECK(refusal(few) == "config '" + few.config + "' disagrees with checkpoint file '" + few.file +
                            "': tensor layers.3.attn.compressor.ape belongs to layer 3, the config "
                            "has 3 layers (0 to 2)");
  const auto hca = write(dir, "hca", model, {}, [](auto& c) {
    c["compress_ratios"] = {0, 4, 8, 8};
  });
  CHECK(refusal(hca) == "config '" + hca.config + "' disagrees with checkpoint file '" + hca.file +
                            "': tensor layers.3.attn.indexer.compressor.ape is an indexer's "
                            "compressor's, the config makes layer 3 hca with compress ratio 8, "
                            "which has none");
  const auto missing = write(dir, "missing", model, [](auto& t) {
    std::erase_if(t, [](const RawTensor& r) { return r.name == "layers.2.attn.compressor.ape"; });
  });
  CHECK(refusal(missing) == "checkpoint '" + missing.folder +
                                "' has no position bias for layer 2, which config '" +
                                missing.config +
                                "' makes hca with compress ratio 8: looked for "
                                "layers.2.attn.compressor.ape");
  const auto shape = write(dir, "shape", model, {}, [](auto& c) { c["head_dim"] = 5; });
  CHECK(refusal(shape) == "invalid checkpoint file '" + shape.file +
                              "': tensor layers.1.attn.compressor.ape: shape [4, 8] (config '" +
                              shape.config +
                              "' makes layer 1 csa with compress ratio 4: expected [4, 2 x 5])");
  const auto sinks = write(dir, "sinks", model, {}, [](auto& c) { c["n_heads"] = 3; });
  CHECK(refusal(sinks) == "invalid checkpoint file '" + sinks.file +
                              "': tensor layers.0.attn.attn_sink: shape [2] (config '" +
                              sinks.config +
                              "' makes layer 0 window-only (compress ratio 0): expected [3], one "
                              "logit per query head)");
}

TEST_CASE("a checkpoint in neither spelling, or in both, says which names it looked for") {
  const TempDir dir("compressor-spelling");
  const SmallModel model;
  const auto neither = write(dir, "neither", model, [](auto& t) {
    for (auto& r : t) r.name = "transformer.h." + r.name;
  });
  CHECK(refusal(neither) ==
        "checkpoint '" + neither.folder +
            "' has no attention tensors in either published spelling: looked for "
            "layers.1.attn.compressor.ape, layers.1.attn.attn_sink (DeepSeek's) and "
            "model.layers.1.self_attn.compressor.position_bias, model.layers.1.self_attn.sinks "
            "(transformers')");
  const auto both = write(dir, "both", model, [](auto& t) {
    t.push_back(phasesim::test::tensor("model.layers.0.self_attn.sinks", "F32", {2}, {0, 0}));
  });
  CHECK(refusal(both) == "invalid checkpoint '" + both.folder +
                             "' (its names mix DeepSeek's spelling, layers.N.attn.*, and "
                             "transformers', model.layers.N.self_attn.*)");
}
