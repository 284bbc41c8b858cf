// Issue 12: no crash, no hang, no silent wrong answer. Every case of the issue, as the
// user typed it, with the one line it now prints or the right answer it now gives.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "support/cli_runner.hpp"

using phasesim::test::BadInput;
using phasesim::test::check_refused;
using phasesim::test::check_refused_as_is;
using phasesim::test::read_text;
using phasesim::test::run_cli;
using phasesim::test::TempDir;
using phasesim::test::write_file;

namespace {

const char* const kGrid = "command = \"niah\"\n[options]\ncontext = 4096\nprompts = 4\n";

}  // namespace

TEST_CASE("crashes and hangs are refused up front with the estimate and the limit") {
  check_refused({
      {"niah --threads 100000",
       "phasesim niah: invalid --threads 100000 (must be in [0, 1024]; 0 uses the OpenMP "
       "default)"},
      {"coverage --window 100000000 --stride 4",
       "phasesim coverage: too large: --window 100000000 needs about 6.0 GiB of memory (the "
       "limit is 4.0 GiB)"},
      {"niah --window 1000000000",
       "phasesim niah: too large: --window 1000000000 needs about 30 GiB of memory (the limit "
       "is 4.0 GiB)"},
      {"niah --engine full --dim 4096 --context 100000000 --prompts 100000 --threads 2",
       "phasesim niah: too large: --window 8, --heads 1, --context 100000000, 800000 trials, "
       "--engine full would take about 3443 days on 2 threads (the limit is 24 hours)"},
      // The fast engine's streaming paths visit every entry of every trial.
      {"niah --engine fast --dim 64 --rms-norm --gates uniform --context 100000000 "
       "--prompts 100000 --threads 2",
       "phasesim niah: too large: --window 8, --heads 1, --context 100000000, 800000 trials, "
       "--engine fast would take about 19 days on 2 threads (the limit is 24 hours)"},
  });
  // train's total work, steps x batch x context, not each factor alone.
  const auto train = run_cli("train --steps 1000000 --batch 4096 --context 8192 --threads 2");
  CHECK(train.status == 2);
  CHECK(
      train.err.starts_with("phasesim train: too large: --steps 1000000 x --batch 4096 x "
                            "--context 8192 (--heads 8, --dim 32) would take about "));
  CHECK(train.err.ends_with(" days on 2 threads (the limit is 24 hours)\n"));
  const auto compare = run_cli("compare nsa --threads 100000");
  CHECK(compare.status == 2);
  CHECK(compare.err.find("invalid --threads 100000 (must be in [0, 1024]") != std::string::npos);
  // optimize runs on every core: the estimate's wall time depends on the machine (days on 2
  // threads: at beta 8 the gate locks in and random starts run to --max-iterations).
  const auto optimize = run_cli("optimize --beta 8 --restarts 100000 --max-iterations 10000000");
  CHECK(optimize.status == 2);
  CHECK(
      optimize.err.starts_with("phasesim optimize: too large: --window 8 with 100007 ascents "
                               "would take about "));
  CHECK(optimize.err.ends_with(" (the limit is 24 hours)\n"));
  const TempDir dir("hardening-sweep");
  check_refused_as_is({
      {"sweep " + write_file(dir / "g.toml", kGrid).string() + " --out " + (dir / "o").string() +
           " --threads 100000",
       "phasesim sweep: invalid --threads 100000 (must be in [0, 1024]; 0 uses the OpenMP "
       "default)"},
  });
}

TEST_CASE("a sweep of a million cells is refused before planning") {
  const TempDir dir("hardening-million");
  std::string axis = "[0";
  for (int i = 1; i < 1000; ++i) axis += "," + std::to_string(i);
  axis += "]";
  const auto file =
      write_file(dir / "m.toml", "command = \"niah\"\n[options]\nseed = " + axis +
                                     "\nprompts = " + axis.substr(0, axis.size() - 1) + ",1000]\n");
  check_refused_as_is({{"sweep " + file.string() + " --out " + (dir / "o").string(),
                        "phasesim sweep: invalid sweep file " + file.string() +
                            " (more than 100000 cells, the limit of one sweep: split the grid "
                            "into several sweeps)"}});
  CHECK(!std::filesystem::exists(dir / "o"));
}

