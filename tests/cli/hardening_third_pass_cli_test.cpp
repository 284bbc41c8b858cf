// Issue 40, third pass: numbers read one way (decimal, a leading zero refused) in every option,
// file and list; no output over an input; path problems as one line before any work; every
// command sweepable and a resumed sweep that checks its cells; bounded runs; verdicts inside
// their regime only where the claim should hold; diagnose's warnings. Each case stands for a
// class: the checks below run the class over several commands and front doors.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"

using phasesim::test::check_refused;
using phasesim::test::check_refused_as_is;
using phasesim::test::read_text;
using phasesim::test::run_cli;
using phasesim::test::TempDir;
using phasesim::test::write_file;

namespace fs = std::filesystem;

namespace {

const char* kTable = "group,successes,trials\n0,30,100\n1,31,100\n2,29,100\n3,70,100\n";

}  // namespace

TEST_CASE("numbers are decimal everywhere, and a leading zero is refused, never read as octal") {
  check_refused({
      {"niah --prompts 010",
       "phasesim niah: invalid --prompts '010' (a leading zero: numbers are decimal, write 10)"},
      {"niah --seed 010",
       "phasesim niah: invalid --seed '010' (a leading zero: numbers are decimal, write 10)"},
      {"theorem diversity --heads 64,0100",
       "phasesim theorem diversity: invalid --heads '0100' (a leading zero: numbers are decimal, "
       "write 100)"},
      {"channel --beta 04.5",
       "phasesim channel: invalid --beta '04.5' (a leading zero: numbers are decimal, write 4.5)"},
      {"channel --u -00.5",
       "phasesim channel: invalid --u '-00.5' (a leading zero: numbers are decimal, write -0.5)"},
      {"niah --gates onehot:03",
       "phasesim niah: invalid gate 'onehot:03' ('03' has a leading zero: numbers are decimal, "
       "write 3)"},
      {"coverage --gates random:07:0.5",
       "phasesim coverage: invalid gate 'random:07:0.5' ('07' has a leading zero: numbers are "
       "decimal, write 7)"},
      {"niah --heads 2 --combine vote:02",
       "phasesim niah: invalid --combine vote:02 (a leading zero: numbers are decimal, write 2)"},
      {"phase-diagram --beta 4:06:1",
       "phasesim phase-diagram: invalid --beta 4:06:1 ('06' has a leading zero: numbers are "
       "decimal, write 6)"},
  });
  // What stays a number: 0, 0.5, -0, an exponent's zeros.
  CHECK(run_cli("channel --beta 0 --u 0.5,-0,1e-01 --json -").status == 0);
  // Files: a sweep file's values (text or TOML) and a table's cells, the same rule.
  const TempDir dir("zeros");
  const auto text =
      write_file(dir / "text.toml", "command = \"niah\"\n[options]\nprompts = \"08\"\n");
  const auto toml = write_file(dir / "toml.toml", "command = \"niah\"\n[options]\nprompts = 08\n");
  const auto csv = write_file(dir / "t.csv", "group,successes,trials\n0,1,010\n1,2,10\n");
  check_refused_as_is({
      {"sweep " + text.string() + " --out " + (dir / "a").string(),
       "phasesim sweep: invalid sweep cell {prompts=08}: invalid --prompts '08' (a leading zero: "
       "numbers are decimal, write 8)"},
      {"sweep " + toml.string() + " --out " + (dir / "b").string(),
       "phasesim sweep: invalid sweep file " + toml.string() +
           " (line 3: Error while parsing decimal integer: leading zeroes are prohibited)"},
      {"diagnose " + csv.string(),
       "phasesim diagnose: " + csv.string() +
           " line 2: trials '010' has a leading zero: numbers are decimal, write 10"},
  });
}

TEST_CASE("an empty item of a list is refused wherever the list is given") {
  check_refused({
      {"channel --u 0.5,,0.5",
       "phasesim channel: invalid --u '0.5,,0.5' (item 2 is empty: separate the values by single "
       "commas)"},
      {"channel --u 0.5,",
       "phasesim channel: invalid --u '0.5,' (item 2 is empty: separate the values by single "
       "commas)"},
      {"theorem diversity --heads ,64,128",
       "phasesim theorem diversity: invalid --heads ',64,128' (item 1 is empty: separate the "
       "values by single commas)"},
      {"dynamics --content-seed 1,,2",
       "phasesim dynamics: invalid --content-seed '1,,2' (item 2 is empty: separate the values "
       "by single commas)"},
  });
}

