#pragma once
// The block generator (MODEL.md section 4, "Random numbers"): many float normals of one
// RandomStream at once, Philox4x32-10 over a vector of counters and Box-Muller in float, in
// SIMD with runtime dispatch (Google Highway: the same binary runs at its best on SSE4, AVX2,
// AVX-512 and NEON). It keeps RandomStream's counter layout: the words of (index, block) are
// RandomStream::bits(index, block) and each pair is RandomStream::normal_pair_float, bit for
// bit on every target, which is RandomStream::normal_pair to float rounding.
#include <cstdint>
#include <string>

#include "phasesim/core/random.hpp"

namespace phasesim {

/// `rows` normal vectors of consecutive indices, `cols` components each:
/// out[r * stride + c] = scale * normal(first_index + r, c), pair b filling components 2b and
/// 2b + 1 (the layout of key vectors). Components cols..stride-1 are left untouched.
void normal_rows(const RandomStream& stream, std::uint32_t first_index, std::int64_t rows, int cols,
                 float scale, float* out, std::int64_t stride);

/// One block over consecutive indices (the layout of per-position scalars):
/// out[2i + k] = scale * normal_pair(first_index + i, block)[k], for 2i + k < count.
void normal_sequence(const RandomStream& stream, std::uint32_t first_index, std::uint32_t block,
                     std::int64_t count, float scale, float* out);

/// The Philox words of (index, first_block + i), i < calls: out[4i + k] = bits(...)[k]. For
/// tests: the block generator's counters against RandomStream::bits.
void philox_row(const RandomStream& stream, std::uint32_t index, std::uint32_t first_block,
                std::int64_t calls, std::uint32_t* out);

/// Box-Muller alone on given Philox words (four per pair, as philox_row writes them):
/// out[2i + k] = scale * (the pair of words[4i..4i + 3])[k], i < pairs; normal_rows draws the
/// same pairs from the same words. For the benchmark that times the two halves of the
/// generator apart, and for tests.
void box_muller_words(const std::uint32_t* words, std::int64_t pairs, float scale, float* out);

/// The SIMD instruction set the dispatch picked on this CPU ("AVX3", "AVX2", "SSE4", "NEON",
/// "EMU128" for the portable fallback, ...).
std::string simd_target();

}  // namespace phasesim