TEST_CASE("silent wrong answers are refused with what is wrong and what is allowed") {
  const std::string tied =
      " (its largest weight is shared by 8 slots: no initial argmax, and a symmetric start may "
      "never move; use random:SEED[:SCALE] or a gate with one largest weight)";
  check_refused({
      {"channel --u ''",
       "phasesim channel: invalid --u '' (an empty value: give one, or leave --u out)"},
      {"dynamics --init uniform", "phasesim dynamics: invalid --init uniform" + tied},
      {"theorem lockin --init uniform", "phasesim theorem lockin: invalid --init uniform" + tied},
      {"theorem lockin --stride 1",
       "phasesim theorem lockin: invalid --stride 1 (lock-in moves all phase weight to a phase "
       "the winner does not cover: needs --window and --stride at least 2, or --reweight-steps "
       "0)"},
      {"theorem diversity --heads 1024",
       "phasesim theorem diversity: invalid --heads 1024 (the slope check needs at least two N, "
       "e.g. 512,1024)"},
      {"theorem diversity --heads 1024,512",
       "phasesim theorem diversity: invalid --heads 1024,512 (give N in increasing order: the "
       "check is at the last, largest N)"},
      {"theorem diversity --stride 1",
       "phasesim theorem diversity: invalid --stride 1 (one phase: every head covers it, the "
       "gap is 0 at every N and T3 has nothing to check; use --stride 2 or more)"},
      {"niah --json ''",
       "phasesim niah: invalid --json '' (an empty value: give one, or leave --json out)"},
  });
  const auto missing = run_cli("niah --json /missing/dir/x.json");
  CHECK(missing.status == 2);
  CHECK(missing.err ==
        "phasesim niah: cannot write '/missing/dir/x.json' (No such file or "
        "directory)\n");
}

TEST_CASE("messages that say what is wrong") {
  check_refused({
      {"niah --gates random:1:2:3",
       "phasesim niah: invalid gate 'random:1:2:3' (random takes random:SEED or "
       "random:SEED:SCALE, not 3 fields after 'random:')"},
      {"coverage --gate 'last;uniform'",
       "phasesim coverage: invalid gate 'last;uniform' (one gate here, not a ';'-separated list "
       "of heads; niah --gates takes several)"},
      {"theorem bogus",
       "phasesim: unknown command 'theorem bogus' (theorem commands: concentration, lockin, "
       "diversity)"},
      {"theorem",
       "phasesim: missing command after 'theorem' (theorem commands: concentration, lockin, "
       "diversity)"},
      {"diversity --heads ''",
       "phasesim diversity: invalid --heads '' (an empty value: give one, or leave --heads out)"},
      // Number options in our words, not CLI11's "Could not convert: --prompts = abc".
      {"niah --prompts abc", "phasesim niah: invalid --prompts 'abc' (must be an integer)"},
      {"niah --context 1.5", "phasesim niah: invalid --context '1.5' (must be an integer)"},
      {"optimize --beta x", "phasesim optimize: invalid --beta 'x' (must be a number)"},
      {"niah --prompts 99999999999",
       "phasesim niah: invalid --prompts '99999999999' (out of range for this option)"},
      // CLI11 alone reads both as 2^64 - 1 and runs with that seed.
      {"niah --seed -1",
       "phasesim niah: invalid --seed '-1' (must be an integer in [0, 2^64 - 1])"},
      {"niah --seed 99999999999999999999999",
       "phasesim niah: invalid --seed '99999999999999999999999' (must be an integer in [0, 2^64 "
       "- 1])"},
  });
  const TempDir dir("hardening-messages");
  const auto grid = write_file(dir / "g.toml", kGrid).string();
  const auto demo = write_file(dir / "demo.toml", "command = \"demo\"\n").string();
  const auto json =
      write_file(dir / "json.toml", std::string(kGrid) + "json = \"x.json\"\n").string();
  const auto threads =
      write_file(dir / "threads.toml", std::string(kGrid) + "threads = [1, 2]\n").string();
  const auto out = " --out " + (dir / "o").string();
  check_refused_as_is({
      {"sweep " + grid + " --out ''",
       "phasesim sweep: invalid --out '' (an empty value: give one)"},
      {"sweep " + demo + out,
       "phasesim sweep: invalid sweep file " + demo +
           ": unknown command 'demo' (commands: coverage, channel, niah, gpu-check, "
           "precision-check, compare, frontier, optimize, phase-diagram, dynamics, diversity, "
           "theorem concentration, theorem lockin, theorem diversity, train, sweep, diagnose, "
           "inspect)"},
      {"sweep " + json + out,
       "phasesim sweep: invalid sweep file " + json +
           " (option 'json' is the sweep's own: each cell writes cells/ID.json; remove it)"},
      {"sweep " + threads + out,
       "phasesim sweep: invalid sweep file " + threads +
           " (option 'threads' cannot be swept: results do not depend on it; sweep --threads "
           "sets how many cells run at once)"},
      {"sweep " + grid + " --out " + grid + "/sub",  // under a file, even for root
       "phasesim sweep: invalid --out " + grid + "/sub (cannot create it: " + grid +
           " is not a folder)"},
  });
}

