// Every command's up-front estimate (core/budget.hpp) against the time the command took, over
// the benchmark grid (benchmarks/command_cases.hpp): the estimates are computed here, by the
// code under test, and the times are a recorded run of build/phasesim_command_benchmarks
// (benchmarks/recorded/commands.json, one thread, CPU time, its machine in its context). Not a
// timed test: nothing here is timed. When a change makes a command faster or slower, record
// the grid again (README, "How cost grows").
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <string>

#include "benchmarks/command_cases.hpp"
#include "phasesim/core/document.hpp"

namespace {

std::map<std::string, double> recorded_seconds() {
  std::ifstream in(PHASESIM_SOURCE_DIR "/benchmarks/recorded/commands.json");
  REQUIRE(in.good());
  const auto report = phasesim::Json::parse(in);
  const std::map<std::string, double> unit{{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}};
  std::map<std::string, double> seconds;
  for (const auto& run : report.at("benchmarks")) {
    const auto name = run.at("name").get<std::string>();
    seconds[name] = run.at("cpu_time").get<double>() * unit.at(run.at("time_unit"));
  }
  return seconds;
}

}  // namespace

TEST_CASE("every command's estimate is within a factor 2 of its recorded time, over the grid") {
  const auto recorded = recorded_seconds();
  const auto cases = phasesim::bench::command_cases();
  for (const auto& c : cases) {
    CAPTURE(c.name);
    const auto it = recorded.find(c.name);
    REQUIRE_MESSAGE(it != recorded.end(), "not in the recorded run: record the grid again");
    const double ratio = c.estimate().seconds / it->second;
    CAPTURE(ratio);
    CHECK(ratio >= 0.5);
    CHECK(ratio <= 2.0);
  }
  CHECK(recorded.size() == cases.size());
}
