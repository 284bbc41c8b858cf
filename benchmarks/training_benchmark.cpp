// Steps per second of `phasesim train` at the target size (H = 8, W = 8, S = 4,
// d = 32, L = 2048, batch 16; the defaults), on 1 and 2 threads, and of the real compressor
// (issue 23: one cache, a gate per channel, 8 query heads with their own projections, d = 64):
//   build/phasesim_training_benchmark [--benchmark_filter=Step]
// 2,000 steps take 2000 / (steps/s) seconds. The context names the SIMD target of the block
// generator that draws the embeddings.
#include <benchmark/benchmark.h>

#include "benchmark_main.hpp"
#include "phasesim/training/train.hpp"

namespace {

// Trains `spec` for `steps` steps on state.range(0) threads, counting steps per second.
void time_training(benchmark::State& state, phasesim::training::LabSpec spec, int steps) {
  spec.steps = steps;
  spec.log_every = spec.record_every = spec.steps;
  spec.validate();
  const phasesim::Parallel parallel{static_cast<int>(state.range(0))};
  for (auto _ : state) benchmark::DoNotOptimize(phasesim::training::train_layer(spec, parallel));
  state.counters["steps/s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * spec.steps), benchmark::Counter::kIsRate);
}

void BM_TrainStep(benchmark::State& state) {
  time_training(state, {}, 10);  // the defaults are the target size
}

// One step at issue 23's size: W 8, S 4, d 64, one cache (H = 1) with a gate per channel (64
// channels), read by 8 query heads with their own query projections, L 2048, batch 16.
void BM_TrainStepRealCompressor(benchmark::State& state) {
  phasesim::training::LabSpec spec;
  auto& m = spec.model;
  m.heads = 1;
  m.dim = 64;
  m.per_channel = true;
  m.query_heads = 8;
  m.query_projection = true;
  time_training(state, spec, 1);
}

// One context's forward and backward pass, and drawing it, on one thread.
void BM_ContextGradient(benchmark::State& state) {
  const phasesim::training::LabSpec spec;
  const auto theta = phasesim::training::initial_parameters(spec);
  phasesim::training::LayerWorkspace workspace(spec.model);
  phasesim::training::LayerParameters gradient(spec.model);
  phasesim::training::draw_training_context(spec.model, 1, 0, 0, workspace.context);
  const auto context = workspace.context;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        phasesim::training::layer_loss(spec.model, theta, context, workspace, &gradient));
  }
}

void BM_DrawContext(benchmark::State& state) {
  const phasesim::training::LabSpec spec;
  phasesim::training::LayerWorkspace workspace(spec.model);
  std::uint32_t step = 0;
  for (auto _ : state) {
    phasesim::training::draw_training_context(spec.model, 1, step++, 0, workspace.context);
    benchmark::DoNotOptimize(workspace.context.tokens.data());
  }
}

}  // namespace

BENCHMARK(BM_TrainStep)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_TrainStepRealCompressor)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ContextGradient)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DrawContext)->Unit(benchmark::kMicrosecond);
int main(int argc, char** argv) {
  return phasesim::bench::benchmark_main(argc, argv, "phasesim_training_benchmark");
}
