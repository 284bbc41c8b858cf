#pragma once
// A reference for the block generator's floor (benchmarks/generator_benchmark.cpp): the same
// Philox4x32-10 and Box-Muller written as plain loops, vectorized by GCC with glibc's vector
// math (libmvec's logf, sinf, cosf). Not the generator's bits (libmvec's results depend on the
// target); the same work, done as a straightforward SIMD implementation would do it.
#include <cstdint>

namespace phasesim::reference {

/// Philox4x32-10 of counters (first + i, 0, 0, 0) under one key: words[4i + k], i < calls.
void philox_avx2(std::uint32_t first, std::int64_t calls, std::uint32_t* words);
void philox_avx512(std::uint32_t first, std::int64_t calls, std::uint32_t* words);

/// Box-Muller of those words: x[i], y[i] from words[4i + 1..3] as the generator uses them.
void box_muller_avx2(const std::uint32_t* words, std::int64_t pairs, float* x, float* y);
void box_muller_avx512(const std::uint32_t* words, std::int64_t pairs, float* x, float* y);

/// Whether this CPU runs the AVX2 (with FMA) and the AVX-512 versions.
bool runs_avx2();
bool runs_avx512();

}  // namespace phasesim::reference
