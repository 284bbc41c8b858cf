// Architectures: files of layers of heads, their validation messages, the presets, the KV
// cost, needle placement interior for every head, and the exact report over heads whose
// strides and offsets differ.
#include "phasesim/niah/architecture.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <string>

#include "phasesim/channel/phase_channel.hpp"
#include "phasesim/core/error.hpp"
#include "support/niah_fixture.hpp"

using namespace phasesim;
using namespace phasesim::channel;
using namespace phasesim::engines;
using namespace phasesim::niah;

namespace {

const char* kTwoLayers = R"(
name = "two layers"
[[layer]]
window = 8
stride = 4
gate = "random:3:2"
heads = 3
[[layer]]
window = 6
stride = 5
offset = 2
gate = "last"
heads = [{}, { offset = 4, gate = "onehot:1" }, { window = 3, stride = 3, offset = 0 }]
)";

}  // namespace

TEST_CASE("architecture files: layer defaults, head overrides, replicated random gates") {
  const auto arch = parse_architecture(kTwoLayers, "two.toml");
  CHECK(arch.name == "two layers");
  CHECK(arch.file == "two.toml");
  CHECK(arch.layers == 2);
  REQUIRE(arch.heads.size() == 6);
  // A layer's random gate is replicated as --heads replicates --gates.
  CHECK(arch.heads[0].gate.spec == "random:3:2");
  CHECK(arch.heads[2].gate.spec == "random:5:2");
  CHECK(arch.heads[2].gate.weights == parse_gate("random:5:2", 8).weights);
  CHECK(arch.heads[2].layer == 1);
  CHECK(arch.heads[2].head == 3);
  const auto& a = arch.heads[3];
  CHECK((a.layer == 2 && a.head == 1));
  CHECK((a.geometry.window == 6 && a.geometry.stride == 5 && a.geometry.offset == 2));
  CHECK(a.gate.spec == "last");
  CHECK(arch.heads[4].geometry.offset == 4);
  CHECK(arch.heads[4].gate.spec == "onehot:1");
  const auto& c = arch.heads[5];
  CHECK((c.geometry.window == 3 && c.geometry.stride == 3 && c.geometry.offset == 0));
  CHECK(c.gate.window() == 3);  // the layer's gate, parsed for the head's own window
  // The name defaults to the file's stem.
  CHECK(parse_architecture("[[layer]]\nwindow = 1\nstride = 1\ngate = \"last\"", "a/b.toml").name ==
        "b");
}

TEST_CASE("architecture files: per-channel gates as channel groups, in a layer or a head") {
  const auto arch = parse_architecture(R"(
[[layer]]
window = 8
stride = 4
channels = [{ gate = "onehot:7", share = 0.5 }, { gate = "random:2", share = 0.5 }]
heads = 2
[[layer]]
window = 8
stride = 4
heads = [{ channels = ["onehot:4", "onehot:5", "onehot:6", "onehot:7"] }, { gate = "last" }]
)",
                                       "channels.toml");
  REQUIRE(arch.heads.size() == 4);
  CHECK(arch.heads[0].gate.spec == "channels:onehot:7=0.5|random:2=0.5");
  CHECK(arch.heads[1].gate.spec == "channels:onehot:7=0.5|random:3=0.5");  // replicated
  CHECK(arch.heads[2].gate.channels.size() == 4);
  CHECK(arch.heads[2].gate.weights == std::vector<double>{0, 0, 0, 0, 0.25, 0.25, 0.25, 0.25});
  CHECK_FALSE(arch.heads[3].gate.per_channel());
  CHECK(arch.heads[3].split_rho == 1);
  const auto json = architecture_json(arch);
  CHECK(json["heads"][0]["channels"][1]["gate"] == "random:2");
  CHECK_FALSE(json["heads"][3].contains("channels"));
}