TEST_CASE("an output that is an input of the command is refused, and the input kept") {
  const TempDir dir("inputs");
  const auto table = write_file(dir / "t.csv", kTable);
  const auto arch = write_file(
      dir / "a.toml", read_text(fs::path(PHASESIM_SOURCE_DIR) / "presets" / "v4-csa.toml"));
  const auto gates = write_file(dir / "g.json", "[\"last\"]\n");
  fs::create_symlink(table, dir / "link.csv");
  fs::create_hard_link(table, dir / "hard.csv");
  const auto t = table.string(), a = arch.string(), g = gates.string();
  const auto input = [](const std::string& which) {
    return "(the same file as the input " + which +
           ": writing it would destroy the input; give another path)";
  };
  const std::vector<std::pair<std::string, std::string>> cases{
      {"diagnose " + t + " --json " + t,
       "phasesim diagnose: invalid --json " + t + " " + input("table " + t)},
      {"diagnose " + t + " --json " + (dir / "link.csv").string(),
       "phasesim diagnose: invalid --json " + (dir / "link.csv").string() + " " +
           input("table " + t)},
      {"diagnose " + (dir / "hard.csv").string() + " --json " + t,
       "phasesim diagnose: invalid --json " + t + " " +
           input("table " + (dir / "hard.csv").string())},
      {"niah --arch " + a + " --json " + a,
       "phasesim niah: invalid --json " + a + " " + input("--arch " + a)},
      {"compare v4-csa " + a + " --json " + a,
       "phasesim compare: invalid --json " + a + " " + input("architectures " + a)},
      {"niah --gates @" + g + " --json " + g,
       "phasesim niah: invalid --json " + g + " " + input("--gates @" + g)},
      {"train --steps 1 --save-gates " + g + " --json " + g,
       "phasesim train: invalid --json " + g + " (the same file as the output --save-gates " + g +
           ": each output needs its own file; give another path)"},
  };
  for (const auto& [line, message] : cases) {
    const std::string& shown = line;  // clang cannot capture a structured binding (CAPTURE)
    CAPTURE(shown);
    const auto before = read_text(table) + read_text(arch) + read_text(gates);
    const auto result = run_cli(line);
    CHECK(result.status == 2);
    CHECK(result.err == message + "\n");
    CHECK(read_text(table) + read_text(arch) + read_text(gates) == before);
  }
  // Devices are no files to protect: two outputs may both be /dev/null.
  CHECK(run_cli("train --steps 1 --batch 2 --prompts 2 --save-gates /dev/null --json /dev/null")
            .status == 0);
}

TEST_CASE("every path problem is one line and exit status 2, before any work") {
  const TempDir dir("paths");
  const auto file = write_file(dir / "f", "x").string();
  const auto sweep = write_file(dir / "s.toml", "command = \"channel\"\n").string();
  const std::string name(300, 'n');
  const auto long_name = (dir / name).string();
  check_refused_as_is({
      {"niah --json " + long_name,
       "phasesim niah: cannot write '" + long_name + "' (File name too long)"},
      {"niah --arch " + long_name,
       "phasesim niah: cannot read --arch '" + long_name + "' (File name too long)"},
      {"diagnose " + long_name,
       "phasesim diagnose: cannot read table '" + long_name + "' (File name too long)"},
      {"sweep " + sweep + " --out " + long_name + "/x",
       "phasesim sweep: invalid --out " + long_name +
           "/x (cannot create it: a name of 300 bytes, the limit is 255)"},
      {"sweep " + sweep + " --out " + file + "/x", "phasesim sweep: invalid --out " + file +
                                                       "/x (cannot create it: " + file +
                                                       " is not a folder)"},
      {"sweep " + sweep + " --out " + file,
       "phasesim sweep: invalid --out " + file + " (exists and is not a folder)"},
  });
  const auto demo = run_cli("demo --no-figures --out " + long_name);
  CHECK(demo.status == 2);
  CHECK(demo.err == "phasesim demo: invalid --out " + long_name +
                        " (cannot create it: a name of 300 bytes, the limit is 255)\n");
  CHECK(demo.out.empty());
}