TEST_CASE("--resume with another sweep file is refused, not mixed in") {
  const TempDir dir("hardening-resume");
  const auto out = (dir / "o").string();
  REQUIRE(run_cli("sweep " + write_file(dir / "a.toml", kGrid).string() + " --out " + out).status ==
          0);
  const auto other = write_file(dir / "b.toml", std::string(kGrid) + "stride = [2, 4]\n").string();
  const auto before = read_text(dir / "o" / "sweep.json");
  check_refused_as_is({{"sweep " + other + " --out " + out + " --resume",
                        "phasesim sweep: cannot resume in " + out +
                            " (it holds a sweep with another grid of options: resume with the "
                            "same sweep file, or use another --out)"}});
  CHECK(read_text(dir / "o" / "sweep.json") == before);
}

TEST_CASE("theorem exit codes: 3 a counterexample inside the regime, 5 outside it") {
  const auto outside = run_cli("theorem concentration --beta 10 --restarts 2");
  CHECK(outside.status == 5);
  CHECK(outside.out.find("verdict:    DISAGREE, outside the regime (expected)") !=
        std::string::npos);
  // T2 is proved for gradient ascent: the replicator flow is outside its regime.
  const auto replicator = run_cli(
      "theorem lockin --update replicator --steps 200 --reweight-steps 100 --inits 2 --json -");
  const auto doc = nlohmann::json::parse(replicator.out);
  CHECK(doc["regime"] == "outside");
  CHECK(doc["regime_detail"].get<std::string>().find(
            "--update replicator: T2 holds for gradient ascent only") != std::string::npos);
  CHECK(replicator.status == (doc["agree"] == true ? 0 : 5));
}

TEST_CASE("warnings on stderr and in the JSON where the output cannot show the model") {
  const auto analytic =
      run_cli("niah --engine analytic --dim 64 --window 8 --stride 2 --gates uniform --json -");
  REQUIRE(analytic.status == 0);
  const std::string large_d =
      "--engine analytic computes the large-d limit of the full-vector model, which can be far "
      "off at --dim 64 (--engine fast or full computes the model itself)";
  CHECK(nlohmann::json::parse(analytic.out)["warnings"] == nlohmann::json::array({large_d}));
  CHECK(analytic.err == "phasesim niah: warning: " + large_d + "\n");

  const auto doc = phasesim::test::run_json(
      "niah --window 2 --stride 4 --groups 6 --gates uniform --context 4096 --prompts 4");
  CHECK(doc["warnings"] ==
        nlohmann::json::array(
            {"--groups 6 is not a multiple of --stride 4: groups mix needles of different "
             "phases, so the period cannot show (use a multiple of 4)",
             "--window 2 < --stride 4: phases 0 to 1 are in no entry, so their needles are found "
             "only by chance"}));
  CHECK(phasesim::test::run_json("niah --context 4096 --prompts 4")["warnings"].empty());
  // An architecture's heads are checked, not the unused --stride default (S = 16).
  CHECK(phasesim::test::run_json(
            "niah --arch nsa-compression --groups 8 --context 4096 --prompts 4")["warnings"] ==
        nlohmann::json::array({"--groups 8 is not a multiple of stride 16 of "
                               "layer 1 head 1: groups mix needles of "
                               "different phases, so the period cannot show "
                               "(use a multiple of 16)"}));
  CHECK(phasesim::test::run_json(
            "niah --arch nsa-compression --groups 16 --context 4096 --prompts 4")["warnings"]
            .empty());
}

