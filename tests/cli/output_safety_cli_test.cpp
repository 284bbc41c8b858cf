// Issue 26: output paths never destroy (symlinks followed, devices and FIFOs written through,
// unwritable targets refused before any work, long names), a failed write to stdout fails the
// run, input files that are not regular files are refused, and every long command is bounded.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "support/cli_runner.hpp"

using phasesim::test::BadInput;
using phasesim::test::check_refused;
using phasesim::test::read_text;
using phasesim::test::run_cli;
using phasesim::test::TempDir;

namespace fs = std::filesystem;

namespace {

constexpr const char* kNiah = "niah --prompts 8 --context 512";

void make_fifo(const fs::path& path) { REQUIRE(::mkfifo(path.c_str(), 0600) == 0); }

// The exit status of `phasesim ARGUMENTS > /dev/full`, its stderr in `err`.
int run_into_full_disk(const std::string& arguments, const fs::path& err, std::string& said) {
  const auto command =
      std::string(PHASESIM_BINARY) + " " + arguments + " >/dev/full 2>" + err.string();
  const int raw = std::system(command.c_str());
  said = read_text(err);
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

}  // namespace

TEST_CASE("--json through a symlink writes the file it names and keeps the link") {
  const TempDir dir("symlink");
  std::ofstream(dir / "target.txt") << "old\n";
  fs::create_symlink("target.txt", dir / "link.json");
  const auto result = run_cli(std::string(kNiah) + " --json " + (dir / "link.json").string());
  CHECK(result.status == 0);
  CHECK(fs::is_symlink(dir / "link.json"));
  CHECK(nlohmann::json::parse(read_text(dir / "target.txt"))["command"] == "niah");
  // A dangling link creates its target, as a shell's > would.
  fs::create_symlink("made.json", dir / "dangling.json");
  CHECK(run_cli(std::string(kNiah) + " --json " + (dir / "dangling.json").string()).status == 0);
  CHECK(fs::is_symlink(dir / "dangling.json"));
  CHECK(nlohmann::json::parse(read_text(dir / "made.json"))["command"] == "niah");
}

TEST_CASE("--json to a FIFO is written through when read and refused when nobody reads") {
  const TempDir dir("fifo");
  const auto fifo = dir / "out.json";
  make_fifo(fifo);
  const auto refused = run_cli(std::string(kNiah) + " --json " + fifo.string());
  CHECK(refused.status == 2);
  CHECK(refused.err ==
        "phasesim niah: cannot write '" + fifo.string() + "' (a FIFO that no process reads)\n");
  CHECK(fs::is_fifo(fifo));

  std::string got;
  std::thread reader([&] { got = read_text(fifo); });  // blocks until the writer opens it
  const auto written = run_cli(std::string(kNiah) + " --json " + fifo.string());
  reader.join();
  CHECK(written.status == 0);
  CHECK(fs::is_fifo(fifo));
  CHECK(nlohmann::json::parse(got)["command"] == "niah");
}

TEST_CASE("--json to a character device is written through, never replaced") {
  const TempDir dir("device");
  fs::create_symlink("/dev/null", dir / "null.json");  // the real /dev/null, through a link
  CHECK(run_cli(std::string(kNiah) + " --json " + (dir / "null.json").string()).status == 0);
  CHECK(fs::status("/dev/null").type() == fs::file_type::character);
  CHECK(run_cli(std::string(kNiah) + " --json /dev/null").status == 0);
  CHECK(fs::status("/dev/null").type() == fs::file_type::character);
}

TEST_CASE("unwritable targets are refused before any work, long names work") {
  const auto proc = run_cli(std::string(kNiah) + " --json /proc/version");
  CHECK(proc.status == 2);
  CHECK(proc.err.starts_with("phasesim niah: cannot write '/proc/version' ("));
  CHECK(proc.out.empty());
  const TempDir dir("long");
  CHECK(run_cli("niah --prompts 100000 --json " + (dir / "no" / "x.json").string()).err ==
        "phasesim niah: cannot write '" + (dir / "no" / "x.json").string() +
            "' (No such file or directory)\n");
  // 255 characters, the usual NAME_MAX: the temporary name beside it is shortened to fit.
  const auto name = std::string(250, 'a') + ".json";
  const auto result = run_cli(std::string(kNiah) + " --json " + (dir / name).string());
  CHECK(result.status == 0);
  CHECK(nlohmann::json::parse(read_text(dir / name))["command"] == "niah");
  CHECK(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()) == 1);
}

