// Layer stacks (docs/MODEL.md section 11): `kind`, `shares` and `window_only` in architecture
// files, their messages, the whole-model presets layer by layer, alike layers computed once
// with the bits of each layer computed alone, and the engines' agreement on a small stack.
#include <doctest/doctest.h>

#include <map>
#include <set>

#include "phasesim/niah/architecture.hpp"
#include "support/niah_fixture.hpp"

using namespace phasesim;
using namespace phasesim::niah;

namespace {

// A window-only layer, a selecting layer read by 2 query heads, a dense one, a layer that
// reads layer 2's cache and one alike layer 2 with its own cache.
const char* kStack = R"(
[[layer]]
window_only = true
sliding_window = 16
sink = 0
[[layer]]
kind = "CSA"
window = 8
stride = 4
query_heads = 2
gate = "onehot:7"
index_gate = "uniform"
top_k = 4
sliding_window = 16
sink = 0
[[layer]]
kind = "HCA"
window = 16
stride = 16
gate = "uniform"
sliding_window = 16
[[layer]]
shares = 2
[[layer]]
kind = "CSA"
window = 8
stride = 4
query_heads = 2
gate = "onehot:7"
index_gate = "uniform"
top_k = 4
sliding_window = 16
sink = 0
)";

// kind -> count, from layers_by_kind_json.
std::map<std::string, int> kinds(const Architecture& arch) {
  std::map<std::string, int> counts;
  for (const auto& k : layers_by_kind_json(arch)) counts[k["kind"]] = k["count"];
  return counts;
}

std::size_t caches(const Architecture& arch) {
  const auto keys = arch.key_heads();
  return std::set<int>(keys.begin(), keys.end()).size();
}

NiahSpec spec_of(const Architecture& arch) {
  NiahSpec spec;
  spec.architecture = arch;
  spec.beta = 3;
  spec.context = 2048;
  spec.groups = 16;
  spec.prompts = 128;
  return spec;
}

}  // namespace

TEST_CASE("stacks: shared caches, window-only layers and kinds") {
  const auto arch = test::architecture(kStack);
  CHECK(arch.layers == 5);
  REQUIRE(arch.heads.size() == 7);
  // Layer 4's two heads read layer 2's cache: query heads of it, no cache of their own.
  CHECK(arch.key_heads() == std::vector<int>{0, 0, 2, 0, 0, 5, 5});
  CHECK(arch.heads[3].layer == 4);
  CHECK_FALSE(arch.heads[3].holds_cache());
  CHECK(arch.heads[3].read_path.top_k == 4);
  CHECK(kinds(arch) ==
        std::map<std::string, int>{{"window-only", 1}, {"CSA", 2}, {"HCA", 1}, {"shared", 1}});
  CHECK(kv_cost(arch.geometries(), arch.key_heads()).entries_per_token == 0.25 + 0.0625 + 0.25);
  const auto json = architecture_json(arch);
  CHECK(json["window_only_layers"][0]["sliding_window"] == 16);
  CHECK(json["heads"][3]["reads_cache_of_layer"] == 2);
  // A file without stack keys keeps its documents as they were.
  CHECK_FALSE(architecture_json(test::architecture("[[layer]]\nwindow = 4\nstride = 4\ngate = "
                                                   "\"last\""))
                  .contains("layers_by_kind"));
  // The writer reads back to the same stack.
  const auto again = parse_architecture(architecture_toml(arch, {}, {}), "again.toml");
  CHECK(again.key_heads() == arch.key_heads());
  CHECK(kinds(again) == kinds(arch));
}

TEST_CASE("stacks: messages name the layer and what is allowed") {
  const std::string csa = "[[layer]]\nwindow = 4\nstride = 4\ngate = \"last\"\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {csa + "[[layer]]\nshares = 2\n",
       "invalid arch.toml: layer 2: shares 2 (must name an earlier layer, 1 to 1)"},
      {csa + "[[layer]]\nshares = 1\nwindow = 8\n",
       "invalid arch.toml: layer 2: unknown key 'window' (allowed: kind, shares)"},
      {"[[layer]]\nwindow_only = true\nsliding_window = 8\n[[layer]]\nshares = 1\n",
       "invalid arch.toml: layer 2: shares 1 (layer 1 is window-only: it has no cache)"},
      {"[[layer]]\nwindow_only = true\n" + csa,
       "invalid arch.toml: layer 1: a window-only layer needs sliding_window in [1, 16777216]"},
      {"[[layer]]\nwindow_only = true\nsliding_window = 8\n",
       "invalid arch.toml: no layer with a cache (every layer is window-only)"},
      {"[[layer]]\nwindow_only = 1\nsliding_window = 8\n",
       "invalid arch.toml: layer 1: window_only must be true or false"},
  };
  for (const auto& [toml, message] : cases) {
    const std::string& shown = toml;  // clang cannot capture a structured binding (CAPTURE)
    CAPTURE(shown);
    CHECK_THROWS_WITH_AS(parse_architecture(toml, "arch.toml"), message.c_str(), InputError);
  }
}

