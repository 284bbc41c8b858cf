// The block generator's floor on every SIMD target this CPU runs (issue 24): Philox4x32-10
// words per second and Box-Muller normals per second measured apart, the two together as
// normal_rows draws them, and a reference for each: the same work auto-vectorized by GCC with
// glibc's vector math (generator_reference.cpp), for AVX2 and AVX-512, and normal_rows at one
// Philox word per normal instead of two (generator_one_word.cpp). Each case reports the time
// per word or per normal (ns/word, ns/normal):
//   build/phasesim_benchmarks --benchmark_filter='Philox|BoxMuller|NormalRows'
#include "generator_benchmark.hpp"

#include <benchmark/benchmark.h>
#include <hwy/targets.h>

#include <cstdint>
#include <string>
#include <vector>

#include "generator_one_word.hpp"
#include "generator_reference.hpp"
#include "phasesim/core/normal_block.hpp"
#include "phasesim/core/random.hpp"

namespace phasesim {
namespace {

constexpr std::int64_t kPairs = 4096;  // a call's pairs: 64 KiB of words, 32 KiB of normals

// Per item processed, in ns: what the targets are stated in.
void per_item(benchmark::State& state, const char* name, std::int64_t items_per_iteration) {
  state.counters[name] =
      benchmark::Counter(static_cast<double>(state.iterations() * items_per_iteration) * 1e-9,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// Runs `body` with the dispatch pinned to `target`, then restores the normal dispatch.
template <typename Body>
void on_target(std::int64_t target, Body body) {
  hwy::SetSupportedTargetsForTest(target);
  body();
  hwy::SetSupportedTargetsForTest(0);
}

std::vector<std::uint32_t> words_of(const RandomStream& stream) {
  std::vector<std::uint32_t> words(4 * kPairs);
  philox_row(stream, 0, 0, kPairs, words.data());
  return words;
}

void philox(benchmark::State& state, std::int64_t target) {
  on_target(target, [&] {
    const RandomStream stream(1, 0, 0, Stream::key);
    std::vector<std::uint32_t> words(4 * kPairs);
    std::uint32_t index = 0;
    for (auto _ : state) {
      philox_row(stream, index++, 0, kPairs, words.data());
      benchmark::DoNotOptimize(words.data());
    }
    per_item(state, "ns/word", 4 * kPairs);
  });
}

void box_muller(benchmark::State& state, std::int64_t target) {
  on_target(target, [&] {
    const auto words = words_of(RandomStream(1, 0, 0, Stream::key));
    std::vector<float> out(2 * kPairs);
    for (auto _ : state) {
      box_muller_words(words.data(), kPairs, 0.125f, out.data());
      benchmark::DoNotOptimize(out.data());
    }
    per_item(state, "ns/normal", 2 * kPairs);
  });
}

// 64 rows of `cols` (the benchmark's argument) of standard normals, draw(stream, first_index,
// cols, out) drawing each iteration's, with the last rows' mean square as a counter: near 1
// when the rows are normals, not idle lanes.
template <typename Draw>
void rows_case(benchmark::State& state, std::int64_t target, Draw draw) {
  on_target(target, [&] {
    const RandomStream keys(1, 0, 0, Stream::key);
    const auto cols = static_cast<int>(state.range(0));
    std::vector<float> rows(static_cast<std::size_t>(64 * cols));
    std::uint32_t first = 0;
    for (auto _ : state) {
      draw(keys, first, cols, rows.data());
      first += 64;
      benchmark::DoNotOptimize(rows.data());
    }
    per_item(state, "ns/normal", 64 * std::int64_t{cols});
    double square = 0;
    for (const float v : rows) square += double{v} * v;
    state.counters["mean_square"] = square / static_cast<double>(rows.size());
  });
}

// normal_rows as the engines call it, both halves together (cols: the full engine's d = 64
// keys, the training lab's d = 16 tokens, the fast engine's W = 8 slots).
void normal_rows_case(benchmark::State& state, std::int64_t target) {
  rows_case(state, target, [](const RandomStream& keys, std::uint32_t first, int cols, float* out) {
    normal_rows(keys, first, 64, cols, 1.0f, out, cols);
  });
}

// The same rows at one Philox word per normal (generator_one_word.cpp): what the stream's
// definition costs against the cheapest Philox and Box-Muller allow.
void one_word_rows_case(benchmark::State& state, std::int64_t target) {
  rows_case(state, target, [](const RandomStream& keys, std::uint32_t first, int cols, float* out) {
    reference::one_word_rows(keys, first, 64, cols, 1.0f, out);
  });
}

using ReferencePhilox = void (*)(std::uint32_t, std::int64_t, std::uint32_t*);
using ReferenceBoxMuller = void (*)(const std::uint32_t*, std::int64_t, float*, float*);

void reference_philox(benchmark::State& state, ReferencePhilox run) {
  std::vector<std::uint32_t> words(4 * kPairs);
  std::uint32_t first = 0;
  for (auto _ : state) {
    run(first, kPairs, words.data());
    first += kPairs;
    benchmark::DoNotOptimize(words.data());
  }
  per_item(state, "ns/word", 4 * kPairs);
}

void reference_box_muller(benchmark::State& state, ReferenceBoxMuller run) {
  const auto words = words_of(RandomStream(1, 0, 0, Stream::key));
  std::vector<float> x(kPairs), y(kPairs);
  for (auto _ : state) {
    run(words.data(), kPairs, x.data(), y.data());
    benchmark::DoNotOptimize(x.data());
    benchmark::DoNotOptimize(y.data());
  }
  per_item(state, "ns/normal", 2 * kPairs);
}

}  // namespace

void register_generator_benchmarks() {
  for (const std::int64_t target : hwy::SupportedAndGeneratedTargets()) {
    const std::string name = hwy::TargetName(target);
    benchmark::RegisterBenchmark(("BM_Philox/" + name).c_str(), philox, target);
    benchmark::RegisterBenchmark(("BM_BoxMuller/" + name).c_str(), box_muller, target);
    benchmark::RegisterBenchmark(("BM_NormalRows/" + name).c_str(), normal_rows_case, target)
        ->ArgName("cols")
        ->Arg(256)
        ->Arg(64)
        ->Arg(16)
        ->Arg(8);
    // At 64 columns an AVX-512 batch (128 normals) draws twice the row: 256 is its figure.
    benchmark::RegisterBenchmark(("BM_NormalRows/one_word_" + name).c_str(), one_word_rows_case,
                                 target)
        ->ArgName("cols")
        ->Arg(256)
        ->Arg(64);
  }
  // Highway 1.0.3's SupportedTargets (under SupportedAndGeneratedTargets) sets the dispatch to
  // the best target the CPU has, ignoring a limit (PHASESIM_SIMD_TARGET): the other cases
  // then ran at AVX-512 under a limit to AVX2. Resetting the mock re-reads the limit.
  hwy::SetSupportedTargetsForTest(0);
  if (reference::runs_avx2()) {
    benchmark::RegisterBenchmark("BM_Philox/reference_AVX2", reference_philox,
                                 reference::philox_avx2);
    benchmark::RegisterBenchmark("BM_BoxMuller/reference_AVX2", reference_box_muller,
                                 reference::box_muller_avx2);
  }
  if (reference::runs_avx512()) {
    benchmark::RegisterBenchmark("BM_Philox/reference_AVX3", reference_philox,
                                 reference::philox_avx512);
    benchmark::RegisterBenchmark("BM_BoxMuller/reference_AVX3", reference_box_muller,
                                 reference::box_muller_avx512);
  }
}

}  // namespace phasesim