TEST_CASE("architecture files: split_rho on a layer, overridden by a head") {
  const auto arch = parse_architecture(
      "[[layer]]\nwindow = 8\nstride = 4\ngate = \"uniform\"\nsplit_rho = 0.5\n"
      "heads = [{}, { split_rho = 0 }, { split_rho = 1 }]",
      "split.toml");
  REQUIRE(arch.heads.size() == 3);
  CHECK(arch.heads[0].split_rho == 0.5);
  CHECK(arch.heads[1].split_rho == 0);
  CHECK(arch.heads[2].split_rho == 1);
  const auto json = architecture_json(arch);
  CHECK(json["heads"][0]["split_rho"] == 0.5);
  CHECK_FALSE(json["heads"][2].contains("split_rho"));  // 1, the default, is not listed
  auto spec = test::full_vector({}, 16, 1.0);
  spec.architecture = arch;
  CHECK(make_run(spec).model.split_rhos == std::vector<double>{0.5, 0, 1});
}

TEST_CASE("architecture files: query_heads makes one cache read by K query heads") {
  const auto arch = parse_architecture(
      "[[layer]]\nwindow = 8\nstride = 4\ngate = \"random:2\"\nquery_heads = 3\n"
      "heads = [{}, { query_heads = 1 }]",
      "shared.toml");
  REQUIRE(arch.heads.size() == 4);
  CHECK(arch.key_heads() == std::vector<int>{0, 0, 0, 3});
  CHECK(arch.heads[2].query_head == 3);
  CHECK(arch.heads[2].head == 1);
  CHECK(arch.heads[2].gate.spec == "random:2");  // one compressor: one gate
  CHECK(arch.heads[3].gate.spec == "random:3");  // the layer's second head
  const auto cost = kv_cost(arch.geometries(), arch.key_heads());
  CHECK(cost.entries_per_token == 0.5);  // two caches of stride 4
  CHECK(cost.heads == 2);
  const auto json = architecture_json(arch);
  CHECK(json["heads"][1]["query_head"] == 2);
  CHECK(json["heads"][1]["query_heads"] == 3);
  CHECK_FALSE(json["heads"][3].contains("query_heads"));
  auto spec = test::full_vector({}, 16, 0.0);
  spec.architecture = arch;
  const auto model = make_run(spec).model;
  CHECK(model.key_heads == std::vector<int>{0, 0, 0, 3});
  CHECK(model.shares_cache(1));
  CHECK_FALSE(model.shares_cache(3));
}

TEST_CASE("KV cost: entries per token over heads and layers, against full attention") {
  const auto arch = parse_architecture(kTwoLayers, "two.toml");
  const auto cost = kv_cost(arch.geometries());
  CHECK(cost.entries_per_token == doctest::Approx(3.0 / 4 + 2.0 / 5 + 1.0 / 3).epsilon(1e-15));
  CHECK(cost.heads == 6);
  CHECK(cost.full_attention() == 6);
  CHECK(cost.relative() == doctest::Approx((3.0 / 4 + 2.0 / 5 + 1.0 / 3) / 6).epsilon(1e-15));
  const std::vector<Geometry> full(8, Geometry{1, 1});
  CHECK(kv_cost(full).relative() == 1.0);
}

