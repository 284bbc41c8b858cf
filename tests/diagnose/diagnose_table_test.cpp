// diagnose's tables: CSV in both forms, niah JSON, and every bad table refused with the
// line that is wrong, in the library and from the command line (exit 2, nothing written).
#include <doctest/doctest.h>

#include <fstream>

#include "phasesim/core/error.hpp"
#include "phasesim/diagnose/table.hpp"
#include "support/cli_runner.hpp"

using namespace phasesim;
using namespace phasesim::diagnose;

using phasesim::InputError;
using phasesim::diagnose::CountTable;
using phasesim::diagnose::parse_csv_table;
using phasesim::diagnose::parse_niah_table;
using phasesim::test::BadInput;
using phasesim::test::check_refused;
using phasesim::test::TempDir;

namespace {

void write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

}  // namespace

TEST_CASE("diagnose table: CSV of successes, any column order, comments and blank lines") {
  const auto table = parse_csv_table(
      "# a V4-like table\ntrials,group,successes\n256,1,80\n\n256,0,179\n", "t.csv");
  REQUIRE(table.size() == 2);
  CHECK(table.format == TableFormat::csv_successes);
  CHECK(table.groups[0].group == 0);
  CHECK(table.groups[0].successes == 179);
  CHECK(table.groups[1].successes == 80);
  CHECK(table.trials() == 512);
  CHECK(table.successes() == 259);
  CHECK(!table.architecture.stride);
}

TEST_CASE("diagnose table: accuracies become the nearest whole number of successes") {
  // The paper's 69.9% of 256 prompts is 178.9 successes: 179.
  const auto table = parse_csv_table("group,accuracy,trials\n0,0.699,256\n1,0.297,256\n", "t.csv");
  CHECK(table.format == TableFormat::csv_accuracy);
  CHECK(table.groups[0].successes == 179);
  CHECK(table.groups[1].successes == 76);
}

TEST_CASE("diagnose table: a niah JSON gives its counts and its architecture") {
  const auto text = phasesim::test::read_text(std::string(PHASESIM_SOURCE_DIR) +
                                              "/experiments/v4-calibration/expected/v4_fast.json");
  const CountTable table = parse_niah_table(text, "v4.json");
  REQUIRE(table.size() == 8);
  CHECK(table.format == TableFormat::niah_json);
  CHECK(table.groups[7].successes == 179);
  CHECK(table.groups[7].trials == 256);
  CHECK(table.architecture.window == 8);
  CHECK(table.architecture.stride == 4);
  CHECK(table.architecture.context == 131072);
  CHECK(table.architecture.heads == 1);
}

TEST_CASE("diagnose table: bad tables name the line and what is wrong") {
  const std::string header = "group,successes,trials\n";
  struct Case {
    std::string text;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"",
       "t.csv: empty (expected a header group,successes,trials or group,accuracy,trials and "
       "one row per group)"},
      {"group,hits,trials\n0,1,2\n",
       "t.csv line 1: the header must name the columns group,successes,trials or "
       "group,accuracy,trials (got 'group,hits,trials')"},
      {header + "0,300,256\n1,3,256\n", "t.csv line 2: successes 300 above trials 256"},
      {header + "0,3,256\n1,-3,256\n", "t.csv line 3: successes -3 is negative"},
      {header + "0,3,256\n1,abc,256\n", "t.csv line 3: non-numeric successes 'abc'"},
      {header + "0,3,256\n1,nan,256\n", "t.csv line 3: non-numeric successes 'nan'"},
      {header + "0,3,256\n1,2.5,256\n", "t.csv line 3: successes 2.5 is not a whole number"},
      {header + "0,3,0\n1,2,256\n", "t.csv line 2: trials 0 (must be from 1 to 1000000000)"},
      {header + "-1,3,256\n1,2,256\n", "t.csv line 2: group -1 is negative"},
      {header + "0,3,256\n1,2\n", "t.csv line 3: 2 fields (expected 3, as in the header)"},
      {header + "0,3,256\n", "t.csv: fewer than two groups (a table needs at least two, 1 given)"},
      {header + "0,3,256\n2,3,256\n",
       "t.csv: missing group 1 (groups must run from 0 to 2, each once)"},
      {header + "0,3,256\n1,3,256\n0,4,256\n", "t.csv line 4: duplicate group 0 (first at line 2)"},
      {"group,accuracy,trials\n0,1.2,256\n1,0.5,256\n",
       "t.csv line 2: accuracy 1.2 outside [0, 1]"},
      {"group,accuracy,trials\n0,0.5,256\n1,-0.1,256\n",
       "t.csv line 3: accuracy -0.1 outside [0, 1]"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    CHECK_THROWS_WITH_AS(parse_csv_table(c.text, "t.csv"), c.message.c_str(), InputError);
  }
}

