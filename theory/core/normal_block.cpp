// The block generator's entry points: Highway compiles this file once per SIMD target
// (foreach_target) and HWY_DYNAMIC_DISPATCH calls the best one the CPU supports.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "theory/core/normal_block.cpp"
#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include "phasesim/core/normal_block-inl.hpp"

HWY_BEFORE_NAMESPACE();
namespace phasesim {
namespace HWY_NAMESPACE {

void NormalRows(const RandomStream& stream, std::uint32_t first_index, std::int64_t rows, int cols,
                float scale, float* out, std::int64_t stride) {
#if HWY_TARGET != HWY_SCALAR
  if (ShortRows(cols)) return NormalShortRows(stream, first_index, rows, cols, scale, out, stride);
#endif
  for (std::int64_t r = 0; r < rows; ++r) {
    NormalRow(stream, first_index + static_cast<std::uint32_t>(r), cols, scale, out + r * stride);
  }
}

void NormalSequenceEntry(const RandomStream& stream, std::uint32_t first_index, std::uint32_t block,
                         std::int64_t count, float scale, float* out) {
  NormalSequence(stream, first_index, block, count, scale, out);
}

void PhiloxRow(const RandomStream& stream, std::uint32_t index, std::uint32_t first_block,
               std::int64_t calls, std::uint32_t* out) {
  const WordTag du;
  const auto lanes = static_cast<std::int64_t>(hn::Lanes(du));
  HWY_ALIGN std::uint32_t words[4 * HWY_MAX_BYTES / sizeof(std::uint32_t)];
  for (std::int64_t i = 0; i < calls; i += kVectors * lanes) {
    const auto batch = Philox(stream, index, first_block + static_cast<std::uint32_t>(i), false);
    for (int k = 0; k < kVectors && i + k * lanes < calls; ++k) {
      const auto& w = batch.v[k];
      hn::StoreInterleaved4(w.w0, w.w1, w.w2, w.w3, du, words);
      const auto first = i + k * lanes;
      std::copy(words, words + 4 * std::min(lanes, calls - first), out + 4 * first);
    }
  }
}

void BoxMullerWords(const std::uint32_t* words, std::int64_t pairs, float scale, float* out) {
  const WordTag du;
  const auto lanes = static_cast<std::int64_t>(hn::Lanes(du));
  HWY_ALIGN std::uint32_t tail[4 * kVectors * HWY_MAX_BYTES / sizeof(std::uint32_t)];
  for (std::int64_t i = 0; i < pairs; i += kVectors * lanes) {
    const std::uint32_t* in = words + 4 * i;
    if (pairs - i < kVectors * lanes) {  // the last vectors: from a zero-padded copy
      std::fill(std::begin(tail), std::end(tail), 0u);
      std::copy(in, in + 4 * (pairs - i), tail);
      in = tail;
    }
    PhiloxLanes w[kVectors];
    for (int k = 0; k < kVectors; ++k) {
      hn::LoadInterleaved4(du, in + 4 * k * lanes, w[k].w0, w[k].w1, w[k].w2, w[k].w3);
    }
    Floats x[kVectors], y[kVectors];
    BoxMuller(w, scale, x, y);
    for (int k = 0; k < kVectors && i + k * lanes < pairs; ++k) {
      StorePairs(x[k], y[k], 2 * (pairs - i - k * lanes), out + 2 * (i + k * lanes));
    }
  }
}

const char* TargetName() { return hwy::TargetName(HWY_TARGET); }

}  // namespace HWY_NAMESPACE
}  // namespace phasesim
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace phasesim {

HWY_EXPORT(NormalRows);
HWY_EXPORT(NormalSequenceEntry);
HWY_EXPORT(PhiloxRow);
HWY_EXPORT(BoxMullerWords);
HWY_EXPORT(TargetName);

void normal_rows(const RandomStream& stream, std::uint32_t first_index, std::int64_t rows, int cols,
                 float scale, float* out, std::int64_t stride) {
  HWY_DYNAMIC_DISPATCH(NormalRows)(stream, first_index, rows, cols, scale, out, stride);
}

void normal_sequence(const RandomStream& stream, std::uint32_t first_index, std::uint32_t block,
                     std::int64_t count, float scale, float* out) {
  HWY_DYNAMIC_DISPATCH(NormalSequenceEntry)(stream, first_index, block, count, scale, out);
}

void philox_row(const RandomStream& stream, std::uint32_t index, std::uint32_t first_block,
                std::int64_t calls, std::uint32_t* out) {
  HWY_DYNAMIC_DISPATCH(PhiloxRow)(stream, index, first_block, calls, out);
}

void box_muller_words(const std::uint32_t* words, std::int64_t pairs, float scale, float* out) {
  HWY_DYNAMIC_DISPATCH(BoxMullerWords)(words, pairs, scale, out);
}

std::string simd_target() { return HWY_DYNAMIC_DISPATCH(TargetName)(); }

}  // namespace phasesim
#endif
