// What the commands cost, one thread each, CPU time, over the grid of command_cases.hpp, with the
// estimate each makes before it starts as the counter "estimate_s" (tests/commands/
// estimate_test.cpp holds the estimates to a factor 2 of the recorded run, and
// benchmarks/cost-table.py makes the README's "How cost grows" from a run):
//   build/phasesim_command_benchmarks --benchmark_out=benchmarks/recorded/commands.json
//       --benchmark_out_format=json [--benchmark_filter=Optimize]
#include <benchmark/benchmark.h>

#include "benchmark_main.hpp"
#include "command_cases.hpp"

// The cases of the grid, registered by name.
int main(int argc, char** argv) {
  return phasesim::bench::benchmark_main(argc, argv, "phasesim_command_benchmarks", [] {
    for (const auto& c : phasesim::bench::command_cases()) {
      benchmark::RegisterBenchmark(c.name.c_str(), [c](benchmark::State& state) {
        for (auto _ : state) benchmark::DoNotOptimize(c.run());
        state.counters["estimate_s"] = c.estimate().seconds;
      })->Unit(benchmark::kMillisecond);
    }
  });
}
