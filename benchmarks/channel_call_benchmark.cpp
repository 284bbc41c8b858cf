// The C++ side of benchmarks/python_overhead.py: one `channel` document per iteration, the
// call phasesim.channel makes (validation, quadrature, document) without Python around it.
#include <benchmark/benchmark.h>

#include <vector>

#include "phasesim/channel/channel.hpp"

namespace {

// The arguments python_overhead.py passes to phasesim.channel.
void BM_ChannelDocument(benchmark::State& state) {
  const std::vector<double> u{1.0};
  for (auto _ : state) {
    benchmark::DoNotOptimize(phasesim::channel::channel_document(5.0, u, 32768));
  }
}
BENCHMARK(BM_ChannelDocument)->Iterations(10000);

}  // namespace

BENCHMARK_MAIN();
