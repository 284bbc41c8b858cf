#pragma once
// The grid of command runs whose cost is measured (benchmarks/commands_benchmark.cpp) and whose
// up-front estimates are held to it (tests/commands/estimate_test.cpp, against the recorded
// run benchmarks/recorded/commands.json): defined once here, so that the two cannot drift.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "phasesim/core/budget.hpp"

namespace phasesim::bench {

/// One run of a command at one size.
struct CommandCase {
  /// Google Benchmark's name: the command's BM_ name and its sizes, BM_Optimize/W:8/S:4/N:32768.
  std::string name;
  /// What the command estimates before it starts (core/budget.hpp: CPU seconds on one core).
  std::function<WorkEstimate()> estimate;
  /// Runs it once on one thread, document included; returns something of the result.
  std::function<std::size_t()> run;
};

/// optimize, phase-diagram and dynamics over W in {8, 16, 32, 64, 128}, the theorem checks and
/// T3's joint training at two sizes, the analytic engine over caches and query heads, the
/// Monte Carlo engines over L, W, d and heads, frontier at L 32768, 131072 and 1048576 and
/// at 131072 with the presets, and diagnose: the period tests, a fit under the read path and
/// the 2-token fit.
std::vector<CommandCase> command_cases();

}  // namespace phasesim::bench
