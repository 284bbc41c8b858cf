// Trials per second of the fast engine's paths and of the full engine, on one thread:
//   build/phasesim_benchmarks [--benchmark_filter=Fast]
#include <benchmark/benchmark.h>

#include <string>

#include "phasesim/engines/engine.hpp"

namespace {

struct Case {
  std::string gate;
  int dim;  ///< 0: standardized channel
  bool rms_norm;
  std::int64_t context;
  int prompts;
};

void run(benchmark::State& state, const std::string& engine, const Case& c) {
  phasesim::NiahSpec spec;
  spec.gates = c.gate;
  spec.context = c.context;
  if (c.dim > 0) {
    spec.dim = c.dim;
    spec.query_noise = 1;
  }
  spec.rms_norm = c.rms_norm;
  spec.prompts = c.prompts;
  const auto run = phasesim::make_run(spec);
  const auto engines = phasesim::builtin_engines();
  const auto& chosen = engines.find(engine);
  for (auto _ : state) benchmark::DoNotOptimize(chosen.run(run, phasesim::Parallel{1}));
  state.counters["trials/s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * run.needles.trials()), benchmark::Counter::kIsRate);
}

// W = 8, S = 4 throughout; L = 131072 unless the case is too slow for it.
void BM_FastChannel(benchmark::State& s) { run(s, "fast", {"last", 0, false, 131072, 256}); }
void BM_FastConditional(benchmark::State& s) { run(s, "fast", {"last", 64, false, 131072, 256}); }
void BM_FastConditionalRms(benchmark::State& s) {
  run(s, "fast", {"weights:0,0,0,0,1,2,3,4", 64, true, 131072, 256});
}
void BM_FastStreaming(benchmark::State& s) { run(s, "fast", {"uniform", 64, false, 8192, 16}); }
void BM_Full(benchmark::State& s) { run(s, "full", {"uniform", 64, false, 8192, 2}); }

}  // namespace

BENCHMARK(BM_FastChannel)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FastConditional)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FastConditionalRms)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FastStreaming)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Full)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