TEST_CASE("architecture files: every mistake named with its layer and head") {
  const auto layer = [](const std::string& body) { return "[[layer]]\n" + body; };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {layer("window = 0\nstride = 4\ngate = \"last\""),
       "invalid arch.toml: layer 1, head 1: window 0 (must be at least 1)"},
      {layer("window = 8\nstride = 4\ngate = \"last\"\n[[layer]]\nwindow = 8\nstride = 4\n"
             "gate = \"last\"\nheads = [{}, {}, { window = 0 }]"),
       "invalid arch.toml: layer 2, head 3: window 0 (must be at least 1)"},
      {layer("window = 8\nstride = 0\ngate = \"last\""),
       "invalid arch.toml: layer 1, head 1: stride 0 (must be at least 1)"},
      {layer("window = 99999999\nstride = 4\ngate = \"last\""),
       "invalid arch.toml: layer 1, head 1: window 99999999 (must be at most 16777216)"},
      {layer("window = 8\nstride = 4\noffset = 4\ngate = \"last\""),
       "invalid arch.toml: layer 1, head 1: offset 4 (must be in [0, 4), below the stride)"},
      {layer("window = 8\nstride = 4\ngate = \"last\"\nheads = [{ offset = -1 }]"),
       "invalid arch.toml: layer 1, head 1: offset -1 (must be in [0, 4), below the stride)"},
      {layer("stride = 4\ngate = \"last\""),
       "invalid arch.toml: layer 1, head 1: no window (give window in the layer or the head)"},
      {layer("window = 8\nstride = 4"),
       "invalid arch.toml: layer 1, head 1: no gate (give gate or channels in the layer or the "
       "head)"},
      {layer("window = 8\nstride = 4\ngate = \"onehot:9\""),
       "invalid arch.toml: layer 1, head 1: gate 'onehot:9' (onehot:K needs an integer K in [0, "
       "7])"},
      {layer("window = 8\nstride = 4\ngate = \"last\"\nheads = [{ gate = \"weights:1,2\" }]"),
       "invalid arch.toml: layer 1, head 1: gate 'weights:1,2' (has 2 values, the window needs 8)"},
      {layer("window = \"8\"\nstride = 4\ngate = \"last\""),
       "invalid arch.toml: layer 1: window must be an integer"},
      {layer("window = 8\nstride = 4\ngate = 1"),
       "invalid arch.toml: layer 1: gate must be a string"},
      {layer("window = 8\nstride = 4\ngate = \"last\"\nheads = 0"),
       "invalid arch.toml: layer 1: heads 0 (must be in [1, 4096])"},
      {layer("window = 8\nstride = 4\ngate = \"last\"\nheads = \"all\""),
       "invalid arch.toml: layer 1: heads must be a count or a list of head tables, e.g. heads = "
       "[{ offset = 1 }]"},
      {layer("window = 8\nstride = 4\ngate = \"last\"\nheads = [{ stride = 2 }, 3]"),
       "invalid arch.toml: layer 1, head 2: must be a table of head values, e.g. { offset = 1 }"},
      {layer("window = 8\nstride = 4\ngate = \"last\"\nheads = [{ slots = 2 }]"),
       "invalid arch.toml: layer 1, head 1: unknown key 'slots' (allowed: window, stride, offset, "
       "gate, channels, split_rho, query_heads, top_k, index_gate, index_channels, index_beta, "
       "index_rho, sliding_window, sink, beta, raw_blocks)"},
      {layer("window = 8\nstride = 4\ngate = \"last\"\nbias = 1"),
       "invalid arch.toml: layer 1: unknown key 'bias' (allowed: window, stride, offset, gate, "
       "channels, split_rho, query_heads, top_k, index_gate, index_channels, index_beta, "
       "index_rho, sliding_window, sink, beta, raw_blocks, heads, kind, window_only, shares)"},
      {layer("window = 8\nstride = 4\ngate = \"last\"\nchannels = [\"last\"]"),
       "invalid arch.toml: layer 1: give gate or channels, not both"},
      {layer("window = 8\nstride = 4\ngate = \"last\"\nsplit_rho = 1.5"),
       "invalid arch.toml: layer 1: split_rho 1.5 (the correlation of a token's two keys must be "
       "in [0, 1])"},
      {layer("window = 8\nstride = 4\ngate = \"last\"\nsplit_rho = \"half\""),
       "invalid arch.toml: layer 1: split_rho must be a number"},
      {layer("window = 8\nstride = 4\ngate = \"last\"\nquery_heads = 0"),
       "invalid arch.toml: layer 1, head 1: query_heads 0 (must be in [1, 4096])"},
      {layer("window = 8\nstride = 4\nchannels = []"),
       "invalid arch.toml: layer 1: channels must be a list of channel groups, e.g. channels = [{ "
       "gate = \"onehot:7\", share = 0.5 }, { gate = \"onehot:3\", share = 0.5 }]"},
      {layer("window = 8\nstride = 4\nchannels = [{ share = 1 }]"),
       "invalid arch.toml: layer 1: a channel group needs its gate, e.g. { gate = \"onehot:7\", "
       "share = 0.5 }"},
      {layer("window = 8\nstride = 4\nchannels = [{ gate = \"last\", weight = 1 }]"),
       "invalid arch.toml: layer 1: unknown key 'weight' (allowed: gate, share)"},
      {layer("window = 8\nstride = 4\nheads = [{ channels = [{ gate = \"last\", share = 0.5 }, "
             "{ gate = \"onehot:0\", share = 0.4 }] }]"),
       "invalid arch.toml: layer 1, head 1: gate 'channels:last=0.5|onehot:0=0.4' (the shares of "
       "its channel groups sum to 0.9 (must sum to 1))"},
      {"layers = 2",
       "invalid arch.toml: unknown key 'layers' (allowed: name, description, layer, fit)"},
      {"name = \"empty\"", "invalid arch.toml: no layers (give one [[layer]] table per layer)"},
      {"[[layer]\n",
       "invalid arch.toml: line 1: Error while parsing table header: expected ']', saw '\\n'"},
      {layer("window = 1\nstride = 1\ngate = \"last\"\nheads = 4096\n") +
           layer("window = 1\nstride = 1\ngate = \"last\""),
       "invalid arch.toml: 4097 heads (must be at most 4096)"},
      // Each window and head count alone is allowed; together they would hold 2^36 slots.
      {layer("window = 16777216\nstride = 4\ngate = \"last\"\nheads = 4096"),
       "invalid arch.toml: layer 1, head 5: too large: the windows of the heads up to this one "
       "sum to 83886080 gate slots (at most 67108864 in all, to stay within 4 GiB)"},
  };
  for (const auto& [toml_text, message] : cases) {
    const auto& toml = toml_text;  // clang 14's CAPTURE cannot take a binding
    CAPTURE(toml);
    CHECK_THROWS_WITH_AS(parse_architecture(toml, "arch.toml"), message.c_str(), InputError);
  }
}

