#pragma once
// BENCHMARK_MAIN for phasesim's benchmark programs: the SIMD target limited as for the CLI
// (PHASESIM_SIMD_TARGET), the program's own cases registered, and the target the dispatch
// picks in the report's context, so that every figure names it.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <functional>

#include "phasesim/core/error.hpp"
#include "phasesim/core/normal_block.hpp"
#include "phasesim/core/simd_target.hpp"

namespace phasesim::bench {

inline int benchmark_main(int argc, char** argv, const char* program,
                          const std::function<void()>& register_cases = {}) {
  try {
    limit_simd_target_from_environment();
  } catch (const InputError& e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    return 2;
  }
  if (register_cases) register_cases();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("simd_target", simd_target());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace phasesim::bench
