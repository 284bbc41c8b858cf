#pragma once
// Runs the phasesim binary as a user would and captures what it printed.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace phasesim::test {

struct CliResult {
  int status = -1;
  std::string out;
  std::string err;
};

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Writes `text` to `path` (a test's input file: a table, a sweep file) and returns the path.
inline std::filesystem::path write_file(const std::filesystem::path& path,
                                        const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

/// A fresh empty directory under the system temp dir, removed when the object dies.
class TempDir {
 public:
  explicit TempDir(const std::string& name) {
    path_ = std::filesystem::temp_directory_path() /
            ("phasesim-test-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

/// Runs `phasesim <arguments>` through the shell; arguments are shell-quoted by the caller.
inline CliResult run_cli(const std::string& arguments) {
  static int counter = 0;
  const TempDir dir("cli" + std::to_string(counter++));
  const auto out = dir / "stdout";
  const auto err = dir / "stderr";
  const std::string command =
      std::string(PHASESIM_BINARY) + " " + arguments + " >" + out.string() + " 2>" + err.string();
  const int raw = std::system(command.c_str());
  CliResult result;
  result.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  result.out = read_text(out);
  result.err = read_text(err);
  return result;
}

/// The JSON document a command writes to stdout with --threads `threads`, as text: what the
/// CLI's thread-invariance checks compare (support/threads.hpp).
inline std::string json_on_threads(const std::string& arguments, int threads) {
  const auto result = run_cli(arguments + " --threads " + std::to_string(threads) + " --json -");
  REQUIRE(result.status == 0);
  return result.out;
}

/// Runs a command that must succeed and returns the JSON it writes to stdout (--json -).
inline nlohmann::json run_json(const std::string& arguments) {
  const auto result = run_cli(arguments + " --json -");
  if (result.status != 0) {
    throw std::runtime_error("phasesim " + arguments + " failed: " + result.err);
  }
  return nlohmann::json::parse(result.out);
}

/// A command line that must be refused, and the exact line it must print on stderr.
struct BadInput {
  std::string arguments;
  std::string message;
};

/// Runs `phasesim [command] <arguments> --json FILE` for every case: each must exit with
/// status 2, print exactly "phasesim [command]: <message>" (the whole message when
/// `command` is empty) and nothing on stdout, and write no FILE.
inline void check_refused(const std::vector<BadInput>& cases, const std::string& command = "") {
  const TempDir dir("refused");
  const auto out = dir / "out.json";
  const std::string prefix = command.empty() ? "" : command + " ";
  const std::string said = command.empty() ? "" : "phasesim " + command + ": ";
  for (const auto& c : cases) {
    CAPTURE(c.arguments);
    const auto result = run_cli(prefix + c.arguments + " --json " + out.string());
    CHECK(result.status == 2);
    CHECK(result.err == said + c.message + "\n");
    CHECK(result.out.empty());
    CHECK(!std::filesystem::exists(out));
  }
}

/// check_refused for command lines without --json (sweep and demo have none) or that give
/// their own: exit status 2, exactly `message` on stderr, nothing on stdout.
inline void check_refused_as_is(const std::vector<BadInput>& cases) {
  for (const auto& c : cases) {
    CAPTURE(c.arguments);
    const auto result = run_cli(c.arguments);
    CHECK(result.status == 2);
    CHECK(result.err == c.message + "\n");
    CHECK(result.out.empty());
  }
}

}  // namespace phasesim::test
