// Issue 26, second pass: a stray word names the option it belongs to, --help wins over the
// values beside it, one count is singular everywhere, and diagnose warns when the fitted
// model cannot have made the table.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "support/cli_runner.hpp"

using phasesim::test::check_refused;
using phasesim::test::run_cli;
using phasesim::test::TempDir;

namespace {

// "1 entries", "1 heads", ...: a count of one with a plural noun.
bool has_plural_one(const std::string& text) {
  static const std::regex plural_one(
      "(^|[^0-9.])1 (entries|heads|layers|cells|runs|prompts|trials|groups|phases|steps|draws|"
      "architectures|values|slots|gates|seeds|ascents|threads|weights)\\b");
  return std::regex_search(text, plural_one);
}

}  // namespace

TEST_CASE("a word CLI11 cannot place names the option it belongs to") {
  check_refused({
      {"coverage --window 8 8",
       "phasesim coverage: unexpected '8' after --window 8 (--window takes one value: quote a "
       "value that holds spaces or ';', as in --window '8 8')"},
      {"coverage --gates last first",
       "phasesim coverage: unexpected 'first' after --gates last (--gates takes one value: "
       "quote a value that holds spaces or ';', as in --gates 'last first')"},
      {"niah -W8 9",
       "phasesim niah: unexpected '9' after --window 8 (--window takes one value: quote a value "
       "that holds spaces or ';', as in --window '8 9')"},
      {"niah --progress 5",
       "phasesim niah: unexpected '5' after --progress (a flag: it takes no value; write "
       "--progress alone)"},
      {"niah prompts 8",
       "phasesim niah: unexpected 'prompts' (the option is --prompts: options start with --)"},
      {"niah last",
       "phasesim niah: unexpected 'last' ('phasesim niah' takes no value without its option: "
       "give values after their options, as in --name VALUE; see 'phasesim niah --help')"},
      {"diagnose a.csv b.csv",
       "phasesim diagnose: unexpected 'b.csv' ('phasesim diagnose' takes only table without an "
       "option: give values after their options, as in --name VALUE; see 'phasesim diagnose "
       "--help')"},
      {"theorem diversity --frob 2",
       "phasesim theorem diversity: unknown option --frob (see 'phasesim theorem diversity "
       "--help' for its options)"},
      // An option and its other name given together: the two names, once.
      {"coverage --gate last --gates x",
       "phasesim coverage: --gates is given 2 times (it takes one value: give it once; --gate is "
       "another name for it)"},
      {"niah --prompts 4 --prompts 5",
       "phasesim niah: --prompts is given 2 times (it takes one value: give it once)"},
  });
}

TEST_CASE("--help prints help before any value is checked; misplaced words say what is wrong") {
  for (const auto* line : {"niah --help --prompts abc", "niah --prompts abc --help",
                           "theorem lockin --inits -5 -h", "--help niah"}) {
    CAPTURE(line);
    const auto result = run_cli(line);
    CHECK(result.status == 0);
    CHECK(result.err.empty());
    CHECK(result.out.find("Options:") != std::string::npos);
  }
  CHECK(run_cli("niah --help --prompts abc").out.starts_with("Per-phase needle-in-a-haystack"));
  const TempDir dir("sweepdir");
  const auto folder = dir.path().string();
  check_refused({
      {"--threads 2 niah",
       "phasesim: option --threads comes before the command: options go after it, as in "
       "'phasesim niah --threads ...'"},
  });
  const auto sweep = run_cli("sweep " + folder + " --out " + (dir / "d").string());
  CHECK(sweep.status == 2);
  CHECK(sweep.err ==
        "phasesim sweep: cannot read sweep file '" + folder + "' (a directory, not a file)\n");
}

TEST_CASE("a word that is not UTF-8 is refused by name, its bad bytes shown as U+FFFD") {
  // The fuzzer's find (fuzz_cli_args): nlohmann's encoder threw on the byte 0xBE when the
  // given options were written out, an internal error with exit status 1.
  check_refused({
      {"compare v4-csa \"$(printf '\\276sa')\" --beta 4.15",
       "phasesim compare: invalid architectures '\xEF\xBF\xBDsa' (not UTF-8 text: names and paths "
       "must be UTF-8)"},
      {"niah --arch \"$(printf 'x\\276')\"",
       "phasesim niah: invalid --arch 'x\xEF\xBF\xBD' (not UTF-8 text: names and paths must be "
       "UTF-8)"},
  });
}

