// Architectures from the command line: niah --arch, coverage --arch, compare (paired trials,
// KV cost, differences against the first) and a sweep over architecture files.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <tuple>

#include "support/cli_runner.hpp"

using phasesim::test::read_text;
using phasesim::test::run_cli;
using phasesim::test::run_json;
using phasesim::test::TempDir;

namespace {

// W8/S8 with four concentrated random heads, one with the heads on shifted boundaries, one
// with coprime strides, and the first with one more head.
const char* kBase = R"(name = "base"
[[layer]]
window = 8
stride = 8
gate = "random:1:10"
heads = 4
)";
const char* kOffsets = R"(name = "offsets"
[[layer]]
window = 8
stride = 8
heads = [{ offset = 0, gate = "last" }, { offset = 2, gate = "last" },
         { offset = 4, gate = "last" }, { offset = 6, gate = "last" }]
)";
const char* kCoprime = R"(name = "coprime"
[[layer]]
window = 8
stride = 7
gate = "random:1:10"
heads = 2
[[layer]]
window = 8
stride = 8
gate = "random:3:10"
heads = 2
)";
const char* kMore = R"(name = "base + 1"
[[layer]]
window = 8
stride = 8
gate = "random:1:10"
heads = 5
)";

struct ArchFiles {
  TempDir dir{"arch"};
  std::string path(const char* name, const char* text) const {
    const auto file = dir / name;
    std::ofstream(file) << text;
    return file.string();
  }
  std::string base = path("base.toml", kBase);
  std::string offsets = path("offsets.toml", kOffsets);
  std::string coprime = path("coprime.toml", kCoprime);
  std::string more = path("more.toml", kMore);
};

const std::string kRun = " --beta 4.5 --context 8192 --groups 8 --prompts 200";

}  // namespace

TEST_CASE("niah --arch: the architecture and its KV cost in the JSON, per-head values") {
  const ArchFiles files;
  const auto doc = run_json("niah --arch " + files.coprime + kRun);
  CHECK(doc["heads"] == 4);
  CHECK(doc["window"].is_null());  // the heads' strides differ: see "architecture"
  CHECK(doc["stride"].is_null());
  CHECK(doc["entries"].is_null());
  const auto& arch = doc["architecture"];
  CHECK(arch["name"] == "coprime");
  CHECK(arch["file"] == files.coprime);
  CHECK(arch["layers"] == 2);
  REQUIRE(arch["heads"].size() == 4);
  CHECK(arch["heads"][1]["layer"] == 1);
  CHECK(arch["heads"][1]["head"] == 2);
  CHECK(arch["heads"][1]["gate"] == "random:2:10");
  CHECK(arch["heads"][1]["entries"] == 8192 / 7);
  CHECK(arch["heads"][3]["stride"] == 8);
  CHECK(arch["heads"][3]["gate"] == "random:4:10");
  CHECK(doc["kv_cost"]["entries_per_token"].get<double>() == doctest::Approx(2.0 / 7 + 2.0 / 8));
  CHECK(doc["kv_cost"]["full_attention_entries_per_token"] == 4);
  // An architecture whose heads share one geometry keeps the shorthand's keys.
  const auto base = run_json("niah --arch " + files.base + kRun);
  CHECK(base["window"] == 8);
  CHECK(base["entries"] == 1024);
  const auto table = run_cli("niah --arch " + files.offsets + kRun + " --knockout 2");
  CHECK(table.status == 0);
  CHECK(table.out.find("architecture offsets (" + files.offsets + "): 1 layer, 4 heads") !=
        std::string::npos);
  CHECK(table.out.find("(1023 to 1024 entries)") != std::string::npos);
  CHECK(table.out.find("kv cost 0.5000 entries per token, 0.1250 of full attention (4 heads)") !=
        std::string::npos);
  CHECK(table.out.find("knockout of head 2 (layer 1, head 3)") != std::string::npos);
}

TEST_CASE("niah --arch gives the shorthand's results, and the shorthand reports its KV cost") {
  const ArchFiles files;
  const auto shorthand =
      run_json("niah --window 8 --stride 8 --gates random:1:10 --heads 4" + kRun);
  auto arch = run_json("niah --arch " + files.base + kRun);
  CHECK(arch["groups"] == shorthand["groups"]);
  CHECK(arch["summary"] == shorthand["summary"]);
  const auto table = run_cli("niah --window 8 --stride 4 --heads 8" + kRun);
  CHECK(table.out.find("kv cost 2.0000 entries per token, 0.2500 of full attention (8 heads)") !=
        std::string::npos);
}

