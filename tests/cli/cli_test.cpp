// The CLI contract: tables, JSON documents, and one-line errors with exit status 2.
#include <doctest/doctest.h>

#include <filesystem>

#include "support/cli_runner.hpp"

using phasesim::test::run_cli;
using phasesim::test::run_json;

TEST_CASE("every command has --help") {
  for (const char* command :
       {"coverage", "channel", "niah", "gpu-check", "optimize", "phase-diagram", "dynamics",
        "diversity", "theorem", "sweep", "demo"}) {
    const auto result = run_cli(std::string(command) + " --help");
    CHECK(result.status == 0);
    CHECK(result.out.find("--help") != std::string::npos);
  }
  CHECK(run_cli("--help").status == 0);
}

TEST_CASE("coverage JSON carries schema, parameters and per-phase rows") {
  const auto doc = run_json("coverage --window 8 --stride 4 --gate last");
  CHECK(doc["schema"] == "phasesim/1");
  CHECK(doc["command"] == "coverage");
  CHECK(doc["window"] == 8);
  CHECK(doc["stride"] == 4);
  CHECK(doc["gate"] == "last");
  REQUIRE(doc["phases"].size() == 4);
  const auto& phase3 = doc["phases"][3];
  CHECK(phase3["phase"] == 3);
  CHECK(phase3["slots"] == nlohmann::json::array({3, 7}));
  CHECK(phase3["multiplicity"] == 2);
  CHECK(phase3["coverage"] == 1.0);
  CHECK(phase3["best_weight"] == 1.0);
  CHECK(phase3["best_normalized"] == 1.0);
  CHECK(doc["phases"][0]["coverage"] == 0.0);
}

TEST_CASE("coverage table on stdout") {
  const auto result = run_cli("coverage -W 6 -S 4 --gate uniform");
  CHECK(result.status == 0);
  CHECK(result.out.find("best_normalized") != std::string::npos);
  CHECK(result.out.find("0.408248") != std::string::npos);  // 1/sqrt(6)
}

TEST_CASE("coverage --index-gates: what selection sees beside what attention sees") {
  const auto doc = run_json("coverage --gate last --index-gates uniform");
  CHECK(doc["index_gate"] == "uniform");
  REQUIRE(doc["index_phases"].size() == 4);
  CHECK(doc["index_phases"][0]["coverage"] == 0.25);
  CHECK(doc["phases"][0]["coverage"] == 0.0);
  const auto table = run_cli("coverage --gate last --index-gates uniform");
  CHECK(table.out.find("stage 1 (selection), index gate uniform:") != std::string::npos);
  CHECK(!run_json("coverage --gate last").contains("index_phases"));
  // A preset's layer with an indexer (v4-csa's, of the compressor's gate) shows its phases; one
  // without (v4-hca) does not.
  CHECK(run_json("coverage --arch v4-csa")["architecture"]["heads"][0].contains("index_phases"));
  CHECK(!run_json("coverage --arch v4-hca")["architecture"]["heads"][0].contains("index_phases"));
}

TEST_CASE("channel JSON: p_success and chance") {
  const auto doc = run_json("channel --beta 5 --entries 32768 --u 0.7,0.7");
  CHECK(doc["p_success"].get<double>() == doctest::Approx(0.35895019215079185).epsilon(1e-9));
  CHECK(doc["chance"].get<double>() == doctest::Approx(2.0 / 32768));
  CHECK(doc["u"] == nlohmann::json::array({0.7, 0.7}));
  CHECK(doc["entries"] == 32768);
  CHECK(doc["beta"] == 5.0);
}

TEST_CASE("--json writes a file and nothing to it on bad input") {
  const phasesim::test::TempDir dir("json");
  const auto good = dir / "good.json";
  CHECK(run_cli("channel --u 1 --json " + good.string()).status == 0);
  CHECK(nlohmann::json::parse(phasesim::test::read_text(good))["command"] == "channel");

  const auto bad = dir / "bad.json";
  CHECK(run_cli("channel --u 2 --json " + bad.string()).status == 2);
  CHECK(!std::filesystem::exists(bad));
  CHECK(std::distance(std::filesystem::directory_iterator(dir.path()),
                      std::filesystem::directory_iterator()) == 1);  // no temporary left
}

TEST_CASE("bad input: one line naming the problem, exit status 2, no output file") {
  const std::vector<phasesim::test::BadInput> cases = {
      {"coverage --window 0", "phasesim coverage: invalid --window 0 (must be at least 1)"},
      {"coverage --stride 0", "phasesim coverage: invalid --stride 0 (must be at least 1)"},
      {"coverage --gate weights:1,2",
       "phasesim coverage: invalid gate 'weights:1,2' (has 2 values, the window needs 8)"},
      {"coverage -W 2 --gate weights:1,-2",
       "phasesim coverage: invalid gate 'weights:1,-2' (weights must be finite and >= 0)"},
      {"coverage -W 2 --gate weights:1,nan",
       "phasesim coverage: invalid gate 'weights:1,nan' (weights must be finite and >= 0)"},
      {"coverage -W 2 --gate weights:0,0",
       "phasesim coverage: invalid gate 'weights:0,0' (weights must not all be zero)"},
      {"channel --u 1.5", "phasesim channel: invalid --u 1.5 (each must be in [0, 1])"},
      {"channel --u -0.1", "phasesim channel: invalid --u -0.1 (each must be in [0, 1])"},
      {"channel --beta -1", "phasesim channel: invalid --beta -1 (must be finite and >= 0)"},
      {"channel --beta nan", "phasesim channel: invalid --beta nan (must be finite and >= 0)"},
      {"channel --entries 1 --u 0.5,0.5",
       "phasesim channel: invalid --entries 1 (must be at least the number of needle "
       "entries, 2)"},
      {"coverage --bogus 3",
       "phasesim coverage: unknown option --bogus (see 'phasesim coverage --help' for its "
       "options)"},
      {"frobnicate",
       "phasesim: unknown command 'frobnicate' (commands: coverage, channel, niah, gpu-check, "
       "precision-check, compare, frontier, optimize, phase-diagram, dynamics, diversity, "
       "theorem, train, sweep, demo, diagnose, inspect)"},
  };
  phasesim::test::check_refused(cases);
}