TEST_CASE("diversity: the slope says which one it is, and n/a where it is not defined") {
  const auto table = run_cli("diversity --heads 4,8,16");
  CHECK(table.out.find("log-log slope of the gap, least squares over all N: ") !=
        std::string::npos);
  const auto flat = run_cli("diversity --stride 1 --heads 4,8 --json -");
  REQUIRE(flat.status == 0);
  const auto doc = nlohmann::json::parse(flat.out);
  CHECK(doc["slope"].is_null());
  CHECK(doc["slope_fit"] == "least squares over all N");
  CHECK(run_cli("diversity --stride 1 --heads 4,8")
            .out.find("least squares over all N: n/a (needs two N with a gap above 0)") !=
        std::string::npos);
}

TEST_CASE("--progress: progress and the time left on stderr") {
  const auto optimize = run_cli("optimize --window 4 --stride 4 --restarts 2 --progress");
  REQUIRE(optimize.status == 0);
  CHECK(optimize.err.find("optimize: 9/9 ascents, ") != std::string::npos);
  CHECK(optimize.err.find(" left\n") != std::string::npos);
  const auto niah = run_cli("niah --context 4096 --prompts 4 --engine fast --progress");
  CHECK(niah.err.find("niah: 32/32 trials, ") != std::string::npos);
  const auto dynamics = run_cli("dynamics --steps 20 --inits 3 --progress");
  CHECK(dynamics.err.find("dynamics: 3/3 runs, ") != std::string::npos);
  CHECK(run_cli("niah --context 4096 --prompts 4").err.empty());  // not a terminal
}

TEST_CASE("Ctrl-C during a sweep says where the results are and how to resume") {
  const TempDir dir("hardening-interrupt");
  // Cells of a few seconds each; the sweep is interrupted as soon as it has started.
  const auto file = write_file(
      dir / "slow.toml", "command = \"niah\"\n[options]\nprompts = [300000, 300001, 300002]\n");
  const auto out = dir / "o";
  const auto command = std::string(PHASESIM_BINARY) + " sweep " + file.string() + " --out " +
                       out.string() + " --threads 1 2>" + (dir / "err").string() + " & pid=$!; " +
                       "for i in $(seq 600); do [ -e " + (out / "sweep.json").string() +
                       " ] && break; sleep 0.05; done; kill -INT $pid; wait $pid";
  const int raw = std::system(command.c_str());
  CHECK(WEXITSTATUS(raw) == 130);
  CHECK(read_text(dir / "err") == "\nphasesim sweep: interrupted; the finished cells are in " +
                                      (out / "cells").string() +
                                      "; continue with: phasesim sweep " + file.string() +
                                      " --out " + out.string() + " --resume\n");
}

TEST_CASE("every option of every command refuses an empty value, every --threads 100000") {
  const std::regex option(R"(^\s+(?:-\w,)?(--[a-z-]+)\s+(?:INT|UINT|FLOAT|TEXT|INT64))");
  for (const char* command :
       {"coverage", "channel", "niah", "gpu-check", "precision-check", "compare", "optimize",
        "phase-diagram", "dynamics", "diversity", "theorem concentration", "theorem lockin",
        "theorem diversity", "train", "sweep", "demo", "diagnose"}) {
    std::istringstream help(run_cli(std::string(command) + " --help").out);
    int checked = 0;
    for (std::string line; std::getline(help, line);) {
      std::smatch match;
      if (!std::regex_search(line, match, option)) continue;
      const std::string name = match[1];
      CAPTURE(command);
      CAPTURE(name);
      const auto empty = run_cli(std::string(command) + " " + name + " ''");
      CHECK(empty.status == 2);
      CHECK(empty.err.find(": invalid " + name + " '' (an empty value: give one") !=
            std::string::npos);
      // sweep, diagnose and compare need their files first; their --threads is checked above,
      // in diagnose_table_test.cpp and below.
      const bool file_first = std::string(command) == "sweep" ||
                              std::string(command) == "diagnose" ||
                              std::string(command) == "compare";
      if (name == "--threads" && !file_first) {
        const auto many = run_cli(std::string(command) + " --threads 100000");
        CHECK(many.status == 2);
        CHECK(many.err.find("invalid --threads 100000 (must be in [0, 1024]") != std::string::npos);
      }
      ++checked;
    }
    CHECK(checked > 0);
  }
}
