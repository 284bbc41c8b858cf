// phasesim inspect from the command line: the table and the document, --save-arch rerun by
// niah --arch, the bytes read from a shard that declares a terabyte and from a V4-Flash-shaped
// checkpoint, and every refusal by its line (exit 2, nothing written).
#include <doctest/doctest.h>

#include <fstream>

#include "support/checkpoint_writer.hpp"
#include "support/cli_runner.hpp"

using phasesim::test::run_cli;
using phasesim::test::run_json;
using phasesim::test::SmallModel;
using phasesim::test::TempDir;

namespace {

const std::string kInspectRun = " --beta 6 --context 8192";

}  // namespace

TEST_CASE("inspect: the table, the document, and --save-arch that niah --arch reruns") {
  const TempDir dir("inspect-cli");
  SmallModel model;
  model.deepseek = false;
  model.write(dir / "m", 2);
  const auto folder = (dir / "m").string();
  const auto saved = (dir / "saved.toml").string();
  const auto table = run_cli("inspect " + folder + kInspectRun + " --save-arch " + saved);
  REQUIRE(table.status == 0);
  CHECK(table.err.empty());
  CHECK(table.out.find("transformers tensor names, 4 layers (layer_types)") != std::string::npos);
  CHECK(table.out.find("read: the read path of MODEL.md section 10") != std::string::npos);
  CHECK(table.out.find(
            "stack of 3 compressed caches, its layers 1, 2, ... the checkpoint's 1, 2, 3") !=
        std::string::npos);
  CHECK(table.out.find("architecture written to " + saved) != std::string::npos);
  const auto doc = run_json("inspect " + folder + kInspectRun);
  CHECK(doc["command"] == "inspect");
  CHECK(doc["checkpoint"]["spelling"] == "transformers");
  CHECK(doc["checkpoint"]["files"] == 4);
  CHECK(doc["config"]["compress_ratios"] == nlohmann::json({0, 4, 8, 4}));
  CHECK(doc["layers"].size() == 4);
  CHECK(doc["layers"][0]["compressor"].is_null());
  CHECK(doc["layers"][2]["compressor"]["blind_phases"] == nlohmann::json({0, 1, 6, 7}));
  CHECK(doc["layers"][1]["indexer"]["channels"] == 2);
  CHECK(doc["layers"][3]["sinks"]["mean"] == 1.5);
  CHECK(doc["stack_layers"] == nlohmann::json({1, 2, 3}));
  CHECK(doc["read"].get<std::string>().starts_with("the read path of MODEL.md section 10"));
  const auto rerun = run_json("niah --arch " + saved + " --engine analytic" + kInspectRun);
  REQUIRE(rerun["groups"].size() == doc["groups"].size());
  for (std::size_t g = 0; g < rerun["groups"].size(); ++g) {
    CHECK(rerun["groups"][g]["accuracy"] == doc["groups"][g]["accuracy"]);
  }
  // The hand-typed gates give the same table.
  std::ofstream(dir / "hand.toml") << SmallModel{}.architecture();
  const auto hand =
      run_json("niah --arch " + (dir / "hand.toml").string() + " --engine analytic" + kInspectRun);
  CHECK(hand["groups"] == rerun["groups"]);
}

TEST_CASE("inspect reads the tensors it needs from a shard that declares a terabyte") {
  const TempDir dir("inspect-terabyte");
  SmallModel model;
  model.write(dir / "m");
  // The same tensors with a terabyte of experts declared after them, a hole of the file.
  const auto shard = dir / "m" / "model.safetensors";
  auto tensors = model.tensors();
  tensors.push_back(phasesim::test::declared("layers.3.ffn.experts.weight", "U8", {1LL << 40}));
  phasesim::test::write_safetensors(shard, tensors);
  REQUIRE(std::filesystem::file_size(shard) > (std::uint64_t{1} << 40));
  const auto doc =
      run_json("inspect " + (dir / "m").string() + kInspectRun + " --content-columns 3");
  // config.json, the header (its length and text), then the biases, the gate rows' first three
  // columns and the sinks: 880 bytes of data (tests/checkpoint/compressor_test.cpp).
  std::ifstream in(shard, std::ios::binary);
  std::uint64_t header = 0;
  for (int i = 0; i < 8; ++i) header |= std::uint64_t(std::uint8_t(in.get())) << (8 * i);
  const auto config = std::filesystem::file_size(dir / "m" / "config.json");
  CHECK(doc["checkpoint"]["bytes_read"] == config + 8 + header + 880);
  CHECK(doc["checkpoint"]["total_bytes"] == std::filesystem::file_size(shard));
}