TEST_CASE("a write to stdout that fails is a failed run with one line") {
  if (!fs::exists("/dev/full")) return;  // Linux only
  const TempDir dir("full");
  std::string said;
  CHECK(run_into_full_disk(kNiah, dir / "err", said) == 2);
  CHECK(said == "phasesim niah: cannot write to standard output (No space left on device)\n");
  CHECK(run_into_full_disk("theorem diversity", dir / "err", said) == 2);
  CHECK(said ==
        "phasesim theorem diversity: cannot write to standard output (No space left on "
        "device)\n");
  CHECK(run_into_full_disk(std::string(kNiah) + " --json -", dir / "err", said) == 2);
  CHECK(said.starts_with("phasesim niah: cannot write to standard output"));
}

TEST_CASE("input files that are no regular files are refused with one line") {
  const TempDir dir("inputs");
  const auto fifo = (dir / "fifo").string();
  make_fifo(fifo);
  fs::create_directory(dir / "folder");
  const auto folder = (dir / "folder").string();
  check_refused({
      {"niah --gates @" + folder,
       "phasesim niah: cannot read gate file '" + folder + "' (a directory, not a file)"},
      {"niah --gates @" + fifo, "phasesim niah: cannot read gate file '" + fifo +
                                    "' (not a regular file: a FIFO or a device)"},
      {"niah --arch " + fifo,
       "phasesim niah: cannot read --arch '" + fifo + "' (not a regular file: a FIFO or a device)"},
      {"diagnose " + fifo, "phasesim diagnose: cannot read table '" + fifo +
                               "' (not a regular file: a FIFO or a device)"},
  });
  const auto sweep = run_cli("sweep " + fifo + " --out " + (dir / "out").string());
  CHECK(sweep.status == 2);
  CHECK(sweep.err == "phasesim sweep: cannot read sweep file '" + fifo +
                         "' (not a regular file: a FIFO or a device)\n");
}

TEST_CASE("a CSV that starts with a UTF-8 byte-order mark is read as the same table") {
  const TempDir dir("bom");
  const std::string table = "trials,group,successes\n256,1,80\n256,0,179\n256,2,200\n256,3,220\n";
  std::ofstream(dir / "plain.csv") << table;
  std::ofstream(dir / "bom.csv") << "\xEF\xBB\xBF" << table;
  const auto plain = run_cli("diagnose --json - " + (dir / "plain.csv").string());
  const auto bom = run_cli("diagnose --json - " + (dir / "bom.csv").string());
  REQUIRE(plain.status == 0);
  REQUIRE(bom.status == 0);
  auto a = nlohmann::json::parse(plain.out), b = nlohmann::json::parse(bom.out);
  a.erase("table");
  b.erase("table");
  CHECK(a == b);
}

TEST_CASE("demo refuses a --out whose figures folder is a file before the tour") {
  const TempDir dir("demo");
  fs::create_directories(dir / "d");
  std::ofstream(dir / "d" / "figures") << "a file\n";
  const auto d = (dir / "d").string();
  const auto result = run_cli("demo --out " + d);
  CHECK(result.status == 2);
  CHECK(result.err ==
        "phasesim demo: invalid --out " + d + " (" + d + "/figures exists and is not a folder)\n");
  CHECK(result.out.empty());
  CHECK(read_text(dir / "d" / "figures") == "a file\n");
}

TEST_CASE("every long command is estimated and refused over the limits up front") {
  check_refused({
      {"optimize --restarts 100000000",
       "phasesim optimize: too large: --window 8 with 100000007 ascents needs about 60 GiB of "
       "memory (the limit is 4.0 GiB)"},
      {"theorem concentration --restarts 100000000",
       "phasesim theorem concentration: too large: --window 8 with 100000007 ascents needs "
       "about 60 GiB of memory (the limit is 4.0 GiB)"},
      {"dynamics --inits 100000000",
       "phasesim dynamics: too large: --inits 100000000, 2000 steps each needs about 471 GiB of "
       "memory (the limit is 4.0 GiB)"},
      {"dynamics --inits 1000000 --content-seed 1,2",
       "phasesim dynamics: too large: --inits 1000000 for each of 2 content seeds, 2000 steps "
       "each needs about 9.4 GiB of memory (the limit is 4.0 GiB)"},
      {"theorem lockin --inits 100000000",
       "phasesim theorem lockin: too large: --inits 100000000, 2500 steps each needs about 560 "
       "GiB of memory (the limit is 4.0 GiB)"},
      {"diversity --train-heads 4 --train-runs 100000000",
       "phasesim diversity: too large: --train-runs 100000000 of --train-steps 300 needs about "
       "191 GiB of memory (the limit is 4.0 GiB)"},
  });
  // Time, per thread: the line names the machine's thread count (17 days on 2 threads).
  const auto phases = run_cli("phase-diagram --restarts 1000000 --beta 4:12:0.01");
  CHECK(phases.status == 2);
  CHECK(phases.err.starts_with(
      "phasesim phase-diagram: too large: --window 8 with 2403019221 ascents would take about "));
  // coverage --arch: the table of 4096 heads of W = S = 4096, inside the slot bound.
  const TempDir dir("coverage");
  std::ofstream(dir / "big.toml") << "name = \"big\"\n[[layer]]\nwindow = 4096\nstride = "
                                     "4096\ngate = \"uniform\"\nheads = 4096\n";
  const auto big = run_cli("coverage --arch " + (dir / "big.toml").string());
  CHECK(big.status == 2);
  CHECK(big.err == "phasesim coverage: too large: --arch " + (dir / "big.toml").string() +
                       " (4096 heads) needs about 17 GiB of memory (the limit is 4.0 GiB)\n");
}