TEST_CASE("compare --help names the presets, and niah --help names --arch") {
  const auto help = run_cli("compare --help");
  CHECK(help.status == 0);
  CHECK(help.out.find("v4-csa") != std::string::npos);
  CHECK(run_cli("niah --help").out.find("--arch") != std::string::npos);
}

TEST_CASE("compare: an architecture against itself differs by exactly 0") {
  const ArchFiles files;
  for (const std::string engine : {"fast", "analytic"}) {
    CAPTURE(engine);
    const auto doc =
        run_json("compare " + files.base + " " + files.base + kRun + " --engine " + engine);
    CHECK(doc["command"] == "compare");
    REQUIRE(doc["architectures"].size() == 2);
    const auto& second = doc["architectures"][1];
    CHECK(doc["architectures"][0]["label"] == "base");
    CHECK(second["label"] == "base (2)");
    CHECK(second["groups"] == doc["architectures"][0]["groups"]);
    for (const auto& g : second["difference"]["groups"]) {
      CHECK(g["difference"] == 0.0);
      CHECK(g["std_error"] == 0.0);
    }
    CHECK(second["difference"]["mean"] == 0.0);
    CHECK(second["difference"]["worst"] == 0.0);
  }
}

TEST_CASE("compare: paired trials with common random numbers where heads are shared") {
  const ArchFiles files;
  // "base + 1" holds base's four heads at the same indices: on every trial it retrieves
  // whenever base does, so no group can lose, and the gain has a paired standard error.
  const auto doc = run_json("compare " + files.base + " " + files.more + kRun);
  const auto& more = doc["architectures"][1];
  bool gained = false;
  for (const auto& g : more["difference"]["groups"]) {
    CHECK(g["difference"].get<double>() >= 0.0);
    gained |= g["difference"].get<double>() > 0;
  }
  CHECK(gained);
  // A paired difference of 0/1 outcomes that only rise: its variance is p(1 - p) of the gain.
  const auto& g0 = more["difference"]["groups"][0];
  const double p = g0["difference"].get<double>();
  CHECK(g0["std_error"].get<double>() == doctest::Approx(std::sqrt(p * (1 - p) / 200)));
}

TEST_CASE("compare: one table of cost, mean, worst, gap and differences, and JSON for plots") {
  const ArchFiles files;
  const TempDir out("compare-out");
  const auto json = (out / "c.json").string();
  const auto result = run_cli("compare " + files.base + " " + files.offsets + " " + files.coprime +
                              kRun + " --json " + json);
  REQUIRE(result.status == 0);
  CHECK(result.out.find("compare: 3 architectures on the same needles") != std::string::npos);
  CHECK(result.out.find("mean - first") != std::string::npos);
  CHECK(result.out.find("offsets   0.5000   0.1250") != std::string::npos);
  const auto doc = nlohmann::json::parse(read_text(json));
  CHECK(doc["architectures"][2]["kv_cost"]["entries_per_token"].get<double>() ==
        doctest::Approx(2.0 / 7 + 2.0 / 8));
  // "last" at offsets 0, 2, 4, 6 covers the odd phases once each and the even ones never.
  const auto& offsets = doc["architectures"][1]["groups"];
  for (int r = 0; r < 8; ++r) {
    CHECK((offsets[static_cast<std::size_t>(r)]["accuracy"].get<double>() > 0.5) == (r % 2 == 1));
  }
  // One needle range for all: the narrowest, here the head at offset 2 (8178 = 1023 * 8 + 2
  // - 8 is its last interior position; group 7's last needle is 1021 * 8 + 7).
  CHECK(doc["needle_range"] == nlohmann::json::array({8, 8175}));
  const auto base = run_json("niah --arch " + files.base + kRun);
  CHECK(base["needle_range"] == nlohmann::json::array({8, 8183}));
}