TEST_CASE("presets: found by name, each a valid architecture of MODEL.md section 9") {
  CHECK(architecture_presets() == std::vector<std::string>{"moba", "nsa", "nsa-compression",
                                                           "v4-csa", "v4-flash", "v4-hca", "v4-pro",
                                                           "v41-csa", "v41-flash"});
  const auto geometry = [](const std::string& name) {
    return load_architecture(name).heads.front().geometry;
  };
  CHECK((geometry("v4-csa").window == 8 && geometry("v4-csa").stride == 4));
  CHECK((geometry("v4-hca").window == 128 && geometry("v4-hca").stride == 128));
  CHECK((geometry("v41-csa").window == 2 && geometry("v41-csa").stride == 2));
  CHECK((geometry("nsa-compression").window == 32 && geometry("nsa-compression").stride == 16));
  const auto v4 = load_architecture("v4-csa");
  CHECK(v4.file == "presets/v4-csa.toml");
  // V4 as the public code has it: a per-channel gate, one cache read by 64 query heads, the
  // older half-window through the other half of the projection (rho stated: 0).
  REQUIRE(v4.heads.size() == 64);
  CHECK(v4.key_heads() == std::vector<int>(64, 0));
  CHECK(v4.heads.front().gate.per_channel());
  CHECK(v4.heads.front().split_rho == 0);
  // The read path of V4-Flash's CSA layer: top 512 by an indexer of the compressor's gate at its
  // own beta, the 128-token window, the sink.
  const auto& v4_read = v4.heads.front().read_path;
  CHECK((v4_read.top_k == 512 && v4_read.sliding_window == 128 && v4_read.sink == 0.0));
  REQUIRE(v4_read.index_gate);
  CHECK(v4_read.index_gate->weights == v4.heads.front().gate.weights);
  CHECK(v4_read.index_beta.has_value());
  // HCA: no indexer, the window and the sink.
  const auto v4_hca = load_architecture("v4-hca");
  CHECK(v4_hca.heads.size() == 64);
  const auto& hca_read = v4_hca.heads.front().read_path;
  CHECK((!hca_read.top_k && hca_read.sliding_window == 128 && hca_read.sink == 0.0));
  // V4.1: no position bias in the compressor nor in the indexer.
  const auto v41 = load_architecture("v41-csa").heads.front();
  CHECK((!v41.gate.per_channel() && v41.gate.spec == "uniform"));
  CHECK((v41.read_path.top_k == 512 && v41.read_path.index_gate &&
         v41.read_path.index_gate->spec == "uniform" && !v41.read_path.index_beta &&
         v41.read_path.sliding_window == 128 && v41.read_path.sink == 0.0));
  CHECK_THROWS_WITH_AS(load_architecture("v5"),
                       "invalid --arch v5 (no such file, and no preset of that name: moba, nsa, "
                       "nsa-compression, v4-csa, v4-flash, v4-hca, v4-pro, v41-csa, v41-flash)",
                       InputError);
}