TEST_CASE("diagnose table: bad niah JSON documents") {
  CHECK_THROWS_WITH_AS(parse_niah_table("{\"command\": \"channel\"}", "t.json"),
                       "t.json: not a phasesim niah result (expected \"command\": \"niah\" and a "
                       "list of groups; other tables go in CSV: group,successes,trials or "
                       "group,accuracy,trials)",
                       InputError);
  CHECK_THROWS_WITH_AS(
      parse_niah_table(R"({"command": "niah", "groups": [{"group": 0, "accuracy": 0.5,
                          "successes": null, "trials": null}]})",
                       "t.json"),
      "t.json groups[0]: no trial counts (an analytic niah result holds exact probabilities: run "
      "niah with a Monte Carlo engine)",
      InputError);
  CHECK_THROWS_WITH_AS(
      parse_niah_table(R"({"command": "niah", "groups": [{"group": 0, "successes": 9,
                          "trials": 8}, {"group": 1, "successes": 1, "trials": 8}]})",
                       "t.json"),
      "t.json groups[0]: successes 9 above trials 8", InputError);
}

TEST_CASE("diagnose CLI: bad tables and options exit 2 with one line and write nothing") {
  const TempDir dir("diagnose-bad");
  const auto good = (dir / "good.csv").string();
  write(good, "group,successes,trials\n0,10,20\n1,5,20\n");
  write(dir / "above.csv", "group,successes,trials\n0,30,20\n1,5,20\n");
  write(dir / "missing.csv", "group,successes,trials\n0,3,20\n2,5,20\n");
  write(dir / "one.csv", "group,successes,trials\n0,3,20\n");
  write(dir / "text.csv", "group,successes,trials\n0,3,20\n1,x,20\n");
  const auto file = [&](const std::string& name) { return (dir / name).string(); };
  check_refused(
      {
          {file("above.csv"), file("above.csv") + " line 2: successes 30 above trials 20"},
          {file("missing.csv"),
           file("missing.csv") + ": missing group 1 (groups must run from 0 to 2, each once)"},
          {file("one.csv"),
           file("one.csv") + ": fewer than two groups (a table needs at least two, 1 given)"},
          {file("text.csv"), file("text.csv") + " line 3: non-numeric successes 'x'"},
          {file("none.csv"), "cannot read table '" + file("none.csv") + "' (no such file)"},
          {good + " --replicates 5", "invalid --replicates 5 (must be from 99 to 1000000)"},
          {good + " --heads 0", "invalid --heads 0 (must be from 1 to 256)"},
          {good + " --stride 0", "invalid --stride 0 (must be from 1 to 1048576)"},
          {good + " --stride 4 --context 7",
           "invalid --context 7 (must be at least 8 tokens: two entries of the stride, or of "
           "the group count without one)"},
          {good + " --threads -1",
           "invalid --threads -1 (must be in [0, 1024]; 0 uses the OpenMP default)"},
          {good + " --top-k 0", "invalid --top-k 0 (must be at least 1)"},
          {good + " --sliding-window -1", "invalid --sliding-window -1 (must be at least 0)"},
          {good + " --needle-tokens 3 --window 2 --stride 2",
           "invalid --needle-tokens 3 (diagnose fits needles of 1 or 2 tokens, as niah --engine "
           "analytic computes them; niah --engine fast computes tables of longer needles)"},
          {good + " --needle-tokens 2",
           "invalid --needle-tokens 2 without --window and --stride (where a needle's two tokens "
           "fall is the geometry's: give both, or a niah JSON that has them)"},
          {good + " --needle-tokens 2 --window 16 --stride 4 --top-k 512",
           "invalid --needle-tokens 2 for this architecture (the fit would take about 11.7 h on "
           "one core: it tabulates 4 phases' weights two at a time; allowed: up to 4 h: fewer "
           "phases carrying weight, or fewer entries holding a needle)"},
      },
      "diagnose");
  // The output folder is checked before the work starts.
  const auto result =
      phasesim::test::run_cli("diagnose " + good + " --json " + file("no/such/dir/out.json"));
  CHECK(result.status == 2);
  CHECK(result.err == "phasesim diagnose: cannot write '" + file("no/such/dir/out.json") +
                          "' (No such file or directory)\n");
  CHECK(result.out.empty());
}