TEST_CASE("presets: whole models layer by layer (MODEL.md section 9)") {
  const auto flash = load_architecture("v4-flash");
  CHECK(flash.layers == 43);
  CHECK(kinds(flash) == std::map<std::string, int>{{"window-only", 2}, {"CSA", 21}, {"HCA", 20}});
  CHECK(flash.stack.back().kind == "CSA");
  CHECK(caches(flash) == 41);
  CHECK(flash.heads.size() == 41 * 64);
  const auto pro = load_architecture("v4-pro");
  CHECK(pro.layers == 61);
  CHECK(kinds(pro) == std::map<std::string, int>{{"CSA", 30}, {"HCA", 31}});
  CHECK((pro.stack[0].kind == "HCA" && pro.stack[1].kind == "HCA" && pro.stack[2].kind == "CSA"));
  const auto v41 = load_architecture("v41-flash");
  CHECK(v41.layers == 40);
  CHECK(kinds(v41) == std::map<std::string, int>{{"window-only", 2},
                                                 {"compressor, ratio 2", 3},
                                                 {"shared, ratio 2", 15},
                                                 {"compressor, ratio 1", 1},
                                                 {"shared, ratio 1", 19}});
  CHECK(caches(v41) == 4);  // layers 3, 9, 15 and 21 run a compressor
  int unpooled = 0;
  for (const auto& h : v41.heads) unpooled += h.geometry.stride == 1 && h.query_head == 1;
  CHECK(unpooled == 20);  // half the 40 layers read unpooled tokens
}

TEST_CASE("presets: NSA and MoBA, whole models that read raw blocks (MODEL.md section 10)") {
  const auto nsa = load_architecture("nsa");
  CHECK(nsa.layers == 30);
  CHECK(kinds(nsa) == std::map<std::string, int>{{"NSA", 30}});
  CHECK(caches(nsa) == 30 * 8);  // 4 GQA groups, a compression and a selection cache each
  CHECK(nsa.heads.size() == 30 * 8 * 16);
  const auto& selection = nsa.heads[4 * 16];
  CHECK((selection.geometry.window == 64 && selection.geometry.stride == 64));
  CHECK(selection.read_path.resolve().raw_blocks);
  CHECK(selection.read_path.resolve().top_k == 16);
  CHECK(selection.read_path.resolve().sliding_window == 512);
  CHECK(!nsa.heads.front().read_path.resolve().raw_blocks);
  // Per layer and group: 1/16 (compression) + 1 + 1/64 (every raw token and its block keys).
  const double nsa_layer = 4 * (1.0 / 16 + 1 + 1.0 / 64);
  CHECK(kv_cost(nsa.geometries(), nsa.key_heads(), nsa.read_paths()).entries_per_token ==
        doctest::Approx(30 * nsa_layer));
  const auto moba = load_architecture("moba");
  CHECK(moba.layers == 32);
  CHECK(kinds(moba) == std::map<std::string, int>{{"MoBA", 29}, {"full", 3}});
  CHECK(caches(moba) == 32 * 8);
  CHECK(moba.heads.size() == 32 * 32);
  CHECK(moba.stack.back().kind == "full");
  CHECK(moba.heads.front().read_path.resolve().top_k == 11);
  CHECK(kv_cost(moba.geometries(), moba.key_heads(), moba.read_paths()).entries_per_token ==
        doctest::Approx(29 * 8 * (1 + 1.0 / 4096) + 3 * 8));
}

// Alike layers are one computation: the analytic engine's rows of a stack are, bit for bit,
// those of each layer computed alone; and a layer that shares a cache is, bit for bit, more
// query heads of it in the Monte Carlo engines.
TEST_CASE("stacks: alike layers computed once give the bits of every layer computed alone") {
  const auto rows_of = [](const Architecture& arch) {
    return engines::run_engine(test::plan(spec_of(arch), "analytic"), Parallel{});
  };
  const auto rows = rows_of(test::architecture(kStack));
  const auto alone = [&](const std::string& layer) { return rows_of(test::architecture(layer)); };
  const std::string csa = std::string(kStack).substr(std::string(kStack).find("[[layer]]\nkind"));
  const auto csa_alone = alone(csa.substr(0, csa.find("[[layer]]", 1)));
  for (const int h : {0, 1, 3, 4, 5, 6}) {
    CAPTURE(h);
    CHECK(rows.phase_success[static_cast<std::size_t>(h)] == csa_alone.phase_success[0]);
    CHECK(rows.window_success[static_cast<std::size_t>(h)] == csa_alone.window_success[0]);
  }
  const auto shared = test::architecture(
      "[[layer]]\nwindow = 8\nstride = 4\nquery_heads = 2\ngate = \"onehot:7\"\ntop_k = 4\n"
      "[[layer]]\nshares = 1\n");
  const auto heads = test::architecture(
      "[[layer]]\nwindow = 8\nstride = 4\nquery_heads = 4\ngate = \"onehot:7\"\ntop_k = 4\n");
  const auto a = test::run_spec(spec_of(shared), "fast");
  const auto b = test::run_spec(spec_of(heads), "fast");
  REQUIRE(a.groups.size() == b.groups.size());
  for (std::size_t r = 0; r < a.groups.size(); ++r)
    CHECK(a.groups[r].successes == b.groups[r].successes);
}

TEST_CASE("stacks: the engines agree on a small stack") {
  test::check_engines_agree(spec_of(test::architecture(kStack)));
}