TEST_CASE("coverage --arch: every head's phases") {
  const ArchFiles files;
  const auto doc = run_json("coverage --arch " + files.offsets);
  const auto& heads = doc["architecture"]["heads"];
  REQUIRE(heads.size() == 4);
  // "last" with offset o covers phase (7 + o) mod 8.
  for (int h = 0; h < 4; ++h) {
    const auto& phases = heads[static_cast<std::size_t>(h)]["phases"];
    CHECK(phases[static_cast<std::size_t>((7 + 2 * h) % 8)]["coverage"] == 1.0);
  }
  CHECK(doc["kv_cost"]["entries_per_token"] == 0.5);
  // V4's one cache read by 64 query heads: one table, not 64 alike.
  const auto table = run_cli("coverage --arch v4-csa");
  CHECK(table.status == 0);
  CHECK(table.out.find("1 layer, 1 head read by 64 query heads, kv cost 0.2500") !=
        std::string::npos);
  CHECK(table.out.find("layer 1, head 1: W=8 S=4 offset 0, gate channels:onehot:7=0.033013|"
                       "uniform=0.966987, split rho 0, read by 64 query heads") !=
        std::string::npos);
  CHECK(table.out.find("head 2") == std::string::npos);
  // The JSON too: the cache's first query head carries the coverage, the other 63 name theirs.
  const auto v4 = run_json("coverage --arch v4-csa");
  const auto& caches = v4["architecture"]["heads"];
  REQUIRE(caches.size() == 64);
  CHECK(caches[0]["phases"].size() == 4);
  CHECK(caches[0]["gate_weights"].size() == 8);
  CHECK_FALSE(caches[1].contains("phases"));
  CHECK_FALSE(caches[63].contains("gate_weights"));
  CHECK(caches[63]["query_head"] == 64);
}

TEST_CASE("sweep over architecture files: one cell each, the architecture in results.csv") {
  const ArchFiles files;
  const TempDir out("arch-sweep");
  const auto grid = out / "grid.toml";
  std::ofstream(grid) << "command = \"niah\"\n[options]\narch = [\"" << files.base << "\", \""
                      << files.coprime << "\"]\nengine = \"analytic\"\ncontext = 8192\n";
  const auto result = run_cli("sweep " + grid.string() + " --out " + (out / "run").string());
  REQUIRE(result.status == 0);
  const auto csv = read_text(out / "run" / "results.csv");
  CHECK(csv.find("architecture_name") != std::string::npos);
  CHECK(csv.find("kv_cost_entries_per_token") != std::string::npos);
  CHECK(csv.find(",coprime,") != std::string::npos);
}

TEST_CASE("architecture input refused: exact message, exit status 2, no output file") {
  const ArchFiles files;
  const auto bad = files.path("bad.toml",
                              "[[layer]]\nwindow = 8\nstride = 4\ngate = \"last\"\n"
                              "[[layer]]\nwindow = 8\nstride = 4\ngate = \"last\"\n"
                              "heads = [{}, {}, { window = 0 }]\n");
  const std::vector<phasesim::test::BadInput> niah = {
      {"--arch " + bad, "invalid " + bad + ": layer 2, head 3: window 0 (must be at least 1)"},
      {"--arch nowhere.toml",
       "invalid --arch nowhere.toml (no such file, and no preset of that name: moba, nsa, "
       "nsa-compression, v4-csa, v4-flash, v4-hca, v4-pro, v41-csa, v41-flash)"},
      {"--arch " + files.base + " --window 4",
       "--window excludes --arch (see 'phasesim niah --help')"},
      {"--arch " + files.base + " --knockout 4",
       "invalid --knockout 4 (must be a head index from 0 to 3)"},
      {"--arch " + files.base + " --context 20",
       "invalid --context 20 (must be at least 24 for the heads of " + files.base +
           " and --groups 8)"},
  };
  phasesim::test::check_refused(niah, "niah");
  const std::vector<phasesim::test::BadInput> compare = {
      {files.base + " " + bad,
       "invalid " + bad + ": layer 2, head 3: window 0 (must be at least 1)"},
      {files.base + " --engine full",
       "invalid --engine full without --dim (the full-vector "
       "engine needs --dim D)"},
      {"", "architectures is required (see 'phasesim compare --help')"},
  };
  phasesim::test::check_refused(compare, "compare");
  phasesim::test::check_refused({{"--arch " + files.base + " --gate last",
                                  "--gates excludes --arch (see 'phasesim coverage --help')"}},
                                "coverage");
}

