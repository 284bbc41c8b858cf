// phasesim diagnose from the command line: the JSON answers the four questions, the text
// says them in words, and the result does not depend on the threads.
#include <doctest/doctest.h>

#include <fstream>

#include "support/cli_runner.hpp"
#include "support/threads.hpp"

using phasesim::test::read_text;
using phasesim::test::run_cli;
using phasesim::test::run_json;
using phasesim::test::TempDir;

namespace {

// The V4-like table of experiments/v4-calibration (seed 4) as a user's CSV.
std::string v4_csv(const TempDir& dir) {
  const auto path = (dir / "v4.csv").string();
  std::ofstream(path) << "group,successes,trials\n0,68,256\n1,76,256\n2,64,256\n3,171,256\n"
                         "4,68,256\n5,81,256\n6,69,256\n7,179,256\n";
  return path;
}

}  // namespace

TEST_CASE("diagnose JSON: parameters, the period, the phases, the fits and the power") {
  const TempDir dir("diagnose-json");
  const auto doc = run_json("diagnose " + v4_csv(dir) + " --window 8 --stride 4 --replicates 999");
  CHECK(doc["schema"] == "phasesim/1");
  CHECK(doc["command"] == "diagnose");
  CHECK(doc["table_format"] == "csv-successes");
  CHECK(doc["window"] == 8);
  CHECK(doc["window_source"] == "given");
  CHECK(doc["context"] == 131072);
  CHECK(doc["context_source"] == "assumed");
  CHECK(doc["heads"] == 1);
  CHECK(doc["heads_source"] == "assumed");
  CHECK(doc["replicates"] == 999);
  CHECK(doc["seed"] == 1);
  CHECK(doc["groups"].size() == 8);
  CHECK(doc["groups"][7]["successes"] == 179);
  // Period: 2, 4 and 8 are the candidates; 4 beats flat and explains the table.
  const auto& period = doc["period"];
  CHECK(period["candidates"].size() == 3);
  CHECK(period["period"] == 4);
  CHECK(period["architecture_period"] == 4);
  CHECK(period["candidates"][1]["p_value"] == doctest::Approx(1.0 / 1000));
  CHECK(period["candidates"][1]["fits"] == true);
  CHECK(period["candidates"][0]["fits"] == false);  // period 2 leaves phase 3 unexplained
  // Phases: 512 trials each, none blind, phase 3 the best.
  const auto& phases = doc["phases"];
  CHECK(phases["count"] == 4);
  CHECK(phases["entries"] == 32768);
  CHECK(phases["phases"][3]["successes"] == 350);
  CHECK(phases["phases"][3]["trials"] == 512);
  CHECK(phases["blind"] == 0);
  CHECK(phases["best"]["phase"] == 3);
  CHECK(phases["worst"]["phase"] == 2);
  // Two fits (W > S): both reproduce the table, with different betas.
  REQUIRE(doc["fits"].size() == 2);
  CHECK(doc["fits"][0]["assumption"] == "one slot per phase");
  CHECK(doc["fits"][1]["assumption"] == "spread over the phase's slots");
  CHECK(doc["fits"][0]["deviance"].get<double>() < 1e-6);
  // The table was drawn with beta 9.5135 and a gate that spreads phases 0-2 evenly over their
  // slots and phase 3 unevenly: at 256 prompts the spread fit's bias (+0.13, the same size
  // as its half-width) leaves the truth inside, with this seed (docs/DIAGNOSE.md).
  CHECK(doc["fits"][1]["beta_low"].get<double>() < 9.5135);
  CHECK(doc["fits"][1]["beta_high"].get<double>() > 9.5135);
  CHECK(doc["fits"][1]["phases"][3]["weight"].get<double>() >
        doc["fits"][1]["phases"][0]["weight"].get<double>());
  const auto& power = doc["power"];
  CHECK(power["period"] == 4);
  CHECK(power["prompts_per_group"].get<int>() < power["half_gap_prompts_per_group"].get<int>());
  CHECK(doc["assumptions"].size() == 4);
  // Each W > S fit's interval is conditional on its assumption, and the text says so.
  CHECK(doc["assumptions"][3].get<std::string>().find(
            "each interval holds only if its assumption does") != std::string::npos);
}

