// Micro-benchmarks, one thread each (the ratios against NumPy, the RNG floor and two threads
// come from benchmarks/compare-numpy.py, which runs BM_FullTrial and BM_RngFloor from here):
//   build/phasesim_benchmarks [--benchmark_filter=Fast]
// The protocol of the full-engine cases is the issue's: W = 8, S = 4, uniform gate,
// L = 131072, d = 64, query noise 1.47.
#include <benchmark/benchmark.h>

#include <cmath>
#include <string>
#include <vector>

#include "benchmark_main.hpp"
#include "generator_benchmark.hpp"
#include "phasesim/core/normal_block.hpp"
#include "phasesim/engines/full_vector_simd.hpp"
#include "phasesim/engines/plan.hpp"

namespace {

using namespace phasesim;
using namespace phasesim::engines;
using namespace phasesim::niah;

struct Case {
  std::string gate;
  int dim;  ///< 0: standardized channel
  bool rms_norm;
  std::int64_t context;
  int prompts;
};

void run(benchmark::State& state, const std::string& engine, const Case& c) {
  NiahSpec spec;
  spec.gates = c.gate;
  spec.context = c.context;
  if (c.dim > 0) {
    spec.dim = c.dim;
    spec.query_noise = 1;
  }
  spec.rms_norm = c.rms_norm;
  spec.prompts = c.prompts;
  const auto engines = builtin_engines();
  const auto plan = prepare(spec, engines.find(engine), 1);
  for (auto _ : state) benchmark::DoNotOptimize(run_engine(plan, Parallel{1}));
  state.counters["trials/s"] =
      benchmark::Counter(static_cast<double>(state.iterations() * plan.run().needles.trials()),
                         benchmark::Counter::kIsRate);
}

// W = 8, S = 4 throughout; L = 131072 unless the case is too slow for it.
void BM_FastChannel(benchmark::State& s) { run(s, "fast", {"last", 0, false, 131072, 256}); }
void BM_FastConditional(benchmark::State& s) { run(s, "fast", {"last", 64, false, 131072, 256}); }
void BM_FastConditionalRms(benchmark::State& s) {
  run(s, "fast", {"weights:0,0,0,0,1,2,3,4", 64, true, 131072, 256});
}
void BM_FastStreaming(benchmark::State& s) { run(s, "fast", {"uniform", 64, false, 8192, 16}); }
// W = 8, S = 4, uniform gate (shared tokens), L = 131072, --rms-norm: the streaming-rms path at
// d = range(0), whose cost per trial should not depend on d.
void BM_FastStreamingRms(benchmark::State& s) {
  run(s, "fast", {"uniform", static_cast<int>(s.range(0)), true, 131072, 8});
}
void BM_Full(benchmark::State& s) { run(s, "full", {"uniform", 64, false, 8192, 2}); }

// The read path (MODEL.md section 10) at L = 2^20 with the 128-token window, V4's CSA gate and
// k = range(0): fast's trials per second, whose cost must not grow with k (k = 512 within 2x of
// k = 1), and analytic's time per phase (both a needle far from the query and one inside the
// window), which should stay under 10 ms at k = 512.
NiahSpec read_path_spec(std::int64_t k) {
  NiahSpec spec;
  spec.gates = "channels:onehot:7=0.033013|uniform=0.966987";
  spec.beta = 11.6944;
  spec.split_rho = 0;
  spec.context = std::int64_t{1} << 20;
  spec.prompts = 2048;
  spec.read.top_k = k;
  spec.read.sliding_window = 128;
  return spec;
}
void BM_FastReadPath(benchmark::State& s) {
  const auto engines = builtin_engines();
  const auto plan = prepare(read_path_spec(s.range(0)), engines.find("fast"), 1);
  for (auto _ : s) benchmark::DoNotOptimize(run_engine(plan, Parallel{1}));
  s.counters["trials/s"] =
      benchmark::Counter(static_cast<double>(s.iterations() * plan.run().needles.trials()),
                         benchmark::Counter::kIsRate);
}
void BM_AnalyticReadPath(benchmark::State& s) {
  const auto engines = builtin_engines();
  const auto plan = prepare(read_path_spec(s.range(0)), engines.find("analytic"), 1);
  for (auto _ : s) benchmark::DoNotOptimize(run_engine(plan, Parallel{1}));
  const auto phases = static_cast<double>(plan.run().model.geometry(0).stride);
  s.counters["phases/s"] =
      benchmark::Counter(static_cast<double>(s.iterations()) * phases, benchmark::Counter::kIsRate);
}

// Whole models (docs/MODEL.md section 11) at L = 131072, 8 groups, one thread: the stacks of
// presets/, and one layer alone for the Monte Carlo cost a layer adds. range(0) indexes
// kStacks. The analytic engine computes alike layers once (v4-flash: its 21 CSA layers one
// computation, its 20 HCA layers another), so `niah --arch v4-flash --engine analytic` must
// stay under 1 s. The fast engine scans a shared cache once for every layer that reads it
// (v41-flash: 4 caches for 38 layers), but layers with their own caches are independent
// draws: v4-flash costs its 41 caches.
const std::vector<std::pair<std::string, std::string>> kStacks = {
    {"v4-flash", "v4-flash"},
    {"v41-flash", "v41-flash"},
    {"v4-pro", "v4-pro"},
    {"one v4-flash CSA layer", R"([[layer]]
window = 8
stride = 4
split_rho = 0
query_heads = 64
channels = [{ gate = "onehot:7", share = 0.033013 }, { gate = "uniform", share = 0.966987 }]
index_gate = "uniform"
top_k = 512
sliding_window = 128
sink = 0)"},
    {"one v41-flash compressor layer", R"([[layer]]
window = 2
stride = 2
query_heads = 64
gate = "uniform"
index_gate = "uniform"
top_k = 512
sliding_window = 128
sink = 0)"},
};
NiahSpec stack_spec(std::int64_t index, int prompts) {
  const auto& [name, source] = kStacks[static_cast<std::size_t>(index)];
  NiahSpec spec;
  spec.architecture = source.starts_with("[[layer]]") ? parse_architecture(source, name + ".toml")
                                                      : load_architecture(source);
  spec.beta = 8;
  spec.context = 131072;
  spec.groups = 8;
  spec.prompts = prompts;
  return spec;
}
void stack_case(benchmark::State& s, const std::string& engine, int prompts) {
  const auto engines = builtin_engines();
  const auto plan = prepare(stack_spec(s.range(0), prompts), engines.find(engine), 1);
  s.SetLabel(kStacks[static_cast<std::size_t>(s.range(0))].first);
  for (auto _ : s) benchmark::DoNotOptimize(run_engine(plan, Parallel{1}));
  s.counters["trials/s"] =
      benchmark::Counter(static_cast<double>(s.iterations() * plan.run().needles.trials()),
                         benchmark::Counter::kIsRate);
}
void BM_AnalyticStack(benchmark::State& s) { stack_case(s, "analytic", 256); }
void BM_FastStack(benchmark::State& s) { stack_case(s, "fast", 16); }

// The protocol's head and a float scan workspace for it.
struct Protocol {
  static constexpr int kDim = 64;
  static constexpr std::int64_t kContext = 131072;
  std::vector<double> gate = std::vector<double>(8, 1.0 / 8);
  FullVectorHead head{{8, 4}, gate.data(), kContext / 4, kDim, 1.47, 0.0, false};
  int row = FloatOps::row_size(kDim);
  std::vector<float> reals =
      std::vector<float>(static_cast<std::size_t>(ScanWorkspace<float>::reals(8, row, {})));
  std::vector<double> doubles =
      std::vector<double>(static_cast<std::size_t>(ScanWorkspace<float>::doubles(8)));
  ScanWorkspace<float> ws = ScanWorkspace<float>::carve(reals.data(), doubles.data(), 8, row, {});
};

// Pooling: one entry's logit from a ring of W = 8 keys (d = 64, uniform gate, RMS norm).
void BM_EntryLogit(benchmark::State& state) {
  Protocol p;
  p.head.rms_norm = true;
  normal_rows(RandomStream(1, 0, 0, Stream::key), 0, 9, 64, 0.125f, p.ws.keys.data, p.row);
  const std::vector<float> weights(8, 1.0f / 8);
  const EntryWeights<float> w{{const_cast<float*>(weights.data()), 1}, {}};
  std::int64_t first = 0;
  for (auto _ : state)
    benchmark::DoNotOptimize(full_vector_entry_logit_simd(p.head, p.ws, w, first++));
  state.counters["entries/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

// One trial of the protocol: the full engine's scan of all 32768 entries.
void BM_FullTrial(benchmark::State& state) {
  Protocol p;
  std::uint32_t trial = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        full_vector_argmax_simd(p.head, 1, trial++, 0, 65536, 0, p.head.entries, p.ws));
  }
  state.counters["trials/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

// The RNG floor of that trial: the same normals (all L keys and the query's two rows) from the
// same generator, 64 rows a call into a reused buffer, and nothing else.
void BM_RngFloor(benchmark::State& state) {
  const int d = Protocol::kDim;
  const auto scale = static_cast<float>(1 / std::sqrt(static_cast<double>(d)));
  std::vector<float> rows(64 * d);
  std::uint32_t trial = 0;
  for (auto _ : state) {
    const RandomStream keys(1, trial, 0, Stream::key);
    const RandomStream noise(1, trial++, 0, Stream::query_noise);
    normal_rows(keys, 65536, 1, d, scale, rows.data(), d);
    normal_rows(noise, 65536, 1, d, scale, rows.data(), d);
    for (std::uint32_t t = 0; t < Protocol::kContext; t += 64) {
      normal_rows(keys, t, 64, d, scale, rows.data(), d);
      benchmark::DoNotOptimize(rows.data());
    }
  }
  state.counters["trials/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(BM_FastChannel)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FastConditional)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FastConditionalRms)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FastStreaming)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FastStreamingRms)->Arg(64)->Arg(512)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Full)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FastReadPath)->Arg(1)->Arg(512)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AnalyticReadPath)->Arg(512)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AnalyticStack)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FastStack)->DenseRange(0, 4)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EntryLogit)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_FullTrial)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RngFloor)->Unit(benchmark::kMillisecond);

// The generator's cases per SIMD target besides the ones above.
int main(int argc, char** argv) {
  return phasesim::bench::benchmark_main(argc, argv, "phasesim_benchmarks",
                                         phasesim::register_generator_benchmarks);
}