TEST_CASE("every command that writes a document sweeps in a fresh folder and resumes") {
  const TempDir dir("every");
  const auto table = write_file(dir / "t.csv", kTable).string();
  const std::vector<std::pair<std::string, std::string>> commands{
      {"channel", "beta = 3.0"},
      {"coverage", "window = 12"},
      {"niah", "prompts = 2\ncontext = 512\nengine = \"analytic\""},
      {"compare", "architectures = [[\"v4-csa\", \"v4-hca\"]]\nengine = \"analytic\""},
      {"precision-check", "prompts = 2\ncontext = 512\ndim = 8"},
      {"optimize", "restarts = 1\nmax_iterations = 3"},
      {"phase-diagram", "beta = \"4\"\nentries = 1024\nrestarts = 1\nmax_iterations = 3"},
      {"dynamics", "steps = 3"},
      {"diversity", "heads = [[4, 8]]"},
      {"theorem concentration", "restarts = 1\nmax_iterations = 3"},
      {"theorem lockin", "steps = 3\ninits = 1\nreweight_steps = 0"},
      {"theorem diversity", "heads = [[64, 128]]"},
      {"train", "steps = 2\nbatch = 2\nprompts = 2\ngroups = 4"},
      {"diagnose", "table = \"" + table + "\"\nreplicates = 99"},
  };
  for (const auto& [command, options] : commands) {
    const std::string& shown = command;  // clang cannot capture a structured binding (CAPTURE)
    CAPTURE(shown);
    const auto file = write_file(dir / "grid.toml",
                                 "command = \"" + command + "\"\n[options]\n" + options + "\n");
    const auto out = (dir / "new" / "folder" / command).string();  // none of it exists
    const auto first = run_cli("sweep " + file.string() + " --out '" + out + "'");
    REQUIRE(first.status == 0);
    CHECK(first.out.find("(1 run, 0 resumed)") != std::string::npos);
    CHECK(read_text(fs::path(out) / "results.csv").starts_with("cell,"));
    const auto again = run_cli("sweep " + file.string() + " --out '" + out + "' --resume");
    CHECK(again.status == 0);
    CHECK(again.out.find("(0 run, 1 resumed)") != std::string::npos);
    CHECK(again.err.find("warning") == std::string::npos);
  }
}

TEST_CASE("--resume reruns a cell file that is not its cell's document, saying which") {
  const TempDir dir("resume");
  const auto file =
      write_file(dir / "grid.toml", "command = \"channel\"\n[options]\nbeta = [3.0, 4.0, 5.0]\n");
  const auto out = dir / "out";
  REQUIRE(run_cli("sweep " + file.string() + " --out " + out.string()).status == 0);
  const auto csv = read_text(out / "results.csv");
  const auto manifest = nlohmann::json::parse(read_text(out / "sweep.json"));
  const auto cell = [&](int i) {
    return out / "cells" / (manifest["cells"][i]["id"].get<std::string>() + ".json");
  };
  const auto id = [&](int i) { return manifest["cells"][i]["id"].get<std::string>(); };
  // Replaced by {}, by another cell's document, by another command's document.
  write_file(cell(0), "{}\n");
  fs::copy_file(cell(2), cell(1), fs::copy_options::overwrite_existing);
  write_file(cell(2), run_cli("coverage --json -").out);
  fs::remove(out / "results.csv");
  const auto again = run_cli("sweep " + file.string() + " --out " + out.string() + " --resume");
  CHECK(again.status == 0);
  CHECK(again.out.find("(3 run, 0 resumed)") != std::string::npos);
  CHECK(again.err.find("phasesim sweep: warning: cell " + id(0) + ": its file cells/" + id(0) +
                       ".json is not a phasesim document of this schema (it runs again)") !=
        std::string::npos);
  CHECK(again.err.find("phasesim sweep: warning: cell " + id(1) + ": its file cells/" + id(1) +
                       ".json is the document of another cell, {\"id\":\"" + id(2) +
                       "\",\"options\":{\"beta\":\"5\"}} (it runs again)") != std::string::npos);
  CHECK(again.err.find("phasesim sweep: warning: cell " + id(2) + ": its file cells/" + id(2) +
                       ".json is a document of \"coverage\", not of 'channel' (it runs again)") !=
        std::string::npos);
  CHECK(read_text(out / "results.csv") == csv);
}

TEST_CASE("a sweep's cells are bounded as one run: their estimates summed, refused over a day") {
  const TempDir dir("total");
  // Each cell alone is under a day on one thread (about 17 hours: 2e-7 s x N S); three are not.
  const auto file = write_file(dir / "grid.toml",
                               "command = \"diversity\"\n[options]\nstride = [30000, 30001, "
                               "30002]\nheads = 10000000\n");
  const auto result =
      run_cli("sweep " + file.string() + " --out " + (dir / "out").string() + " --threads 1");
  CHECK(result.status == 2);
  CHECK(result.err.starts_with("phasesim sweep: too large: the 3 cells to run of " + file.string() +
                               " would take about "));
  CHECK(result.err.ends_with("on 1 thread (the limit is 24 hours)\n"));
  CHECK(!fs::exists(dir / "out"));
}

