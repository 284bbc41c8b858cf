// What the block generator would cost with one Philox word per normal instead of two (the
// floor behind issue 24's generator targets): two Box-Muller pairs a Philox4x32-10 call from
// 32-bit uniforms, u = w0 2^-32 + 2^-33 with the angle from w1, and the same from (w2, w3),
// as cuRAND's curand_normal4 draws them (a tail cut at 6.8 sigma, where the stream's 64-bit
// radius uniform reaches 9.5). Not the stream's bits: the same Philox batches and the same
// LogUnit and SinCosPi as normal_rows (normal_block-inl.hpp), so that the two differ only in
// words per normal. Highway compiles this file once per SIMD target.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "benchmarks/generator_one_word.cpp"
#include "generator_one_word.hpp"

#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include "phasesim/core/normal_block-inl.hpp"

HWY_BEFORE_NAMESPACE();
namespace phasesim {
namespace HWY_NAMESPACE {

/// u in (0, 1] from one word (at least 2^-33), as float_normal::uniform computes from two.
HWY_INLINE Floats OneWordUniform(Words w) {
  const FloatTag df;
  return hn::Add(hn::Mul(WordsToFloat(w), hn::Set(df, 0x1p-32f)), hn::Set(df, 0x1p-33f));
}

/// a in [-1, 1] from one word, as float_normal::signed_uniform.
HWY_INLINE Floats OneWordAngle(Words w) {
  const FloatTag df;
  const IntTag di;
  return hn::Add(hn::Mul(hn::ConvertTo(df, hn::BitCast(di, w)), hn::Set(df, 0x1p-31f)),
                 hn::Set(df, 0x1p-32f));
}

/// Both pairs of every lane of N vectors of words, their 2N chains interleaved as BoxMuller's
/// N (two passes of N were slower: 1.80 against 1.66 ns a normal on AVX2, AMD EPYC Zen 4).
template <int N>
HWY_INLINE void BoxMullerOneWord(const PhiloxLanes (&w)[N], float scale, Floats (&x)[2 * N],
                                 Floats (&y)[2 * N]) {
  const FloatTag df;
  Floats u[2 * N], a[2 * N], log_u[2 * N], sine[2 * N], cosine[2 * N];
  for (int i = 0; i < N; ++i) {
    u[2 * i] = OneWordUniform(w[i].w0);
    u[2 * i + 1] = OneWordUniform(w[i].w2);
    a[2 * i] = OneWordAngle(w[i].w1);
    a[2 * i + 1] = OneWordAngle(w[i].w3);
  }
  LogUnit(u, log_u);
  SinCosPi(a, sine, cosine);
  for (int i = 0; i < 2 * N; ++i) {
    const auto radius =
        hn::Mul(hn::Sqrt(hn::Mul(hn::Set(df, -2.0f), log_u[i])), hn::Set(df, scale));
    x[i] = hn::Mul(sine[i], radius);
    y[i] = hn::Mul(cosine[i], radius);
  }
}

void OneWordRows(const RandomStream& stream, std::uint32_t first_index, std::int64_t rows, int cols,
                 float scale, float* out) {
  const auto step = 2 * static_cast<int>(hn::Lanes(FloatTag()));
  for (std::int64_t r = 0; r < rows; ++r) {
    const auto index = first_index + static_cast<std::uint32_t>(r);
    float* row = out + r * cols;
    for (int c = 0; c < cols; c += 2 * kVectors * step) {
      const auto batch = Philox(stream, index, static_cast<std::uint32_t>(c / 4), false);
      Floats x[2 * kVectors], y[2 * kVectors];
      BoxMullerOneWord(batch.v, scale, x, y);
      for (int k = 0; k < 2 * kVectors && c + k * step < cols; ++k) {
        StorePairs(x[k], y[k], cols - c - k * step, row + c + k * step);
      }
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace phasesim
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace phasesim {

HWY_EXPORT(OneWordRows);

void reference::one_word_rows(const RandomStream& stream, std::uint32_t first_index,
                              std::int64_t rows, int cols, float scale, float* out) {
  HWY_DYNAMIC_DISPATCH(OneWordRows)(stream, first_index, rows, cols, scale, out);
}

}  // namespace phasesim
#endif