// The published tables (shared/reference/published_figures.json; MODEL.md sections 1 and 8)
// at the betas the [fit] tables give: V4-Flash-Base's best and worst groups from v4-csa (its read
// path, experiments/read-path (a)), V4.1-Flash's even/odd midpoints from the biased W = S = 2
// compressor of experiments/v41-stride2 (V4.1's code has no bias: v41-csa has no fit, and with
// one-token needles every group reads alike). The fits are rounded to 4 or 6 digits, so the
// tables hold to about 1e-4.
TEST_CASE("presets: v4-csa and v41-stride2's biased file reproduce the published tables") {
  const auto table = [](const Architecture& arch, double beta) {
    NiahSpec s;
    s.architecture = arch;
    s.beta = beta;
    s.context = 131072;
    return test::run_spec(s, "analytic").summary;
  };
  const auto v4 = load_architecture("v4-csa");
  REQUIRE(v4.fit);
  const auto v4_table = table(v4, v4.fit->beta);
  CHECK(v4_table.best == doctest::Approx(0.699).epsilon(1e-3));
  CHECK(v4_table.worst == doctest::Approx(0.297).epsilon(1e-3));
  const auto biased = load_architecture(std::string(PHASESIM_SOURCE_DIR) +
                                        "/experiments/v41-stride2/v41-csa-biased.toml");
  REQUIRE(biased.fit);
  const auto v41_table = table(biased, biased.fit->beta);
  CHECK(v41_table.best == doctest::Approx(0.95).epsilon(1e-3));
  CHECK(v41_table.worst == doctest::Approx(0.8975).epsilon(1e-3));
  const auto flat = table(load_architecture("v41-csa"), 4);
  CHECK(flat.worst == flat.best);  // no bias, one-token needles: no phase to tell apart
  CHECK((flat.best > 0.1 && flat.best < 0.9));
}

