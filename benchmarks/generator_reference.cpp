// Compiled with -O3 -ffast-math -fopenmp-simd (benchmarks/CMakeLists.txt): -ffast-math is what
// lets GCC call libmvec's vector logf, sinf and cosf from a vectorized loop. Each function is
// compiled for its instruction set by a target attribute; the loop bodies are shared.
#include "generator_reference.hpp"

#include <cmath>

namespace phasesim::reference {
namespace {

constexpr std::uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
constexpr std::uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
constexpr std::uint32_t kKey0 = 0x12345678u, kKey1 = 0x9ABCDEF0u;

// Random123's Philox4x32-10 round by round: hi and lo of two 32 x 32 -> 64-bit products.
inline __attribute__((always_inline)) void philox_loop(std::uint32_t first, std::int64_t calls,
                                                       std::uint32_t* words) {
#pragma omp simd
  for (std::int64_t i = 0; i < calls; ++i) {
    std::uint32_t c0 = first + static_cast<std::uint32_t>(i), c1 = 0, c2 = 0, c3 = 0;
    std::uint32_t k0 = kKey0, k1 = kKey1;
    for (int round = 0; round < 10; ++round) {
      const std::uint64_t p0 = std::uint64_t{kM0} * c0;
      const std::uint64_t p1 = std::uint64_t{kM1} * c2;
      c0 = static_cast<std::uint32_t>(p1 >> 32) ^ c1 ^ k0;
      c2 = static_cast<std::uint32_t>(p0 >> 32) ^ c3 ^ k1;
      c1 = static_cast<std::uint32_t>(p1);
      c3 = static_cast<std::uint32_t>(p0);
      k0 += kW0;
      k1 += kW1;
    }
    words[4 * i] = c0;
    words[4 * i + 1] = c1;
    words[4 * i + 2] = c2;
    words[4 * i + 3] = c3;
  }
}

// float_normal.hpp's uniforms and radius, with libmvec's logf and sinf/cosf of pi a.
inline __attribute__((always_inline)) void box_muller_loop(const std::uint32_t* words,
                                                           std::int64_t pairs, float* x, float* y) {
#pragma omp simd
  for (std::int64_t i = 0; i < pairs; ++i) {
    const float low = static_cast<float>(words[4 * i + 2]) * 0x1p-64f + 0x1p-65f;
    const float u = static_cast<float>(words[4 * i + 3]) * 0x1p-32f + low;
    const float a =
        static_cast<float>(static_cast<std::int32_t>(words[4 * i + 1])) * 0x1p-31f + 0x1p-32f;
    const float radius = std::sqrt(-2.0f * std::log(u));
    const float angle = 3.14159265f * a;
    x[i] = radius * std::sin(angle);
    y[i] = radius * std::cos(angle);
  }
}

}  // namespace

__attribute__((target("avx2,fma"))) void philox_avx2(std::uint32_t first, std::int64_t calls,
                                                     std::uint32_t* words) {
  philox_loop(first, calls, words);
}

__attribute__((target("avx512f,avx512dq,avx512vl,avx512bw"))) void philox_avx512(
    std::uint32_t first, std::int64_t calls, std::uint32_t* words) {
  philox_loop(first, calls, words);
}

__attribute__((target("avx2,fma"))) void box_muller_avx2(const std::uint32_t* words,
                                                         std::int64_t pairs, float* x, float* y) {
  box_muller_loop(words, pairs, x, y);
}

__attribute__((target("avx512f,avx512dq,avx512vl,avx512bw"))) void box_muller_avx512(
    const std::uint32_t* words, std::int64_t pairs, float* x, float* y) {
  box_muller_loop(words, pairs, x, y);
}

bool runs_avx2() { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }

bool runs_avx512() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512bw");
}

}  // namespace phasesim::reference