TEST_CASE("inspect on a V4-Flash-shaped checkpoint reads under 100 MB of its 100 GB") {
  // 43 layers of the real shapes (MODEL.md section 9: 2 window-only, 21 CSA, 20 HCA, head_dim
  // 512, indexer 2 x 128, hidden 4096, 64 heads), F32 compressors, every layer's experts a
  // declared hole; the data are zeros (benchmarks/inspect_v4_flash.py writes random ones and
  // times it).
  const TempDir dir("inspect-v4-flash");
  std::filesystem::create_directories(dir / "m");
  std::vector<int> ratios{0, 0};
  for (int l = 2; l < 43; ++l) ratios.push_back(l % 2 == 0 ? 4 : 128);
  nlohmann::ordered_json map = nlohmann::ordered_json::object();
  for (int l = 0; l < 43; ++l) {
    const auto p = "layers." + std::to_string(l) + ".attn.";
    const int m = ratios[l], coff = m == 4 ? 2 : 1;
    const auto zeros = [](std::int64_t n) {
      return std::vector<std::uint8_t>(static_cast<std::size_t>(n) * 4, 0);
    };
    std::vector<phasesim::test::RawTensor> t{{p + "attn_sink", "F32", {64}, zeros(64)}};
    if (m > 0) {
      t.push_back({p + "compressor.ape", "F32", {m, coff * 512}, zeros(m * coff * 512)});
      t.push_back(
          phasesim::test::declared(p + "compressor.wgate.weight", "F32", {coff * 512, 4096}));
    }
    if (m == 4) {
      t.push_back({p + "indexer.compressor.ape", "F32", {4, 256}, zeros(4 * 256)});
      t.push_back(
          phasesim::test::declared(p + "indexer.compressor.wgate.weight", "F32", {256, 4096}));
    }
    t.push_back(phasesim::test::declared("layers." + std::to_string(l) + ".ffn.experts", "I8",
                                         {3LL << 30}));
    const auto file = "model-" + std::to_string(l) + ".safetensors";
    for (const auto& x : t) map[x.name] = file;
    phasesim::test::write_safetensors(dir / "m" / file, t);
  }
  phasesim::test::write_json(dir / "m" / "model.safetensors.index.json", {{"weight_map", map}});
  phasesim::test::write_json(dir / "m" / "config.json", {{"n_layers", 43},
                                                         {"compress_ratios", ratios},
                                                         {"dim", 4096},
                                                         {"n_heads", 64},
                                                         {"head_dim", 512},
                                                         {"index_head_dim", 128}});
  const auto doc = run_json("inspect " + (dir / "m").string() + " --groups 128");
  CHECK(doc["checkpoint"]["total_bytes"].get<double>() > 100e9);
  CHECK(doc["checkpoint"]["bytes_read"].get<double>() < 100e6);
  CHECK(doc["stack_layers"].size() == 41);
}

TEST_CASE("inspect refuses bad input with one line, exit 2, nothing written") {
  const TempDir dir("inspect-refused");
  SmallModel().write(dir / "m", 2);
  const auto m = (dir / "m").string();
  const auto config = (dir / "m" / "config.json").string();
  const auto shard = (dir / "m" / "model-00001.safetensors").string();
  phasesim::test::check_refused(
      {{(dir / "none").string(),
        "cannot read checkpoint '" + (dir / "none").string() + "' (no such file or folder)"},
       {config, "cannot read checkpoint '" + config +
                    "' (a JSON file: give the checkpoint's folder or one .safetensors file)"},
       {m + " --content-columns -1", "invalid --content-columns -1 (must be finite and >= 0)"},
       {m + " --beta -1", "invalid --beta -1 (must be finite and >= 0)"},
       {m + " --save-arch " + shard,
        "invalid --save-arch " + shard + " (the same file as the input " + shard +
            ": writing it would destroy the input; give another path)"}},
      "inspect");
  // --json naming an input: the CLI's own option, checked the same way.
  const auto json = run_cli("inspect " + m + " --json " + config);
  CHECK(json.status == 2);
  CHECK(json.err == "phasesim inspect: invalid --json " + config + " (the same file as the input " +
                        config + ": writing it would destroy the input; give another path)\n");
  CHECK(phasesim::test::read_text(config).starts_with("{"));
  // A corrupt header: its length is 2^40.
  {
    std::fstream file(shard, std::ios::in | std::ios::out | std::ios::binary);
    for (int i = 0; i < 8; ++i) file.put(i == 5 ? '\x01' : '\0');
  }
  phasesim::test::check_refused({{m, "invalid checkpoint file '" + shard +
                                         "': header length 1099511627776 over the format's bound "
                                         "of 100000000 bytes"}},
                                "inspect");
}