// The whole-model presets (docs/MODEL.md section 11): coverage lists their layers by kind, and
// a stack runs, its window-only layers listed and not run.
TEST_CASE("coverage --arch of a whole model lists its layers by kind") {
  const auto flash = run_cli("coverage --arch v4-flash");
  CHECK(flash.status == 0);
  CHECK(flash.out.find("43 layers") != std::string::npos);
  CHECK(flash.out.find("layers by kind:\n  window-only: 2 (layers 1-2)\n  CSA: 21 (layers 3, 5,") !=
        std::string::npos);
  CHECK(flash.out.find("  HCA: 20 (layers 4, 6,") != std::string::npos);
  CHECK(flash.out.find("layer 1: window-only, the last 128 tokens raw") != std::string::npos);
  const auto v41 = run_json("coverage --arch v41-flash");
  std::map<std::string, int> kinds;
  for (const auto& k : v41["architecture"]["layers_by_kind"]) kinds[k["kind"]] = k["count"];
  CHECK(kinds == std::map<std::string, int>{{"window-only", 2},
                                            {"compressor, ratio 2", 3},
                                            {"shared, ratio 2", 15},
                                            {"compressor, ratio 1", 1},
                                            {"shared, ratio 1", 19}});
  const auto pro = run_cli("coverage --arch v4-pro");
  CHECK(pro.out.find("  HCA: 31 (layers 1-2, 4, 6,") != std::string::npos);
  CHECK(pro.out.find("  CSA: 30 (layers 3, 5,") != std::string::npos);
  const auto run = run_json("niah --arch v41-flash --engine analytic --beta 8 --context 16384");
  CHECK(run["architecture"]["layers"] == 40);
  CHECK(run["kv_cost"]["entries_per_token"] == 0.5 + 0.5 + 0.5 + 1.0);
}

// NSA and MoBA (presets/nsa.toml, moba.toml) read raw blocks (docs/MODEL.md section 10): at
// 128k the analytic engine's exact mean, and the fast engine's within 5 of its standard errors.
TEST_CASE("niah --arch nsa and moba at 128k: raw blocks, analytic and fast agree") {
  const auto nsa = run_cli("coverage --arch nsa");
  CHECK(nsa.out.find("30 layers, 240 heads read by 3840 query heads") != std::string::npos);
  CHECK(nsa.out.find("layers by kind:\n  NSA: 30 (layers 1-30)\n") != std::string::npos);
  CHECK(nsa.out.find("W=64 S=64 offset 0, gate uniform, read by 16 query heads, selected blocks "
                     "read raw") != std::string::npos);
  // A cache alike an earlier one (geometry and coverage) names it: MoBA's 232 caches of 4096
  // phases are one table, and the full-attention layers' 24 another.
  const auto moba = run_json("coverage --arch moba");
  const auto& heads = moba["architecture"]["heads"];
  int tables = 0;
  for (const auto& head : heads) tables += head.contains("phases") ? 1 : 0;
  CHECK(tables == 2);
  CHECK(heads[4]["coverage_as"] == 0);                  // layer 1, head 2 (4 query heads a cache)
  CHECK(heads[31 * 32 + 4]["coverage_as"] == 29 * 32);  // layer 32, head 2: layer 30, head 1
  // MoBA's fast trials cost about 0.1 ms a cache (needle_laws' O(W) slot laws, W = 4096): few.
  for (const auto& [arch, options, trials, layers, kv] :
       {std::tuple{"nsa", " --beta 4 --groups 64 --prompts 8", 512, 30,
                   30 * 4 * (1.0 / 16 + 1 + 1.0 / 64)},
        std::tuple{"moba", " --beta 3.7 --groups 16 --prompts 4", 64, 32,
                   29 * 8 * (1 + 1.0 / 4096) + 3 * 8.0}}) {
    const std::string run = std::string("niah --arch ") + arch + options + " --context 131072";
    const auto exact = run_json(run + " --engine analytic");
    const auto sampled = run_json(run + " --engine fast --seed 3");
    CHECK(exact["architecture"]["layers"] == layers);
    CHECK(exact["kv_cost"]["entries_per_token"].get<double>() == doctest::Approx(kv));
    CHECK(sampled["summary"]["trials"] == trials);
    const double mean = exact["summary"]["mean"];
    CHECK((mean > 0.3 && mean < 0.99));  // a beta where the read is neither sure nor hopeless
    CHECK(std::abs(sampled["summary"]["mean"].get<double>() - mean) <=
          5 * sampled["summary"]["mean_std_error"].get<double>());
  }
}
