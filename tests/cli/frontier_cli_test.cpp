// phasesim frontier from the command line: the document, the files it writes and the rows
// they reproduce, the fast engine's rows, bad input.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "phasesim/niah/architecture.hpp"
#include "support/cli_runner.hpp"

using phasesim::test::check_refused;
using phasesim::test::read_text;
using phasesim::test::run_cli;
using phasesim::test::run_json;
using phasesim::test::TempDir;

namespace {

const std::string kSmall =
    "frontier --context 8192 --beta 9 --ratios 4 --overlaps 1 --gate-families uniform last "
    "--caches 1,2 --top-k 0 --sliding-windows 0 --no-presets";

// The `reproduces:` line of a design's file, its file's name made the path, as arguments.
std::string reproducing_arguments(const std::filesystem::path& file) {
  const auto text = read_text(file);
  const std::string key = "reproduces: phasesim ";
  const auto start = text.find(key);
  REQUIRE(start != std::string::npos);
  auto line = text.substr(start + key.size(), text.find('\n', start) - start - key.size());
  const auto name = file.filename().string();
  line.replace(line.find(name), name.size(), file.string());
  return line;
}

}  // namespace

TEST_CASE("frontier CLI: the frontier's files reproduce their rows") {
  const TempDir dir("frontier-files");
  const auto doc = run_json(kSmall + " --out " + (dir / "designs").string());
  CHECK(doc["command"] == "frontier");
  CHECK(doc["space"]["designs"] == 4);
  REQUIRE(doc["rows"].size() == 2);
  REQUIRE(doc["files"].size() == 2);
  for (const auto& row : doc["rows"]) {
    CAPTURE(row["name"]);
    CHECK(row["on_frontier"] == true);
    CHECK(row["exact"] == true);
    const auto file = dir / "designs" / (row["name"].get<std::string>() + ".toml");
    CHECK(read_text(file) == row["architecture"].get<std::string>());
    const auto niah = run_json(reproducing_arguments(file));
    CHECK(niah["summary"]["worst"] == row["worst"]);
    CHECK(niah["summary"]["mean"] == row["mean"]);
    CHECK(niah["kv_cost"]["entries_per_token"] == row["kv_entries_per_token"]);
  }
}

TEST_CASE(
    "frontier CLI: needles of three tokens run on the fast engine, with trials, reproducibly") {
  const TempDir dir("frontier-fast");
  const auto doc = run_json(
      "frontier --context 4096 --beta 5 --ratios 2 --overlaps 1 --gate-families uniform "
      "--top-k 0 --sliding-windows 0 --needle-tokens 3 --prompts 50 --no-presets --out " +
      dir.path().string());
  REQUIRE(doc["rows"].size() == 1);
  const auto& row = doc["rows"][0];
  CHECK(row["engine"] == "fast");
  CHECK(row["exact"] == false);
  CHECK(row["trials"] == 100);
  CHECK(row["worst_std_error"].get<double>() > 0);
  CHECK(doc["warnings"].size() == 1);
  const auto niah =
      run_json(reproducing_arguments(dir / (row["name"].get<std::string>() + ".toml")));
  CHECK(niah["summary"]["worst"] == row["worst"]);
  CHECK(niah["summary"]["mean"] == row["mean"]);
}

TEST_CASE("frontier CLI: the presets are marked against the frontier") {
  const auto doc = run_json(
      "frontier --context 8192 --beta 9 --ratios 4 --overlaps 1 --gate-families uniform "
      "--top-k 0 --sliding-windows 0");
  std::size_t presets = 0;
  for (const auto& row : doc["rows"]) {
    if (row["kind"] != "preset") continue;
    ++presets;
    CHECK((row["on_frontier"] == true) == row["dominated_by"].is_null());
  }
  // Every preset but MoBA, whose blocks of 4096 leave no needle a complete block at 8k: left
  // out, with a warning that says why.
  CHECK(presets == phasesim::niah::architecture_presets().size() - 1);
  CHECK(doc["warnings"].dump().find("preset moba left out: invalid --context 8192") !=
        std::string::npos);
}

TEST_CASE("frontier CLI: bad input, one line and exit 2, nothing written") {
  const TempDir dir("frontier-bad");
  const auto file = phasesim::test::write_file(dir / "file", "x");
  check_refused(
      {{"--ratios 4,x", "invalid --ratios 'x' (must be an integer)"},
       {"--overlaps 0", "invalid --overlaps 0 (must be in [1, 16])"},
       {"--caches 65", "invalid --caches 65 (must be in [1, 64])"},
       {"--weight -0.5", "invalid --weight -0.5 (must be in [0, 1])"},
       {"--gate-families bogus",
        "invalid --gate-families 'bogus' (uniform, last, spread, or a gate spec valid at every "
        "window: invalid gate 'bogus' (use uniform, last, onehot:K, weights:a,b,..., "
        "logits:a,b,..., random:SEED[:SCALE] or channels:SPEC=SHARE|SPEC=SHARE|... (per-channel "
        "groups)))"},
       {"--ratios 4 --overlaps 1,2 --gate-families onehot:5",
        "invalid --gate-families 'onehot:5' (uniform, last, spread, or a gate spec valid at every "
        "window: invalid gate 'onehot:5' (onehot:K needs an integer K in [0, 3]))"},
       {"--out " + file.string(),
        "invalid --out " + file.string() + " (exists and is not a folder)"}},
      "frontier");
}
