#pragma once
// The block generator at one Philox word per normal (generator_one_word.cpp): a measured
// alternative for benchmarks/generator_benchmark.cpp, not the stream's bits.
#include <cstdint>

#include "phasesim/core/random.hpp"

namespace phasesim::reference {

/// `rows` rows of `cols` normals times `scale` (out[r * cols + c]), row r from Philox counters
/// (first_index + r, b), two pairs a call, on the best SIMD target the dispatch allows.
void one_word_rows(const RandomStream& stream, std::uint32_t first_index, std::int64_t rows,
                   int cols, float scale, float* out);

}  // namespace phasesim::reference
