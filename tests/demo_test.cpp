// The main job: `phasesim demo` tells the story and leaves its data and figures behind.
#include <doctest/doctest.h>

#include <filesystem>

#include "cli_runner.hpp"

namespace fs = std::filesystem;
using phasesim::test::run_cli;

TEST_CASE("demo prints every step and writes the JSON and figures of each") {
  const phasesim::test::TempDir dir("demo");
  const auto out = dir / "tour";
  const auto result = run_cli("demo --out " + out.string());
  REQUIRE(result.status == 0);
  for (const char* text : {"1. Geometry", "2. Per-group retrieval", "3a. T1", "3b. T2", "3c. T3",
                           "4a. W8/S8", "4b. Full attention", "figures: 4 of 4 written"}) {
    CHECK(result.out.find(text) != std::string::npos);
  }
  CHECK(result.out.find("verdict:    agree") != std::string::npos);
  CHECK(result.out.find("DISAGREE") == std::string::npos);
  for (const char* file :
       {"coverage.json", "niah_v4.json", "theorem_concentration.json", "theorem_lockin.json",
        "theorem_diversity.json", "niah_w8s8.json", "niah_full.json", "figures/v4_bars.png",
        "figures/phase_clock.svg", "figures/w8s8_vs_full.png", "figures/w8s8_gates.png"}) {
    CHECK_MESSAGE(fs::exists(out / file), file);
  }
  // The V4-like step reproduces the published shape: best near 0.70, worst near 0.30.
  const auto v4 = nlohmann::json::parse(phasesim::test::read_text(out / "niah_v4.json"));
  CHECK(v4["summary"]["best"].get<double>() > 0.6);
  CHECK(v4["summary"]["worst"].get<double>() < 0.35);
}

TEST_CASE("demo into a path that cannot be a folder: one line, exit status 2") {
  const phasesim::test::TempDir dir("demobad");
  std::ofstream(dir / "file") << "x";
  const auto result = run_cli("demo --no-figures --out " + (dir / "file").string() + "/sub");
  CHECK(result.status == 2);
  CHECK(result.err == "phasesim demo: invalid --out " + (dir / "file").string() +
                          "/sub (cannot create that directory)\n");
}