TEST_CASE("a count of one takes the singular noun in tables and messages") {
  const auto niah = run_cli("niah --prompts 1 --groups 4 --context 512 --heads 1");
  REQUIRE(niah.status == 0);
  CHECK(niah.out.find("4 trials (4 groups x 1 prompt)") != std::string::npos);
  CHECK(niah.out.find("1 head") != std::string::npos);
  const auto dynamics = run_cli("dynamics --inits 1 --steps 1");
  REQUIRE(dynamics.status == 0);
  CHECK(dynamics.out.find(", 1 step\n") != std::string::npos);
  const auto channel = run_cli("channel --u 1 --entries 4");
  REQUIRE(channel.status == 0);
  CHECK(channel.out.starts_with("needle with 1 entry among 4"));
  const auto gate = run_cli("coverage --gates weights:1");
  CHECK(gate.err ==
        "phasesim coverage: invalid gate 'weights:1' (has 1 value, the window needs 8)\n");
  for (const auto* line : {"niah --prompts 1 --groups 4 --context 512",
                           "dynamics --inits 1 "
                           "--steps 1",
                           "channel --u 1 --entries 4", "coverage --gates weights:1",
                           "train --heads 1 --steps 1 --batch 1 --context 64 --prompts 1"}) {
    CAPTURE(line);
    const auto result = run_cli(line);
    CHECK(!has_plural_one(result.out));
    CHECK(!has_plural_one(result.err));
  }
  // One sweep cell.
  const TempDir dir("onecell");
  const auto grid = (dir / "g.toml").string();
  std::ofstream(grid) << "command = \"coverage\"\n[options]\nwindow = [8]\n";
  const auto sweep = run_cli("sweep " + grid + " --out " + (dir / "o").string());
  REQUIRE(sweep.status == 0);
  CHECK(sweep.out.find("1 cell (1 run, 0 resumed)") != std::string::npos);
}

TEST_CASE("diagnose warns when the fit's deviance says the model cannot have made the table") {
  const TempDir dir("misfit");
  // Made by the model (W = 8, S = 4, one head): no warning, and the field says so.
  const auto made = (dir / "made.json").string();
  REQUIRE(run_cli("niah --window 8 --stride 4 --gates random:3:2 --beta 9 --groups 8 --prompts "
                  "256 --seed 5 --json " +
                  made)
              .status == 0);
  const auto fits = run_cli("diagnose --json - " + made);
  REQUIRE(fits.status == 0);
  CHECK(fits.err.empty());
  const auto good = nlohmann::json::parse(fits.out);
  CHECK(good["warnings"].empty());
  REQUIRE(!good["fits"].empty());
  for (const auto& f : good["fits"]) {
    CHECK(f["misfit"] == false);
    CHECK(f["table_deviance_df"] == 4);  // 8 groups, 4 phases, saturated fit
    CHECK(f["table_deviance_p"].get<double>() > 0.001);
  }
  // Period 3 under S = 4: the groups pooled into a phase alternate 0.95 / 0.05.
  const auto csv = (dir / "period3.csv").string();
  {
    std::ofstream table(csv);
    table << "group,successes,trials\n";
    for (int g = 0; g < 12; ++g) table << g << "," << (g % 3 == 0 ? 243 : 13) << ",256\n";
  }
  const auto misfit = run_cli("diagnose --stride 4 --json - " + csv);
  REQUIRE(misfit.status == 0);
  CHECK(misfit.err.starts_with(
      "phasesim diagnose: warning: the model does not fit the table: deviance "));
  // Then the stride against the detected period (issue 40): 3 does not divide 4.
  const std::string stride_line =
      "phasesim diagnose: warning: --stride 4 contradicts the table: over 12 groups it predicts "
      "period 4, yet the groups show period 3; the phases below pool by the stride: check "
      "--stride and the order of the groups\n";
  CHECK(misfit.err.ends_with(
      " < 0.001 (the groups pooled into one phase differ: check --stride and the group order); "
      "read the fitted beta and weights as rough\n" +
      stride_line));
  CHECK(std::count(misfit.err.begin(), misfit.err.end(), '\n') == 2);
  const auto bad = nlohmann::json::parse(misfit.out);
  REQUIRE(bad["warnings"].size() == 2);
  CHECK("phasesim diagnose: warning: " + bad["warnings"][0].get<std::string>() + "\n" +
            stride_line ==
        misfit.err);
  CHECK(bad["fits"][0]["misfit"] == true);
  CHECK(bad["fits"][0]["table_deviance_df"] == 8);
  CHECK(bad["fits"][0]["table_deviance_p"].get<double>() < 1e-10);
  // The table still prints on stdout, with the warning on stderr only.
  const auto text = run_cli("diagnose --stride 4 " + csv);
  CHECK(text.status == 0);
  CHECK(text.err == misfit.err);
}
