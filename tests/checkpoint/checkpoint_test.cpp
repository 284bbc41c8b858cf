// Checkpoints: config.json in both published forms, folders sharded or not and single files,
// both tensor-name spellings, FP8 with its scales, the checks of tensors against the config,
// and the bytes a read takes.
#include "phasesim/checkpoint/checkpoint.hpp"

#include <doctest/doctest.h>

#include "phasesim/checkpoint/model_config.hpp"
#include "phasesim/core/error.hpp"
#include "support/checkpoint_writer.hpp"
#include "support/cli_runner.hpp"

using namespace phasesim::checkpoint;
using phasesim::InputError;
using phasesim::Json;
using phasesim::test::SmallModel;
using phasesim::test::TempDir;
using phasesim::test::tensor;

namespace {

std::string config_refusal(const Json& config) {
  try {
    read_model_config(config, "c.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("config.json: DeepSeek's keys and transformers' give the same layer plans") {
  SmallModel model;
  const auto ours = read_model_config(model.config(), "c.json");
  model.deepseek = false;
  const auto theirs = read_model_config(model.config(), "c.json");
  CHECK(ours.kinds_from == "compress_ratios");
  CHECK(theirs.kinds_from == "layer_types");
  for (const auto* c : {&ours, &theirs}) {
    REQUIRE(c->plan.size() == 4);
    CHECK(c->plan[0].kind == "window");
    CHECK(!c->plan[0].compressor);
    CHECK(
        (c->plan[1].kind == "csa" && c->plan[1].overlap && c->plan[1].indexer && c->plan[1].bias));
    CHECK((c->plan[1].window() == 8 && c->plan[1].stride() == 4));
    CHECK((c->plan[2].kind == "hca" && !c->plan[2].overlap && !c->plan[2].indexer));
    CHECK((c->plan[2].window() == 8 && c->plan[2].stride() == 8));
    CHECK(c->sliding_window == 128);
    CHECK(c->index_topk == 512);
    CHECK(c->attention_heads == 2);
    CHECK(c->head_dim == 4);
    CHECK(c->hidden_size == 8);
  }
  // compress_ratios past the layers are the MTP layers'.
  const auto mtp =
      read_model_config({{"n_layers", 2}, {"compress_ratios", {0, 128, 0, 0, 0}}}, "c.json");
  CHECK(mtp.ignored_ratios == 3);
  CHECK(mtp.plan[1].kind == "hca");
}

TEST_CASE("config.json: V4.1's shared caches, compressors at the kv sources only") {
  const Json config{{"num_hidden_layers", 6},
                    {"compress_ratios", {0, 2, 2, 2, 1, 1}},
                    {"kv_source_layers", {1, 4}},
                    {"index_source_layers", {1, 3}}};
  // V4.1's config nests the model's keys under text_config; the checkpoint merges them.
  const TempDir dir("checkpoint-v41");
  std::filesystem::create_directories(dir / "m");
  phasesim::test::write_json(dir / "m" / "config.json", {{"text_config", config}});
  phasesim::test::write_safetensors(dir / "m" / "model.safetensors", {});
  const auto ckpt = Checkpoint::open((dir / "m").string());
  const auto c = read_model_config(ckpt.config(), "c.json");
  REQUIRE(c.shared_caches());
  CHECK((c.plan[1].compressor && !c.plan[1].bias && !c.plan[1].overlap &&
         c.plan[1].kind == "shared"));
  CHECK((!c.plan[2].compressor && c.plan[2].cache_of == 1));
  CHECK((!c.plan[5].compressor && c.plan[5].cache_of == 4 && c.plan[4].window() == 1));
  CHECK((c.plan[3].index_source && !c.plan[2].index_source));
  auto below = config;
  below["kv_source_layers"] = {2};
  CHECK(config_refusal(below) ==
        "invalid config 'c.json' (layer 1 compresses (ratio 2) but no "
        "kv_source_layers entry is at or below it)");
  auto window = config;
  window["kv_source_layers"] = {0, 1};
  CHECK(config_refusal(window) ==
        "invalid config 'c.json' (kv_source_layers names layer 0, whose compress ratio is 0)");
}

TEST_CASE("config.json: what is missing or of the wrong kind is refused by key") {
  CHECK(config_refusal(Json::object()) ==
        "invalid config 'c.json' (no layer count: looked for num_hidden_layers and n_layers)");
  CHECK(config_refusal({{"n_layers", 2}}) ==
        "invalid config 'c.json' (no layer kinds: looked for compress_ratios and layer_types)");
  CHECK(config_refusal({{"n_layers", 0}}) ==
        "invalid config 'c.json' (n_layers must be an integer in [1, 4096], got 0)");
  CHECK(
      config_refusal({{"n_layers", 3}, {"compress_ratios", {0, 4}}}) ==
      "invalid config 'c.json' (compress_ratios must list a ratio for each of the 3 layers, got 2 "
      "entries)");
  CHECK(config_refusal({{"n_layers", 2}, {"compress_ratios", {0, "4"}}}) ==
        "invalid config 'c.json' (compress_ratios must be an integer in [0, 1048576], got \"4\")");
  CHECK(config_refusal({{"num_hidden_layers", 1}, {"layer_types", {"full_attention"}}}) ==
        "invalid config 'c.json' (layer_types has 'full_attention' (allowed: sliding_attention, "
        "compressed_sparse_attention, heavily_compressed_attention))");
  CHECK(config_refusal({{"n_layers", 1}, {"compress_ratios", {4}}, {"head_dim", 2.5}}) ==
        "invalid config 'c.json' (head_dim must be an integer in [1, 1048576], got 2.5)");
}

TEST_CASE("a folder sharded or not, and one file, read the same values; bytes are counted") {
  const TempDir dir("checkpoint-read");
  SmallModel model;
  model.write(dir / "one");
  model.write(dir / "sharded", 3);
  std::vector<std::vector<double>> seen;
  for (const auto& path : {dir / "one", dir / "sharded", dir / "one" / "model.safetensors"}) {
    CAPTURE(path);
    auto ckpt = Checkpoint::open(path.string());
    CHECK(ckpt.config_file().ends_with("config.json"));
    CHECK(ckpt.has("layers.1.attn.compressor.ape"));
    const auto before = ckpt.bytes_read();
    const auto ape = ckpt.read_matrix("layers.1.attn.compressor.ape");
    CHECK((ape.rows == 4 && ape.columns == 8 && ape.full_columns == 8));
    CHECK(ckpt.bytes_read() - before >=
          4 * 8 * 4);  // the data, and a shard's header when first opened
    const auto prefix = ckpt.read_matrix("layers.1.attn.compressor.wgate.weight", 3);
    CHECK((prefix.rows == 8 && prefix.columns == 3 && prefix.full_columns == 8));
    CHECK(prefix.at(5, 2) == 2.0);  // row 5: 5 % 4 + 1
    seen.push_back(ape.values);
  }
  CHECK(seen[0] == seen[1]);
  CHECK(seen[0] == seen[2]);
  auto sharded = Checkpoint::open((dir / "sharded").string());
  CHECK(sharded.files().size() == 5);  // config, index, three shards
  CHECK(sharded.file_of("layers.0.attn.attn_sink").ends_with("model-00001.safetensors"));
}

TEST_CASE("FP8 weights are multiplied by their block scales or tensor scale") {
  const TempDir dir("checkpoint-fp8");
  std::filesystem::create_directories(dir / "m");
  phasesim::test::write_json(dir / "m" / "config.json", {{"n_layers", 1}});
  std::vector<double> values(4 * 6, 2.0);
  phasesim::test::write_safetensors(
      dir / "m" / "model.safetensors",
      {tensor("a.weight", "F8_E4M3", {4, 6}, values),
       tensor("a.scale", "F8_E8M0", {2, 2}, {1, 0.5, 0.25, 0.125}),  // blocks of 2 x 3
       tensor("b.weight", "F8_E4M3", {2, 2}, {1, -1, 3, 448}),
       tensor("b.weight_scale_inv", "F32", {}, {0.5}),
       tensor("c.weight", "F8_E4M3", {2, 2}, {1, 1, 1, 1}),
       tensor("c.scale", "F32", {3}, {1, 1, 1}),
       {"d", "I8", {2}, {1, 2}},
       {"nan", "F16", {1, 2}, {0x00, 0x3C, 0x00, 0x7E}},
       tensor("e.weight", "F8_E4M3", {1, 1}, {1}),
       {"e.scale", "I32", {1}, {1, 0, 0, 0}}});
  auto ckpt = Checkpoint::open((dir / "m").string());
  const auto a = ckpt.read_matrix("a.weight", 4);
  CHECK(a.at(0, 0) == 2.0);
  CHECK(a.at(1, 3) == 1.0);   // block (0, 1)
  CHECK(a.at(3, 2) == 0.5);   // block (1, 0)
  CHECK(a.at(2, 3) == 0.25);  // block (1, 1)
  const auto b = ckpt.read_matrix("b.weight");
  CHECK(b.values == std::vector<double>{0.5, -0.5, 1.5, 224});
  const std::string file = (dir / "m" / "model.safetensors").string();
  CHECK_THROWS_WITH_AS(ckpt.read_matrix("c.weight"),
                       ("invalid checkpoint file '" + file +
                        "': tensor c.weight: its scale c.scale of 1 x 3 does not tile its 2 x 2 in "
                        "blocks")
                           .c_str(),
                       InputError);
  CHECK_THROWS_WITH_AS(ckpt.read_matrix("d"),
                       ("invalid checkpoint file '" + file +
                        "': tensor d: dtype I8 (phasesim reads F32, F16, BF16, F8_E4M3)")
                           .c_str(),
                       InputError);
  CHECK_THROWS_WITH_AS(ckpt.read_matrix("nan"),
                       ("invalid checkpoint file '" + file +
                        "': tensor nan: a value that is not finite (nan) at [0, 1]")
                           .c_str(),
                       InputError);
  CHECK_THROWS_WITH_AS(ckpt.read_matrix("e.weight"),
                       ("invalid checkpoint file '" + file +
                        "': tensor e.scale: dtype I32 (a scale is F32, F16, BF16 or F8_E8M0)")
                           .c_str(),
                       InputError);
}
