// Sweeps: grid expansion, stable cell seeds, tidy CSV, resuming after interruption, and
// files that do not depend on the thread count.
#include "phasesim/sweep/sweep.hpp"

#include <doctest/doctest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <stdexcept>
#include <thread>

#include "phasesim/core/document.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/core/files.hpp"
#include "phasesim/core/random.hpp"
#include "phasesim/sweep/results_csv.hpp"
#include "phasesim/sweep/run.hpp"
#include "support/cli_runner.hpp"
#include "support/threads.hpp"

using namespace phasesim;
using namespace phasesim::sweep;
namespace fs = std::filesystem;
using test::write_file;

namespace {

// Every file under `dir` (relative path -> content).
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) {
      files[fs::relative(entry.path(), dir).string()] = test::read_text(entry.path());
    }
  }
  return files;
}

const char* kChannelSweep = R"(
command = "channel"
seed = 11
[options]
beta = [3.0, 4.5, 6]
entries = [1024, 32768]
u = "0.7,0.999999"
)";

}  // namespace

TEST_CASE("sweep grid: Cartesian product, last option fastest") {
  const test::TempDir dir("grid");
  const auto spec = read_sweep_file(write_file(dir / "s.toml", kChannelSweep));
  CHECK(spec.command == std::vector<std::string>{"channel"});
  CHECK(spec.seed == 11);
  const auto cells = expand_grid(spec);
  REQUIRE(cells.size() == 6);
  CHECK(cells[0].options[0] == std::pair<std::string, std::string>{"beta", "3"});
  CHECK(cells[0].options[1].second == "1024");
  CHECK(cells[1].options[1].second == "32768");
  CHECK(cells[2].options[0].second == "4.5");
  CHECK(cells[0].options == CellOptions{{"beta", "3"}, {"entries", "1024"}, {"u", "0.7,0.999999"}});
}

TEST_CASE("adding values to an axis leaves existing cells' ids and seeds unchanged") {
  const test::TempDir dir("stable");
  const auto small = expand_grid(read_sweep_file(write_file(dir / "a.toml", kChannelSweep)));
  std::string bigger = kChannelSweep;
  bigger.replace(bigger.find("[3.0, 4.5, 6]"), 13, "[2.0, 3.0, 4.5, 5, 6]");
  const auto large = expand_grid(read_sweep_file(write_file(dir / "b.toml", bigger)));
  REQUIRE(large.size() == 10);
  for (const auto& cell : small) {
    const auto match = std::find_if(large.begin(), large.end(),
                                    [&](const SweepCell& c) { return c.options == cell.options; });
    REQUIRE(match != large.end());
    CHECK(match->id == cell.id);
    CHECK(match->seed == cell.seed);
  }
  // ... while a different sweep seed gives different cell seeds.
  std::string reseeded = kChannelSweep;
  reseeded.replace(reseeded.find("seed = 11"), 9, "seed = 12");
  CHECK(expand_grid(read_sweep_file(write_file(dir / "c.toml", reseeded)))[0].seed !=
        small[0].seed);
}