TEST_CASE("sweep files: a value listed twice and a list for a one-value option are refused") {
  const TempDir dir("sweepfile");
  const auto twice = (dir / "twice.toml").string();
  std::ofstream(twice) << "command = \"niah\"\n[options]\nprompts = 4\nbeta = [4.0, 4.0]\n";
  const auto repeated = run_cli("sweep " + twice + " --out " + (dir / "a").string());
  CHECK(repeated.status == 2);
  CHECK(repeated.err == "phasesim sweep: invalid sweep file: option 'beta' in " + twice +
                            " (lists 4 twice: each value once, since each makes its own cells)\n");
  CHECK(!fs::exists(dir / "a"));
  // A list inside the list is one value that is a list: only an option that takes several.
  const auto nested = (dir / "nested.toml").string();
  std::ofstream(nested) << "command = \"niah\"\n[options]\nwindow = [[8, 12]]\n";
  const auto list = run_cli("sweep " + nested + " --out " + (dir / "b").string());
  CHECK(list.status == 2);
  CHECK(list.err ==
        "phasesim sweep: invalid sweep cell {window=8,12}: invalid --window (it "
        "takes one value, not a list of 2)\n");
  CHECK(!fs::exists(dir / "b"));
}

TEST_CASE("diagnose refuses a context whose chance lies above a phase's accuracy") {
  const TempDir dir("context");
  const auto csv = (dir / "t.csv").string();
  std::ofstream(csv) << "trials,group,successes\n256,1,80\n256,0,179\n256,2,200\n256,3,220\n";
  check_refused({{"diagnose --context 10 " + csv,
                  "phasesim diagnose: invalid --context 10 (it gives N = 2 entries and chance "
                  "0.5000, but phase 1 has accuracy 0.3125, 95% interval [0.2578, 0.3709], below "
                  "chance: the context was longer)"}});
  CHECK(run_cli("diagnose --context 4096 " + csv).status == 0);
}

TEST_CASE("one option language: --gates everywhere, numbers read one way, options in place") {
  CHECK(run_cli("coverage --gates last").status == 0);
  CHECK(run_cli("coverage --gate last").status == 0);  // the alias
  CHECK(run_cli("niah --gate last --prompts 4 --context 512").status == 0);
  check_refused({
      {"channel --beta ' 5'", "phasesim channel: invalid --beta ' 5' (must be a number)"},
      {"channel --beta 0x1p3", "phasesim channel: invalid --beta '0x1p3' (must be a number)"},
      {"niah --prompts ' 5'", "phasesim niah: invalid --prompts ' 5' (must be an integer)"},
      {"niah --prompts 0x10", "phasesim niah: invalid --prompts '0x10' (must be an integer)"},
      {"niah --prompts 99999999999999999999",
       "phasesim niah: invalid --prompts '99999999999999999999' (out of range for this option)"},
      {"--threads 2 niah",
       "phasesim: option --threads comes before the command: options go after it, as in "
       "'phasesim niah --threads ...'"},
  });
}

TEST_CASE("optimize names the optimum's own slot as the best one-hot when all one-hots tie") {
  const auto doc = phasesim::test::run_json("optimize --model linear");
  const auto& gate = doc["gate"];
  const auto heaviest = std::max_element(gate.begin(), gate.end()) - gate.begin();
  CHECK(doc["onehot_slot"] == heaviest);
  CHECK(doc["onehot_objective"].get<double>() >= doc["objective"].get<double>() - 1e-9);
}
