// What diagnose costs, on one thread: the per-phase success by the channel's quadrature
// against the channel's fast integral and spline, a whole one-head fit and the period tests
// of a V4-like table (8 groups of 256 prompts, W = 8, S = 4, N = 32768), and a node of the
// 2-token fit's tables: the read of a 2-token needle, exact (the engine's) against the table
// accuracy, under top-k 512 with a 128-token window at N = 32768 (args: W, phase, exact 1 /
// table 0; W = S = 4: phase 0 one entry, 3 two; W 8 / S 4: phase 0 two, 3 three).
//   build/phasesim_diagnose_benchmarks
#include <benchmark/benchmark.h>

#include <vector>

#include "phasesim/channel/channel.hpp"
#include "phasesim/channel/needle_read.hpp"
#include "phasesim/channel/success_curve.hpp"
#include "phasesim/diagnose/fit.hpp"
#include "phasesim/stats/period.hpp"

namespace {

using namespace phasesim;
using namespace phasesim::channel;
using namespace phasesim::diagnose;
using namespace phasesim::stats;

constexpr double kBeta = 9.5;
constexpr std::int64_t kEntries = 32768;
constexpr PhaseSlots kSlots{2, 1};  // W = 8, S = 4, the phase's weight on one slot

// The success at 33 weights from 0 to 1, as a fit's scan needs it.
void BM_ChannelQuadrature(benchmark::State& state) {
  for (auto _ : state) {
    for (int i = 0; i <= 32; ++i) {
      const std::vector<double> u{i / 32.0, 0.0};
      benchmark::DoNotOptimize(success_probability(kBeta, u, kEntries));
    }
  }
}

void BM_DiagnoseIntegral(benchmark::State& state) {
  for (auto _ : state) {
    for (int i = 0; i <= 32; ++i) {
      benchmark::DoNotOptimize(phase_success_at(kSlots, i / 32.0, kBeta, kEntries));
    }
  }
}

void BM_SuccessCurveSpline(benchmark::State& state) {
  const SuccessCurve curve(kSlots, kBeta, kEntries);
  for (auto _ : state) {
    for (int i = 0; i <= 32; ++i) benchmark::DoNotOptimize(curve(i / 32.0));
  }
}

// The V4-like table of experiments/v4-calibration (seed 4), pooled into its 4 phases.
FitInput v4_phases() {
  FitInput input;
  input.entries = kEntries;
  const std::vector<std::int64_t> successes{136, 157, 133, 350};
  for (auto y : successes) input.phases.push_back({y, 512, kSlots});
  return input;
}

void BM_FitOneHead(benchmark::State& state) {
  const auto input = v4_phases();
  for (auto _ : state) benchmark::DoNotOptimize(fit_one_head(input, Parallel{1}));
}

void BM_PeriodTests(benchmark::State& state) {
  std::vector<GroupCount> table;
  const std::vector<std::int64_t> successes{68, 76, 64, 171, 68, 81, 69, 179};
  for (int g = 0; g < 8; ++g) table.push_back({g, successes[static_cast<std::size_t>(g)], 256});
  for (auto _ : state) benchmark::DoNotOptimize(test_periods(table, PeriodOptions{}, Parallel{1}));
}

void BM_TokenRead(benchmark::State& state) {
  const auto window = static_cast<int>(state.range(0));
  const Geometry geometry{window, 4};
  Gate gate;
  gate.spec = "bench";
  for (int s = 0; s < window; ++s) gate.weights.push_back(0.4 - 0.1 * (s % 4));
  HeadRead read;
  read.entries = kEntries;
  read.top_k = 512;
  read.sliding_window = 128;
  read.beta = read.index_beta = 5;
  const auto stages =
      needle_stages(geometry, gate, gate, read, static_cast<int>(state.range(1)), 2);
  const auto accuracy = state.range(2) != 0 ? ReadAccuracy::exact : ReadAccuracy::table;
  for (auto _ : state) benchmark::DoNotOptimize(needle_read_values(stages, accuracy));
}

}  // namespace

BENCHMARK(BM_TokenRead)
    ->Args({4, 0, 1})
    ->Args({4, 0, 0})
    ->Args({4, 3, 1})
    ->Args({4, 3, 0})
    ->Args({8, 0, 1})
    ->Args({8, 0, 0})
    ->Args({8, 3, 1})
    ->Args({8, 3, 0})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ChannelQuadrature)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DiagnoseIntegral)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SuccessCurveSpline)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FitOneHead)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PeriodTests)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