TEST_CASE("a one-layer architecture is the shorthand: the same model, the same outcomes") {
  NiahSpec shorthand;
  shorthand.geometry = {8, 8};
  shorthand.gates = "random:1:10";
  shorthand.heads = 4;
  shorthand.context = 4096;
  shorthand.prompts = 64;
  auto arch = shorthand;
  arch.architecture = parse_architecture(
      "[[layer]]\nwindow = 8\nstride = 8\ngate = \"random:1:10\"\nheads = 4", "one.toml");
  const auto a = make_run(shorthand);
  const auto b = make_run(arch);
  CHECK(a.needles.block_count == b.needles.block_count);
  for (int h = 0; h < 4; ++h) {
    CHECK(a.model.gates[static_cast<std::size_t>(h)].weights ==
          b.model.gates[static_cast<std::size_t>(h)].weights);
  }
  const auto x = run_engine(test::plan(shorthand, "fast"), Parallel{});
  const auto y = run_engine(test::plan(arch, "fast"), Parallel{});
  for (std::int64_t t = 0; t < a.needles.trials(); ++t) {
    const auto p = x.outcomes->row(t);
    const auto q = y.outcomes->row(t);
    CHECK(std::equal(p.begin(), p.end(), q.begin()));
  }
}

TEST_CASE("needles: interior for every head of an architecture, and as wide as that allows") {
  NiahSpec s;
  s.architecture = parse_architecture(kTwoLayers, "two.toml");
  s.context = 700;
  s.groups = 7;
  s.prompts = 1;
  const auto run = make_run(s);
  const auto& plan = run.needles;
  // Every entry holding a needle exists, starts at a position >= 0 and ends before L.
  auto interior = [&](std::int64_t p) {
    for (int h = 0; h < run.model.heads(); ++h) {
      const auto& g = run.model.geometry(h);
      for (std::int64_t j = -2; j < run.model.entries(h) + 2; ++j) {
        const bool holds = p >= g.position(j, 0) && p < g.position(j, 0) + g.window;
        if (holds && (j < 0 || j >= run.model.entries(h) || g.position(j, 0) < 0)) return false;
      }
    }
    return true;
  };
  for (int r = 0; r < plan.groups; ++r) {
    for (std::int64_t k = 0; k < plan.block_count; ++k) {
      CHECK(interior((plan.first_block + k) * plan.groups + r));
    }
  }
  // The range is the widest with p in [max(W, o), N_c S + o - W] for every head.
  auto within = [&](std::int64_t p) {
    for (int h = 0; h < run.model.heads(); ++h) {
      const auto& g = run.model.geometry(h);
      if (p < std::max(g.window, g.offset) ||
          p > run.model.entries(h) * g.stride + g.offset - g.window) {
        return false;
      }
    }
    return true;
  };
  CHECK(within(plan.first_position(0)));
  CHECK(within(plan.last_position(plan.groups - 1)));
  CHECK_FALSE(within(plan.first_position(0) - plan.groups));
  CHECK_FALSE(within(plan.last_position(plan.groups - 1) + plan.groups));
  s.context = 20;
  CHECK_THROWS_WITH(make_run(s),
                    "invalid --context 20 (must be at least 29 for the heads of two.toml and "
                    "--groups 7)");
}

TEST_CASE("the exact report over mixed strides and offsets: each needle position, directly") {
  NiahSpec s;
  s.architecture = parse_architecture(kTwoLayers, "two.toml");
  s.context = 2000;
  s.groups = 6;  // lcm of the strides (4, 5, 3) is 60: a group mixes many phase classes
  s.beta = 6;
  s.combine = "vote:2";
  s.knockout = 3;
  const auto run = make_run(s);
  const auto exact = test::run_spec(s, "analytic");
  const auto& m = run.model;
  std::vector<std::vector<double>> p;
  for (int h = 0; h < m.heads(); ++h) {
    p.push_back(
        phase_success(m.geometry(h), m.gates[static_cast<std::size_t>(h)], 6, m.entries(h)));
  }
  for (int r = 0; r < run.needles.groups; ++r) {
    double with = 0;
    double without = 0;
    for (std::int64_t k = 0; k < run.needles.block_count; ++k) {
      const auto needle = (run.needles.first_block + k) * run.needles.groups + r;
      std::vector<double> heads;
      for (int h = 0; h < m.heads(); ++h) {
        heads.push_back(p[static_cast<std::size_t>(h)]
                         [static_cast<std::size_t>(m.geometry(h).phase_of_position(needle))]);
      }
      with += combine_probabilities(heads, run.combine);
      without += combine_probabilities(heads, run.combine, 3);
    }
    const auto n = static_cast<double>(run.needles.block_count);
    CAPTURE(r);
    CHECK(exact.groups[static_cast<std::size_t>(r)].accuracy ==
          doctest::Approx(with / n).epsilon(1e-12));
    CHECK(exact.knockout->groups[static_cast<std::size_t>(r)].accuracy ==
          doctest::Approx(without / n).epsilon(1e-12));
  }
}