TEST_CASE("bad sweep files are rejected with their reason") {
  const test::TempDir dir("badsweep");
  const auto check = [&](const std::string& text, const std::string& message) {
    const auto file = write_file(dir / "bad.toml", text);
    CHECK_THROWS_WITH_AS(read_sweep_file(file), (message).c_str(), InputError);
  };
  const auto f = (dir / "bad.toml").string();
  check("[options]\nbeta = 1\n",
        "invalid sweep file " + f + " (needs command = \"NAME\", e.g. command = \"niah\")");
  check("command = \"channel\"\nbogus = 1\n",
        "invalid sweep file " + f + " (unknown key 'bogus'; allowed: command, seed, [options])");
  check("command = \"channel\"\n[options]\nbeta = []\n",
        "invalid sweep file: option 'beta' in " + f + " (a list needs at least one value)");
  // A list inside the list is one value that is a list; deeper, or empty, it is refused.
  check("command = \"channel\"\n[options]\nbeta = [[[1]]]\n",
        "invalid sweep file: option 'beta' in " + f +
            " (values must be strings, numbers or booleans, a list of those, or a list of lists "
            "for an option that takes several values)");
  check("command = \"channel\"\n[options]\nbeta = [[]]\n",
        "invalid sweep file: option 'beta' in " + f +
            " (a list inside the list needs at least one value)");
  check("command = \"channel\"\n[options]\nu = [[0.5, 1], [0.5, 1]]\n",
        "invalid sweep file: option 'u' in " + f +
            " (lists 0.5,1 twice: each value once, since each makes its own cells)");
  check("command = \"channel\"\nseed = -1\n",
        "invalid sweep file " + f + " (seed must be an integer >= 0)");
  check(
      "command = \"channel\"\n[options]\nquery_noise = 1\nquery-noise = 2\n",
      "invalid sweep file " + f + " (option 'query-noise' is given twice, with '-' and with '_')");
}

TEST_CASE("results CSV: one row per cell and group, parameters as columns, quoting") {
  std::vector<CellDocument> cells = {
      {"a", nlohmann::ordered_json::parse(R"({"schema":"phasesim/1","command":"x","window":8,
         "gate":"weights:1,2","summary":{"mean":0.5},"groups":[{"group":0,"accuracy":0.25},
         {"group":1,"accuracy":0.75,"window":3}]})")},
      {"b", nlohmann::ordered_json::parse(R"({"window":4,"extra":true,"groups":[]})")},
  };
  // The second group's own window says more than the cell's (core/tidy.hpp).
  CHECK(results_csv(cells) ==
        "cell,window,gate,summary_mean,group,accuracy,extra\n"
        "a,8,\"weights:1,2\",0.5,0,0.25,\n"
        "a,3,\"weights:1,2\",0.5,1,0.75,\n");
}

TEST_CASE("sweep command writes one JSON per cell, sweep.json and results.csv") {
  const test::TempDir dir("sweepcli");
  const auto file = write_file(dir / "s.toml", kChannelSweep);
  const auto out = dir / "out";
  const auto result = test::run_cli("sweep " + file.string() + " --out " + out.string());
  REQUIRE(result.status == 0);
  CHECK(result.err.find("sweep: 6/6 cells") != std::string::npos);  // plain progress lines
  CHECK(fs::exists(out / "sweep.json"));
  const auto csv = test::read_text(out / "results.csv");
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 7);
  CHECK(csv.starts_with("cell,beta,entries,u,needle_entries,distractors,p_success,chance\n"));
  CHECK(std::distance(fs::directory_iterator(out / "cells"), fs::directory_iterator()) == 6);

  // A second run into the same directory needs --resume.
  const auto again = test::run_cli("sweep " + file.string() + " --out " + out.string());
  CHECK(again.status == 2);
  CHECK(again.err == "phasesim sweep: invalid --out " + out.string() +
                         " (not empty: use --resume to continue the sweep there, or another "
                         "directory)\n");
}

TEST_CASE("an invalid cell stops the sweep before anything is written") {
  const test::TempDir dir("badcell");
  const auto file =
      write_file(dir / "s.toml", "command = \"coverage\"\n[options]\nwindow = [8, 0]\n");
  const auto result = test::run_cli("sweep " + file.string() + " --out " + (dir / "out").string());
  CHECK(result.status == 2);
  CHECK(result.err ==
        "phasesim sweep: invalid sweep cell {window=0}: invalid --window 0 (must be at least 1)\n");
  CHECK(!fs::exists(dir / "out"));
}