TEST_CASE("diagnose text: the verdict, the phases, each fit and the assumptions in words") {
  const TempDir dir("diagnose-text");
  const auto result = run_cli("diagnose " + v4_csv(dir) + " --replicates 999");
  CHECK(result.status == 0);
  CHECK(result.out.find("period 4: accuracy depends on the group mod 4") != std::string::npos);
  CHECK(result.out.find("0 of 4 blind") != std::string::npos);
  CHECK(result.out.find("Fit: one head, one slot per phase") != std::string::npos);
  CHECK(result.out.find("stride taken as the detected period 4") != std::string::npos);
}

TEST_CASE("diagnose: any --threads writes the same JSON" * doctest::test_suite("bitexact")) {
  const TempDir dir("diagnose-threads");
  const auto table = v4_csv(dir);
  phasesim::test::check_thread_invariance([&](const phasesim::Parallel& p) {
    return phasesim::test::json_on_threads("diagnose " + table, p.threads);
  });
}

// The read path's fit computes each success curve's nodes over the threads (sim/diagnose/
// curve.cpp): W = S = 4, the top 4 of 16 entries and an 8-token window, about 2 s a run.
TEST_CASE("diagnose under the read path: any --threads writes the same JSON" *
          doctest::test_suite("bitexact")) {
  const TempDir dir("diagnose-read-path-threads");
  const auto command = "diagnose " + v4_csv(dir) +
                       " --window 4 --stride 4 --context 64 --top-k 4 --sliding-window 8 "
                       "--replicates 99";
  phasesim::test::check_thread_invariance([&](const phasesim::Parallel& p) {
    return phasesim::test::json_on_threads(command, p.threads);
  });
}

// 2-token needles (docs/DIAGNOSE.md): W = 1, S = 2 puts each phase's needle in one entry, so
// the fit is of beta alone (half a second), and with several heads of beta and where they sit;
// its accuracies are niah's analytic engine's at the fitted beta.
TEST_CASE("diagnose --needle-tokens 2: the fits are the analytic engine's, one head or several") {
  const TempDir dir("diagnose-two-tokens");
  const auto path = (dir / "t.csv").string();
  std::ofstream(path) << "group,successes,trials\n0,40,64\n1,30,64\n";
  const std::string geometry = " --window 1 --stride 2 --context 64 --needle-tokens 2";
  // The fit of `heads` heads, its accuracies checked against the engine's at its beta.
  const auto fit_of = [&](int heads) {
    const auto heads_option = " --heads " + std::to_string(heads);
    const auto doc = run_json("diagnose " + path + geometry + heads_option + " --replicates 99");
    CHECK(doc["needle_tokens"] == 2);
    REQUIRE(doc["fits"].size() == 1);
    const auto fit = doc["fits"][0];
    const auto niah = run_json("niah --engine analytic --groups 2" + geometry + heads_option +
                               " --beta " + std::to_string(fit["beta"].get<double>()));
    for (int p = 0; p < 2; ++p) {
      CHECK(fit["phases"][p]["accuracy"].get<double>() ==
            doctest::Approx(niah["groups"][p]["accuracy"].get<double>()).epsilon(1e-5));
    }
    return fit;
  };
  const auto one = fit_of(1);
  CHECK(one["assumption"] == "2-token needles, one head");
  CHECK(one["phases"][0]["weight_low"].is_null());  // one phase carries weight: no interval
  // Four one-hot heads: W = 1 gives them one phase to sit on (its one slot ends the block:
  // phase 1), and they read both phases' needles as the engine's four heads do.
  const auto four = fit_of(4);
  CHECK(four["assumption"] == "2-token needles, one-hot heads");
  CHECK(four["phases"][0]["heads"] == 0);
  CHECK(four["phases"][1]["heads"] == 4);
}