TEST_CASE("the analytic engine bounds its work: strides whose lcm leaves too many classes") {
  NiahSpec s;
  s.architecture = test::architecture(
      "[[layer]]\nwindow = 8\nstride = 1021\ngate = \"last\"\n"
      "[[layer]]\nwindow = 8\nstride = 1031\ngate = \"last\"");
  s.context = 1 << 21;
  CHECK_THROWS_WITH_AS(test::run_spec(s, "analytic"),
                       "invalid --engine analytic (the heads' strides give 1052651 classes of "
                       "needle positions to combine the heads over, more than 1048576; use "
                       "--engine fast)",
                       InputError);
  s.context = 1 << 20;  // fewer positions than the lcm: each its own class
  CHECK(test::run_spec(s, "analytic").groups.size() == 8);
}

// The [fit] tables are the experiments' fits, rounded to 4 decimals: the page and the README read
// them there, not from copies. v4-csa's own fit is experiments/read-path (a)'s two-stage fit
// (beta, and the layer's index_beta); its one_gate is v4-calibration's one gate with no read path.
TEST_CASE("the presets' fits are the calibration experiments' fits") {
  const auto fitted = [](const std::string& file) {
    std::ifstream in(std::string(PHASESIM_SOURCE_DIR) + "/experiments/" + file);
    return Json::parse(in);
  };
  const auto check_one_gate = [&](const Architecture& arch, const std::string& file) {
    const auto one_gate = fitted(file);
    CHECK(std::abs(arch.fit->one_gate_beta - one_gate["beta"].get<double>()) < 5e-5);
    const auto window = arch.heads.front().geometry.window;
    const auto gate = parse_gate(arch.fit->one_gate, window);
    const auto reference = parse_gate(one_gate["gate"].get<std::string>(), window);
    for (std::size_t s = 0; s < gate.weights.size(); ++s)
      CHECK(gate.weights[s] == doctest::Approx(reference.weights[s]).epsilon(1e-4));
    CHECK(one_gate["kappa"].get<double>() > 0);
  };
  const auto v4 = load_architecture("v4-csa");
  REQUIRE(v4.fit);
  const auto two_stage = fitted("read-path/expected/a_fit.json")["fit"];
  CHECK(std::abs(v4.fit->beta - two_stage["beta"].get<double>()) < 5e-5);
  CHECK(std::abs(*v4.heads.front().read_path.index_beta - two_stage["index_beta"].get<double>()) <
        5e-5);
  check_one_gate(v4, "v4-calibration/expected/fit.json");

  const auto biased = load_architecture(std::string(PHASESIM_SOURCE_DIR) +
                                        "/experiments/v41-stride2/v41-csa-biased.toml");
  REQUIRE(biased.fit);
  CHECK(std::abs(biased.fit->beta -
                 fitted("v41-stride2/expected/fit_w2s2_channels.json")["beta"].get<double>()) <
        5e-5);
  check_one_gate(biased, "v41-stride2/expected/fit_w2s2_logit.json");
  CHECK(!load_architecture("v41-csa").fit);  // no bias, no phase: fitted to no table
  CHECK(!load_architecture("nsa").fit);
}