TEST_CASE("diversity bounds its rows and samples up front; a refusal names the option at fault") {
  check_refused({
      {"coverage --stride 100000000",
       "phasesim coverage: too large: --stride 100000000 needs about 95 GiB of memory (the limit "
       "is 4.0 GiB)"},
      {"diversity --heads 64 --samples 2147483647",
       "phasesim diversity: too large: --samples 2147483647 for --heads 64 at --stride 4 needs "
       "about 96 GiB of memory (the limit is 4.0 GiB)"},
      {"diversity --heads 64 --stride 1000000000",
       "phasesim diversity: too large: --heads 64 at --stride 1000000000 needs about 45 GiB of "
       "memory (the limit is 4.0 GiB)"},
  });
}

TEST_CASE("theorem verdicts: inside the regime only where the claim should hold at these sizes") {
  // T3 at N = 64, 128: the O(1/N^2) term alone moves N gap by 5%: outside, exit 5, not 3.
  const auto small = run_cli("theorem diversity --heads 64,128 --json -");
  CHECK(small.status == 5);
  const auto doc = nlohmann::json::parse(small.out);
  CHECK(doc["regime"] == "outside");
  CHECK(doc["second_order_share"].get<double>() > 0.025);
  // A large beta_out makes the corrections dominate at every N tested: outside as well.
  CHECK(run_cli("theorem diversity --beta-out 100").status == 5);
  CHECK(run_cli("theorem diversity").status == 0);  // the default is inside and agrees
  // Nothing to compare: refused, never a verdict of inf or NaN.
  check_refused({
      {"theorem diversity --success 0",
       "phasesim theorem diversity: invalid --success 0 (the output sees no retrieval, beta_o p "
       "= 0: the gap is 0 at every N and T3 has nothing to check; give --beta-out and --success "
       "above 0)"},
      {"theorem diversity --beta-out 1e10",
       "phasesim theorem diversity: invalid --beta-out 1e+10 (with --success 0.9 and --answers "
       "1000 the output loss is saturated at beta_o p / S = 2.25e+09: C = 0 underflows, so T3 "
       "has nothing to check; keep beta_o p / S below about 700)"},
  });
  // T2(d) is about a concentrated gate: five steps leave it spread, so outside (exit 5).
  const auto early = run_cli("theorem lockin --steps 5 --inits 2 --reweight-steps 50 --json -");
  CHECK(early.status == 5);
  const auto lockin = nlohmann::json::parse(early.out);
  CHECK(lockin["regime"] == "outside");
  CHECK(lockin["regime_detail"].get<std::string>().find(
            "T2(d) is about a concentrated gate (more --steps)") != std::string::npos);
}

TEST_CASE("diagnose warns when --stride contradicts the period, and never prints NaN") {
  const TempDir dir("diagnose");
  std::string period4 = "group,successes,trials\n";
  for (int g = 0; g < 16; ++g)
    period4 += std::to_string(g) + "," + (g % 4 == 3 ? "280" : "120") + ",400\n";
  const auto table = write_file(dir / "p4.csv", period4).string();
  const auto contradicts = run_cli("diagnose " + table + " --stride 3 --replicates 999");
  CHECK(contradicts.status == 0);
  CHECK(contradicts.err ==
        "phasesim diagnose: warning: --stride 3 contradicts the table: over 16 groups it predicts "
        "no period, yet the groups show period 4; the phases below pool by the stride: check "
        "--stride and the order of the groups\n");
  CHECK(run_cli("diagnose " + table + " --stride 8 --replicates 999").err.empty());  // 4 divides 8
  // One trial per group: every interval end is a number.
  std::string ones = "group,successes,trials\n";
  for (int g = 0; g < 8; ++g) ones += std::to_string(g) + "," + std::to_string(g % 2) + ",1\n";
  const auto sparse = run_cli("diagnose " + write_file(dir / "one.csv", ones).string());
  CHECK(sparse.status == 0);
  CHECK(sparse.out.find("nan") == std::string::npos);
  // Too few replicates for Holm's correction over 6 candidate periods: refused with the least.
  std::string groups64 = "group,successes,trials\n";
  for (int g = 0; g < 64; ++g) groups64 += std::to_string(g) + ",10,20\n";
  const auto many = write_file(dir / "g64.csv", groups64).string();
  check_refused({{"diagnose " + many + " --replicates 99",
                  "phasesim diagnose: invalid --replicates 99 for 64 groups (Holm's correction "
                  "over its 6 candidate periods cannot give a p-value below 0.06, above the "
                  "level 0.05, so no period could be found: give at least 119)"}});
}

TEST_CASE("--help lists only the values a command accepts") {
  const auto help = run_cli("theorem concentration --help");
  CHECK(help.out.find("normalized (u = g/||g||, the physical model) or linear") !=
        std::string::npos);
  CHECK(help.out.find("channels") == std::string::npos);
}
