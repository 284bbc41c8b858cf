// inspect on checkpoints the tests write (a V4 shape scaled down, a bias planted on known
// slots): the same coverage and NIAH tables as the same gates typed by hand, in both
// spellings, every dtype, sharded or not; the architecture it writes reruns to the same table.
#include "phasesim/inspect/inspect.hpp"

#include <doctest/doctest.h>

#include "phasesim/engines/engine.hpp"
#include "phasesim/model/coverage.hpp"
#include "support/checkpoint_writer.hpp"
#include "support/cli_runner.hpp"

using namespace phasesim;
using phasesim::test::SmallModel;
using phasesim::test::TempDir;

namespace {

std::shared_ptr<const engines::EngineRegistry> registry() {
  return std::make_shared<const engines::EngineRegistry>(engines::builtin_engines());
}

const inspect::Protocol kProtocol{6.0, 8192, 8};

// The stack's table from an architecture, as niah --arch --engine analytic computes it.
niah::NiahResult table_of(const niah::Architecture& arch, const engines::EngineRegistry& engines) {
  return engines::run_niah(inspect::prediction_plan(arch, kProtocol, engines), Parallel{1});
}

void check_same_table(const niah::NiahResult& a, const niah::NiahResult& b) {
  REQUIRE(a.groups.size() == b.groups.size());
  for (std::size_t g = 0; g < a.groups.size(); ++g)
    CHECK(a.groups[g].accuracy == b.groups[g].accuracy);
}

}  // namespace

TEST_CASE("inspect gives the hand-typed gates' coverage and tables: spellings, dtypes, shards") {
  const TempDir dir("inspect");
  const auto engines = registry();
  const auto hand = niah::parse_architecture(SmallModel{}.architecture(), "hand.toml");
  const auto expected = table_of(hand, *engines);
  int written = 0;
  for (const bool deepseek : {true, false}) {
    for (const char* dtype : {"F32", "F16", "BF16", "F8_E4M3"}) {
      for (const int shards : {1, 3}) {
        SmallModel model;
        model.deepseek = deepseek;
        model.dtype = dtype;
        const auto folder = dir / std::to_string(written++);
        model.write(folder, shards);
        CAPTURE(folder);
        const inspect::Inspection inspection({folder.string(), kProtocol, 0}, engines);
        CHECK(inspection.spelling() ==
              (deepseek ? checkpoint::Spelling::deepseek : checkpoint::Spelling::transformers));
        REQUIRE(inspection.stack_layers() == std::vector<int>{1, 2, 3});
        const auto& arch = inspection.architecture();
        REQUIRE(arch.heads.size() == hand.heads.size());
        for (std::size_t h = 0; h < arch.heads.size(); ++h) {
          CHECK(arch.heads[h].geometry.window == hand.heads[h].geometry.window);
          CHECK(arch.heads[h].geometry.stride == hand.heads[h].geometry.stride);
          CHECK(arch.heads[h].split_rho == hand.heads[h].split_rho);
          CHECK(arch.heads[h].gate.weights == hand.heads[h].gate.weights);
          const auto& read = arch.heads[h].read_path;
          const auto& typed = hand.heads[h].read_path;
          CHECK((read.top_k == typed.top_k && read.sliding_window == typed.sliding_window));
          REQUIRE(read.index_gate.has_value() == typed.index_gate.has_value());
          if (read.index_gate) CHECK(read.index_gate->weights == typed.index_gate->weights);
          const auto& layer = inspection.layers()[static_cast<std::size_t>(h + 1)];
          const auto phases = phase_coverage(hand.heads[h].geometry, hand.heads[h].gate);
          REQUIRE(layer.compressor->phases.size() == phases.size());
          for (std::size_t p = 0; p < phases.size(); ++p) {
            CHECK(layer.compressor->phases[p].coverage == phases[p].coverage);
            CHECK(layer.compressor->phases[p].channel_share == phases[p].channel_share);
          }
        }
        check_same_table(inspection.predict().stack, expected);
      }
    }
  }
}

TEST_CASE("inspect: planted slots, covered and blind phases, content noise, sinks, indexer") {
  const TempDir dir("inspect-planted");
  SmallModel().write(dir / "m");
  const inspect::Inspection inspection({(dir / "m").string(), kProtocol, 0}, registry());
  const auto& layers = inspection.layers();
  REQUIRE(layers.size() == 4);
  CHECK(!layers[0].compressor);
  CHECK(layers[0].sinks->mean == 0);
  // Layer 1 (CSA, W 8, S 4): channels on slots 1..4, every phase of 4 covered once.
  const auto& csa = *layers[1].compressor;
  CHECK(csa.covered == std::vector<int>{0, 1, 2, 3});
  CHECK(csa.blind.empty());
  for (const auto& p : csa.phases) CHECK(p.channel_share == 0.25);
  // Layer 2 (HCA, W = S = 8): channels on slots 2..5, so phases 0, 1, 6, 7 are blind.
  const auto& hca = *layers[2].compressor;
  CHECK(hca.covered == std::vector<int>{2, 3, 4, 5});
  CHECK(hca.blind == std::vector<int>{0, 1, 6, 7});
  // Rows r % 4 + 1 over 8 columns: tau = (r % 4 + 1) sqrt(8), rms sqrt(8 * 30 / 4).
  CHECK(csa.content->rms == doctest::Approx(std::sqrt(60.0)).epsilon(1e-12));
  CHECK(csa.content->min == doctest::Approx(std::sqrt(8.0)).epsilon(1e-12));
  CHECK(csa.content->max == doctest::Approx(4 * std::sqrt(8.0)).epsilon(1e-12));
  // One logit of 4 and seven of 0 per channel: the variance of its logits is 16 * 7 / 64.
  CHECK(csa.bias_spread == doctest::Approx(std::sqrt(7.0) / 2).epsilon(1e-12));
  CHECK(layers[3].sinks->mean == 1.5);
  // The indexer's channels sit one slot later than the compressor's.
  CHECK(layers[1].indexer->covered == std::vector<int>{2, 3});
  CHECK(layers[1].indexer->channels == 2);
}