// A preset fitted to a published table says in its header how to reproduce it (issue 38): a
// line "# reproduces: phasesim niah --arch NAME --beta B ..." at its [fit] beta.
TEST_CASE("a fitted preset's header names the command that reproduces its table") {
  for (const auto& name : architecture_presets()) {
    const auto arch = load_architecture(name);
    if (!arch.fit) continue;
    CAPTURE(name);
    std::ifstream in(std::string(PHASESIM_SOURCE_DIR) + "/" + arch.file);
    std::string line, reproduces;
    while (std::getline(in, line))
      if (line.starts_with("# reproduces: ")) reproduces = line;
    REQUIRE(reproduces.starts_with("# reproduces: phasesim niah --arch " + name + " --beta "));
    const auto beta = reproduces.substr(reproduces.find("--beta ") + 7);
    CHECK(std::stod(beta) == arch.fit->beta);
    CHECK(reproduces.find("--needle-tokens 1") != std::string::npos);
  }
}

TEST_CASE("a [fit] table needs all four values") {
  const std::string layer = "[[layer]]\nwindow = 4\nstride = 4\n";
  CHECK_THROWS_WITH_AS(parse_architecture(layer + "[fit]\nbeta = 3\n", "f.toml"),
                       "invalid f.toml: [fit] needs table", InputError);
  CHECK_THROWS_WITH_AS(parse_architecture(layer + "[fit]\nbeta = 3\nfoo = 1\n", "f.toml"),
                       "invalid f.toml: unknown key 'foo' (allowed: table, beta, one_gate, "
                       "one_gate_beta)",
                       InputError);
}

TEST_CASE(
    "architecture files: the read path per layer and head, the command line filling the rest") {
  const auto arch = parse_architecture(
      "[[layer]]\nwindow = 8\nstride = 4\ngate = \"last\"\ntop_k = 512\nsliding_window = 128\n"
      "heads = [{ index_gate = \"uniform\" }, { top_k = 64, sink = 1.5 }]\n"
      "[[layer]]\nwindow = 128\nstride = 128\ngate = \"uniform\"\nsliding_window = 128\n",
      "test.toml");
  REQUIRE(arch.heads.size() == 3);
  CHECK(arch.heads[0].read_path.top_k == 512);
  CHECK(arch.heads[0].read_path.index_gate->spec == "uniform");
  CHECK(arch.heads[1].read_path.top_k == 64);
  CHECK(arch.heads[1].read_path.sink == 1.5);
  CHECK(!arch.heads[2].read_path.top_k);
  NiahSpec spec;
  spec.architecture = arch;
  spec.read.index_rho = 0.5;
  spec.read.top_k = 1024;  // the HCA layer has none of its own
  const auto m = make_run(spec).model;
  CHECK(m.read_path(0).top_k == 512);
  CHECK(m.read_path(0).index_rho == 0.5);
  CHECK(m.read_path(2).top_k == 1024);
  CHECK(m.read_path(2).sliding_window == 128);
  CHECK(m.index_gate(1).spec == "last");
  const auto refused = [](const std::string& toml, const std::string& message) {
    CAPTURE(toml);
    try {
      parse_architecture(toml, "test.toml");
      FAIL("accepted");
    } catch (const InputError& e) {
      CHECK(std::string(e.what()) == message);
    }
  };
  refused("[[layer]]\nwindow = 8\nstride = 4\ngate = \"last\"\ntop_k = 0\n",
          "invalid test.toml: layer 1: top_k 0 (must be at least 1)");
  refused("[[layer]]\nwindow = 8\nstride = 4\ngate = \"last\"\nheads = [{ index_rho = 2 }]\n",
          "invalid test.toml: layer 1, head 1: index_rho 2 (the correlation of an entry's "
          "selection and attention logits must be in [-1, 1])");
  refused("[[layer]]\nwindow = 8\nstride = 4\ngate = \"last\"\nindex_gate = \"onehot:9\"\n",
          "invalid test.toml: layer 1, head 1: gate 'onehot:9' (onehot:K needs an integer K in "
          "[0, 7])");
}