TEST_CASE("resuming an interrupted sweep ends with exactly the files of an uninterrupted one") {
  const test::TempDir dir("resume");
  const auto file = write_file(dir / "s.toml", kChannelSweep).string();
  const auto whole = dir / "whole";
  REQUIRE(test::run_cli("sweep " + file + " --out " + whole.string()).status == 0);
  const auto expected = snapshot(whole);

  SUBCASE("cells lost, a temporary left behind, no results.csv") {
    const auto cut = dir / "cut";
    REQUIRE(test::run_cli("sweep " + file + " --out " + cut.string()).status == 0);
    int removed = 0;
    for (const auto& entry : fs::directory_iterator(cut / "cells")) {
      if (removed++ % 2 == 0) fs::remove(entry.path());
    }
    fs::remove(cut / "results.csv");
    write_file(cut / "cells" / ".0123.json.tmp-abcdef", "{\"partial");
    REQUIRE(test::run_cli("sweep " + file + " --out " + cut.string() + " --resume").status == 0);
    CHECK(snapshot(cut) == expected);
  }

  SUBCASE("killed with SIGKILL mid-run") {
    const auto killed = dir / "killed";
    const auto command = std::string(PHASESIM_BINARY) + " sweep " + file + " --out " +
                         killed.string() + " --threads 1 2>/dev/null";
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      ::execl("/bin/sh", "sh", "-c", ("exec " + command).c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    // Kill as soon as the first cell is on disk (or give up after a few seconds).
    for (int i = 0; i < 5000 && !(fs::exists(killed / "cells") && !fs::is_empty(killed / "cells"));
         ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    MESSAGE("cells on disk when killed: " << std::distance(fs::directory_iterator(killed / "cells"),
                                                           fs::directory_iterator()));
    REQUIRE(test::run_cli("sweep " + file + " --out " + killed.string() + " --resume").status == 0);
    CHECK(snapshot(killed) == expected);
  }
}

// The sweep library on its own, with a stand-in for the commands layer.
namespace {

// `square` with options x and seed writes x, x^2 and a draw keyed by the seed to its file.
// It refuses a negative x when prepared, and fails when run with x >= 5 and `fail_from_5`.
struct Square {
  std::atomic<int> runs = 0;
  bool fail_from_5 = false;

  SweepCommand command() {
    return {[this](const std::vector<std::string>& command, const CellOptions& options) {
              return prepare(command, options);
            },
            [](const std::vector<std::string>& command, const std::string& option) {
              require(command == std::vector<std::string>{"square"}, "unknown command");
              return option == "--seed" || option == "--json";
            }};
  }

  CellTask prepare(const std::vector<std::string>& command, const CellOptions& options) {
    REQUIRE(command == std::vector<std::string>{"square"});
    const std::map<std::string, std::string> values(options.begin(), options.end());
    const int x = std::stoi(values.at("x"));
    require(x >= 0, "invalid --x " + values.at("x") + " (must be >= 0)");
    const std::uint64_t seed = std::stoull(values.at("seed"));
    const auto run = [this, x, seed](const std::function<bool()>&) {
      ++runs;
      if (fail_from_5 && x >= 5) throw std::runtime_error("cell x=" + std::to_string(x));
      // Later cells finish first, so the files must not depend on the finishing order.
      std::this_thread::sleep_for(std::chrono::milliseconds(8 - x));
      Json doc = new_document("square");
      doc["x"] = x;
      doc["seed"] = seed;
      doc["square"] = x * x;
      doc["draw"] = RandomStream(seed, 0, 0, Stream::channel).normal(0, 0);
      return doc;
    };
    return {run, {1.0 * x, 0}};
  }
};

const char* kSquareSweep =
    "command = \"square\"\nseed = 3\n[options]\nx = [0, 1, 2, 3, 4, 5, 6, 7]\n";

// Plans, checks, prepares and runs a sweep as the CLI does; returns how many cells ran.
std::size_t run_square_sweep(const fs::path& file, const fs::path& dir, Square& square, int threads,
                             bool resume = false) {
  const auto plan = plan_sweep(file, dir, square.command());
  check_sweep_dir(plan, resume);
  const auto pending = prepare_sweep_dir(plan, resume);
  std::size_t finished = 0;  // unguarded: the policy calls back one at a time
  const auto results =
      run_sweep(plan, pending, Parallel{threads, [&](std::int64_t) { ++finished; }});
  CHECK(results == dir / "results.csv");
  CHECK(finished == pending.size());
  return pending.size();
}

}  // namespace

TEST_CASE("a sweep writes the same files, byte for byte, on any number of threads" *
          doctest::test_suite("bitexact")) {
  const test::TempDir dir("threads");
  const auto file = write_file(dir / "s.toml", kSquareSweep);
  Square square;
  const auto one = test::check_thread_invariance([&](const Parallel& p) {
    const auto out = dir / ("threads" + std::to_string(p.threads));
    CHECK(run_square_sweep(file, out, square, p.threads) == 8);
    return snapshot(out);
  });
  CHECK(square.runs == 8 * 3);
  CHECK(one.size() == 10);  // sweep.json, results.csv and 8 cells
}

TEST_CASE("resuming runs exactly the cells without a valid document, and checks the sweep") {
  const test::TempDir dir("libresume");
  const auto file = write_file(dir / "s.toml", kSquareSweep);
  const auto out = dir / "out";
  Square square;
  run_square_sweep(file, out, square, 2);
  const auto expected = snapshot(out);

  const auto plan = plan_sweep(file, out, square.command());
  CHECK_THROWS_WITH_AS(check_sweep_dir(plan, false),
                       ("invalid --out " + out.string() +
                        " (not empty: use --resume to continue the sweep there, or another "
                        "directory)")
                           .c_str(),
                       InputError);
  const auto cell = [&](std::size_t i) { return out / "cells" / (plan.cells[i].id + ".json"); };
  fs::remove(cell(1));
  fs::remove(cell(6));
  write_file(cell(4), "{\"partial");  // cut short (a write that was not atomic)
  write_file(out / "cells" / ".0123.json.tmp-abcdef", "{\"partial");
  fs::remove(out / "results.csv");
  CHECK(prepare_sweep_dir(plan, true) == std::vector<std::size_t>{1, 4, 6});

  square.runs = 0;
  CHECK(run_square_sweep(file, out, square, 2, true) == 3);
  CHECK(square.runs == 3);
  CHECK(snapshot(out) == expected);

  std::string text = kSquareSweep;
  const auto reseeded =
      write_file(dir / "r.toml", text.replace(text.find("seed = 3"), 8, "seed = 4"));
  CHECK_THROWS_WITH_AS(check_sweep_dir(plan_sweep(reseeded, out, square.command()), true),
                       ("cannot resume in " + out.string() +
                        " (it holds a sweep with another seed: resume with the same sweep file, "
                        "or use another --out)")
                           .c_str(),
                       InputError);
}

TEST_CASE("a bad cell stops the plan, and a failing cell the run, before results.csv") {
  const test::TempDir dir("libfail");
  Square square;
  const auto bad = write_file(dir / "bad.toml", "command = \"square\"\n[options]\nx = [2, -1]\n");
  CHECK_THROWS_WITH_AS(plan_sweep(bad, dir / "out", square.command()),
                       "invalid sweep cell {x=-1}: invalid --x -1 (must be >= 0)", InputError);
  CHECK(!fs::exists(dir / "out"));

  square.fail_from_5 = true;
  const auto file = write_file(dir / "s.toml", kSquareSweep);
  CHECK_THROWS_WITH_AS(run_square_sweep(file, dir / "out", square, 2), "cell x=5",
                       std::runtime_error);
  CHECK(!fs::exists(dir / "out" / "results.csv"));
  CHECK(fs::exists(dir / "out" / "cells" / (expand_grid(read_sweep_file(file))[4].id + ".json")));
}