TEST_CASE("--content-columns: each row's norm from its first columns, all by default when 0") {
  const TempDir dir("inspect-columns");
  SmallModel().write(dir / "m");
  const auto engines = registry();
  const inspect::Inspection all({(dir / "m").string(), kProtocol, 0}, engines);
  const inspect::Inspection two({(dir / "m").string(), kProtocol, 2}, engines);
  const auto& a = *all.layers()[1].compressor->content;
  const auto& b = *two.layers()[1].compressor->content;
  CHECK((a.columns_read == 8 && b.columns_read == 2 && b.columns == 8));
  CHECK(b.rms == doctest::Approx(a.rms).epsilon(1e-12));  // every column of a row is equal
  CHECK(two.bytes_read() < all.bytes_read());
}

TEST_CASE("the architecture inspect writes reruns to the same stack table") {
  const TempDir dir("inspect-arch");
  SmallModel model;
  model.dtype = "BF16";
  model.write(dir / "m");
  const auto engines = registry();
  const inspect::Inspection inspection({(dir / "m").string(), kProtocol, 0}, engines);
  const auto text = inspect::inspection_architecture(inspection);
  const auto arch = niah::parse_architecture(text, "saved.toml");
  CHECK(arch.layers == 3);
  CHECK(text.find("# checkpoint layer 2: hca, compress ratio 8, layers.2.attn.compressor.ape") !=
        std::string::npos);
  check_same_table(table_of(arch, *engines), inspection.predict().stack);
}

TEST_CASE("inspect refuses a checkpoint without a compressed layer") {
  const TempDir dir("inspect-window");
  SmallModel model;
  model.ratios = {0, 0};
  model.write(dir / "m");
  CHECK_THROWS_WITH_AS(
      inspect::Inspection({(dir / "m").string(), kProtocol, 0}, registry()),
      ("checkpoint '" + (dir / "m").string() + "' has no compressed layer (config '" +
       (dir / "m" / "config.json").string() +
       "' makes every layer read its sliding window only): no gate to inspect")
          .c_str(),
      InputError);
}

TEST_CASE("V4.1's shared caches: compressors at the kv sources, no position bias") {
  const TempDir dir("inspect-v41");
  std::filesystem::create_directories(dir / "m");
  phasesim::test::write_json(dir / "m" / "config.json", {{"n_layers", 5},
                                                         {"compress_ratios", {0, 2, 2, 1, 1}},
                                                         {"kv_source_layers", {1, 3}},
                                                         {"index_source_layers", {1, 3}},
                                                         {"head_dim", 4},
                                                         {"dim", 8}});
  using phasesim::test::tensor;
  std::vector<phasesim::test::RawTensor> tensors{
      tensor("layers.1.attn.compressor.wgate.weight", "BF16", {4, 8}, std::vector<double>(32, 0.5)),
      tensor("layers.1.attn.compressor.wkv.weight", "BF16", {4, 8}, std::vector<double>(32, 1)),
      tensor("layers.3.attn.compressor.wkv.weight", "BF16", {4, 8}, std::vector<double>(32, 1))};
  for (int l = 0; l < 5; ++l) {
    tensors.push_back(
        tensor("layers." + std::to_string(l) + ".attn.attn_sink", "F32", {2}, {1, 2}));
  }
  phasesim::test::write_safetensors(dir / "m" / "model.safetensors", tensors);
  const inspect::Inspection inspection({(dir / "m").string(), kProtocol, 0}, registry());
  CHECK(inspection.stack_layers() == std::vector<int>{1, 3});
  const auto& layers = inspection.layers();
  const auto& pooled = *layers[1].compressor;
  CHECK(pooled.bias_tensor.empty());
  CHECK((pooled.geometry.window == 2 && pooled.geometry.stride == 2));
  CHECK(pooled.gate.weights == std::vector<double>{0.5, 0.5});
  CHECK(pooled.content->rms == doctest::Approx(0.5 * std::sqrt(8.0)).epsilon(1e-12));
  const auto& projected = *layers[3].compressor;
  CHECK((projected.geometry.window == 1 && !projected.content));
  CHECK((layers[2].plan.cache_of == 1 && !layers[2].compressor));
  CHECK((layers[4].plan.cache_of == 3 && layers[4].plan.index_source == false));
  CHECK(layers[3].plan.index_source);
  // A compressor's tensor at a layer that reads another's cache is refused.
  tensors.push_back(
      tensor("layers.2.attn.compressor.wgate.weight", "BF16", {4, 8}, std::vector<double>(32, 1)));
  phasesim::test::write_safetensors(dir / "m" / "model.safetensors", tensors);
  CHECK_THROWS_WITH_AS(
      inspect::Inspection({(dir / "m").string(), kProtocol, 0}, registry()),
      ("config '" + (dir / "m" / "config.json").string() + "' disagrees with checkpoint file '" +
       (dir / "m" / "model.safetensors").string() +
       "': tensor layers.2.attn.compressor.wgate.weight is a compressor's, the config makes layer "
       "2 "
       "a reader of layer 1's compressed cache (kv_source_layers)")
          .c_str(),
      InputError);
}
