// What the commands cost, one thread each, CPU time, over the grid of command_cases.hpp, with
// the estimate each makes before it starts as the counter "estimate_s" (tests/commands/
// estimate_test.cpp holds the estimates to a factor 2 of the recorded run, and
// benchmarks/cost-table.py makes the README's "How cost grows" from a run):
//   build/phasesim_command_benchmarks --benchmark_out=benchmarks/recorded/commands.json
//       --benchmark_out_format=json [--benchmark_filter=Optimize]
#include <benchmark/benchmark.h>

#include <cstdio>

#include "command_cases.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/core/normal_block.hpp"
#include "phasesim/core/simd_target.hpp"

// BENCHMARK_MAIN with the cases registered from the grid and the SIMD target the dispatch
// picks (PHASESIM_SIMD_TARGET limits it, as for the CLI) in the report's context.
int main(int argc, char** argv) {
  try {
    phasesim::limit_simd_target_from_environment();
  } catch (const phasesim::InputError& e) {
    std::fprintf(stderr, "phasesim_command_benchmarks: %s\n", e.what());
    return 2;
  }
  for (const auto& c : phasesim::bench::command_cases()) {
    benchmark::RegisterBenchmark(c.name.c_str(), [c](benchmark::State& state) {
      for (auto _ : state) benchmark::DoNotOptimize(c.run());
      state.counters["estimate_s"] = c.estimate().seconds;
    })->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("simd_target", phasesim::simd_target());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
