// The block generator's SIMD code for one Highway target (MODEL.md section 4, "Random
// numbers"): Philox4x32-10 over a vector of counters, then Box-Muller in float exactly as
// float_normal.hpp writes it, operation for operation, so every target (SSE4, AVX2, AVX-512,
// NEON, the scalar fallback) gives the scalar code's bits. Included once per target by
// Highway's foreach_target (theory/core/normal_block.cpp dispatches it; the full engine's
// SIMD scan inlines it), hence the per-target include guard instead of #pragma once.
#if defined(PHASESIM_NORMAL_BLOCK_INL_HPP_) == defined(HWY_TARGET_TOGGLE)
#ifdef PHASESIM_NORMAL_BLOCK_INL_HPP_
#undef PHASESIM_NORMAL_BLOCK_INL_HPP_
#else
#define PHASESIM_NORMAL_BLOCK_INL_HPP_
#endif

#include <hwy/highway.h>

#include <algorithm>
#include <cstdint>

#include "phasesim/core/float_normal.hpp"
#include "phasesim/core/random.hpp"

HWY_BEFORE_NAMESPACE();
namespace phasesim {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using FloatTag = hn::ScalableTag<float>;
using WordTag = hn::RebindToUnsigned<FloatTag>;
using IntTag = hn::RebindToSigned<FloatTag>;
using Words = hn::Vec<WordTag>;
using Floats = hn::Vec<FloatTag>;

/// Four vectors of Philox words: lane i holds the words of counter i.
struct PhiloxLanes {
  Words w0, w1, w2, w3;
};

/// Random123's Philox4x32-10 constants: round multipliers and key increments.
inline constexpr std::uint32_t kPhiloxM0 = 0xD2511F53u, kPhiloxM1 = 0xCD9E8D57u;
inline constexpr std::uint32_t kPhiloxW0 = 0x9E3779B9u, kPhiloxW1 = 0xBB67AE85u;

/// Vectors of counters a Philox call computes with their rounds interleaved, and vectors of
/// pairs Box-Muller then transforms together, statement by statement: independent chains fill
/// each other's waits (one vector's log, then square root, is a chain longer than the CPU's
/// scheduler holds). Two need 16 vector registers for the counters alone (four 64-bit halves
/// of four words), which x86 has only with AVX-512 (32 registers); below it the compiler
/// spilled them to the stack in every round, so one vector there. Measured with
/// benchmarks/generator_benchmark.cpp on an AMD EPYC (ns per normal, normal_rows): AVX-512
/// 1.59 -> 1.33 with two vectors in Box-Muller; AVX2 3.34 -> 2.84 with one (3.3 to 3.5 with
/// two, Box-Muller's gain lost to Philox's spills). Neither changes a number.
#if HWY_ARCH_X86 && HWY_TARGET > HWY_AVX3
inline constexpr int kVectors = 1;
#else
inline constexpr int kVectors = 2;
#endif

struct PhiloxBatch {
  PhiloxLanes v[kVectors];
};

#if HWY_TARGET == HWY_SCALAR

/// One lane a vector: Random123's own Philox.
HWY_INLINE PhiloxBatch Philox(const RandomStream& stream, std::uint32_t index, std::uint32_t block,
                              bool over_index) {
  const WordTag du;
  PhiloxBatch batch;
  for (std::uint32_t k = 0; k < kVectors; ++k) {
    const auto w = stream.bits(index + (over_index ? k : 0), block + (over_index ? 0 : k));
    batch.v[k] = {hn::Set(du, w[0]), hn::Set(du, w[1]), hn::Set(du, w[2]), hn::Set(du, w[3])};
  }
  return batch;
}

#else

using WideTag = hn::Repartition<std::uint64_t, WordTag>;
using Wide = hn::Vec<WideTag>;

/// Half of a vector's counters, one per 64-bit lane with the word in its low 32 bits: a 32 x 32
/// -> 64-bit multiply (MulEven) then gives lo in place and hi by one shift, and the upper 32
/// bits are never read (MulEven and the low half of Xor3 ignore them).
struct WideCounters {
  Wide c0, c1, c2, c3;
};

/// The ten rounds of every counter set in c[0..kSets), interleaved.
template <int kSets>
HWY_INLINE void Rounds(WideCounters (&c)[kSets], RandomStream::Philox::key_type key) {
  const WordTag du;
  const WideTag dw;
  const auto m0 = hn::Set(du, kPhiloxM0);
  const auto m1 = hn::Set(du, kPhiloxM1);
  for (int round = 0; round < 10; ++round) {
    const auto k0 = hn::Set(dw, key[0]);
    const auto k1 = hn::Set(dw, key[1]);
    for (auto& x : c) {
      const auto p0 = hn::MulEven(hn::BitCast(du, x.c0), m0);
      const auto p1 = hn::MulEven(hn::BitCast(du, x.c2), m1);
      x.c0 = hn::Xor3(hn::ShiftRight<32>(p1), x.c1, k0);
      x.c1 = p1;
      x.c2 = hn::Xor3(hn::ShiftRight<32>(p0), x.c3, k1);
      x.c3 = p0;
    }
    key[0] += kPhiloxW0;
    key[1] += kPhiloxW1;
  }
}

/// The counters' offsets from (index, block), one per 64-bit lane of a wide vector.
struct CounterOffsets {
  Wide index, block;
};

/// Philox4x32-10 of kVectors vectors of counters: wide vector m (the lower, then the upper
/// half of vector m / 2) holds counters (index + o.index, block + o.block) for o = offsets(m);
/// trial and tag from the stream.
template <class Offsets>
HWY_INLINE PhiloxBatch PhiloxAt(const RandomStream& stream, std::uint32_t index,
                                std::uint32_t block, const Offsets& offsets) {
  const WordTag du;
  const WideTag dw;
  const auto counter = stream.counter(index, block);
  WideCounters c[2 * kVectors];
  for (int m = 0; m < 2 * kVectors; ++m) {
    const CounterOffsets o = offsets(m);
    c[m] = {hn::Add(hn::Set(dw, counter[0]), o.index), hn::Add(hn::Set(dw, counter[1]), o.block),
            hn::Set(dw, counter[2]), hn::Set(dw, counter[3])};
  }
  Rounds(c, stream.key());
  const auto join = [&](Wide upper, Wide lower) {
    return hn::ConcatEven(du, hn::BitCast(du, upper), hn::BitCast(du, lower));
  };
  PhiloxBatch batch;
  for (int k = 0; k < kVectors; ++k) {
    const auto& lo = c[2 * k];
    const auto& hi = c[2 * k + 1];
    batch.v[k] = {join(hi.c0, lo.c0), join(hi.c1, lo.c1), join(hi.c2, lo.c2), join(hi.c3, lo.c3)};
  }
  return batch;
}

/// Philox4x32-10 of kVectors vectors of counters, lane i of vector k being counter
/// (index + kN + i, block) when `over_index`, else (index, block + kN + i), N = Lanes; trial
/// and tag from the stream.
HWY_INLINE PhiloxBatch Philox(const RandomStream& stream, std::uint32_t index, std::uint32_t block,
                              bool over_index) {
  const WideTag dw;
  const auto half = static_cast<std::uint64_t>(hn::Lanes(dw));
  return PhiloxAt(stream, index, block, [&](int m) {
    const auto step = hn::Iota(dw, static_cast<std::uint64_t>(m) * half);
    return over_index ? CounterOffsets{step, hn::Zero(dw)} : CounterOffsets{hn::Zero(dw), step};
  });
}

#endif

/// Correctly rounded uint32 -> float, from two exact int32 conversions and one rounded sum
/// (what static_cast<float> gives on the CPU and __uint2float_rn on a GPU).
HWY_INLINE Floats WordsToFloat(Words v) {
  const FloatTag df;
  const IntTag di;
  const WordTag du;
  const auto high = hn::ConvertTo(df, hn::BitCast(di, hn::ShiftRight<8>(v)));
  const auto low = hn::ConvertTo(df, hn::BitCast(di, hn::And(v, hn::Set(du, 0xFFu))));
  return hn::Add(hn::Mul(high, hn::Set(df, 256.0f)), low);
}

/// float_normal::log_unit, lane by lane, of N vectors: every statement is a loop over the N,
/// so that the unrolled code interleaves their independent chains (kVectors).
template <int N>
HWY_INLINE void LogUnit(const Floats (&u)[N], Floats (&out)[N]) {
  namespace fn = float_normal;
  const FloatTag df;
  const IntTag di;
  hn::Vec<IntTag> e[N], m_bits[N];
  Floats f[N], s[N], z[N], r[N], half_f2[N], e_f[N];
  for (int i = 0; i < N; ++i) {
    const auto bits = hn::BitCast(di, u[i]);
    e[i] = hn::Sub(hn::ShiftRight<23>(bits), hn::Set(di, 127));
    m_bits[i] = hn::Or(hn::And(bits, hn::Set(di, 0x007FFFFF)), hn::Set(di, 0x3F800000));
  }
  for (int i = 0; i < N; ++i) {
    const auto above = hn::Gt(m_bits[i], hn::Set(di, static_cast<std::int32_t>(fn::kSqrt2Bits)));
    m_bits[i] = hn::IfThenElse(above, hn::Sub(m_bits[i], hn::Set(di, 0x00800000)), m_bits[i]);
    e[i] = hn::IfThenElse(above, hn::Add(e[i], hn::Set(di, 1)), e[i]);
  }
  for (int i = 0; i < N; ++i) f[i] = hn::Sub(hn::BitCast(df, m_bits[i]), hn::Set(df, 1.0f));
  for (int i = 0; i < N; ++i) s[i] = hn::Div(f[i], hn::Add(hn::Set(df, 2.0f), f[i]));
  for (int i = 0; i < N; ++i) z[i] = hn::Mul(s[i], s[i]);
  for (int i = 0; i < N; ++i)
    r[i] = hn::Add(hn::Set(df, fn::kLog7), hn::Mul(z[i], hn::Set(df, fn::kLog9)));
  for (int i = 0; i < N; ++i) r[i] = hn::Add(hn::Set(df, fn::kLog5), hn::Mul(z[i], r[i]));
  for (int i = 0; i < N; ++i) {
    r[i] = hn::Mul(z[i], hn::Add(hn::Set(df, fn::kLog3), hn::Mul(z[i], r[i])));
  }
  for (int i = 0; i < N; ++i) half_f2[i] = hn::Mul(hn::Mul(hn::Set(df, 0.5f), f[i]), f[i]);
  for (int i = 0; i < N; ++i) e_f[i] = hn::ConvertTo(df, e[i]);
  for (int i = 0; i < N; ++i) {
    const auto correction = hn::Add(hn::Mul(s[i], hn::Add(half_f2[i], r[i])),
                                    hn::Mul(e_f[i], hn::Set(df, fn::kLn2Low)));
    out[i] = hn::Sub(hn::Mul(e_f[i], hn::Set(df, fn::kLn2High)),
                     hn::Sub(hn::Sub(half_f2[i], correction), f[i]));
  }
}

/// float_normal::sincospi, lane by lane, of N vectors interleaved as LogUnit's.
template <int N>
HWY_INLINE void SinCosPi(const Floats (&a)[N], Floats (&sine)[N], Floats (&cosine)[N]) {
  namespace fn = float_normal;
  const FloatTag df;
  const IntTag di;
  Floats n[N], x[N], x2[N], s[N], c[N];
  for (int i = 0; i < N; ++i) {
    n[i] = hn::Floor(hn::Add(hn::Mul(hn::Set(df, 2.0f), a[i]), hn::Set(df, 0.5f)));
  }
  for (int i = 0; i < N; ++i) x[i] = hn::Sub(a[i], hn::Mul(hn::Set(df, 0.5f), n[i]));
  for (int i = 0; i < N; ++i) x2[i] = hn::Mul(x[i], x[i]);
  for (int i = 0; i < N; ++i) {
    s[i] = hn::Add(hn::Set(df, fn::kSin7), hn::Mul(x2[i], hn::Set(df, fn::kSin9)));
    c[i] = hn::Add(hn::Set(df, fn::kCos8), hn::Mul(x2[i], hn::Set(df, fn::kCos10)));
  }
  for (int i = 0; i < N; ++i) {
    s[i] = hn::Add(hn::Set(df, fn::kSin5), hn::Mul(x2[i], s[i]));
    c[i] = hn::Add(hn::Set(df, fn::kCos6), hn::Mul(x2[i], c[i]));
  }
  for (int i = 0; i < N; ++i) {
    s[i] = hn::Add(hn::Set(df, fn::kSin3), hn::Mul(x2[i], s[i]));
    c[i] = hn::Add(hn::Set(df, fn::kCos4), hn::Mul(x2[i], c[i]));
  }
  for (int i = 0; i < N; ++i) {
    s[i] = hn::Mul(x[i], hn::Add(hn::Set(df, fn::kSin1), hn::Mul(x2[i], s[i])));
    c[i] = hn::Add(hn::Set(df, 1.0f),
                   hn::Mul(x2[i], hn::Add(hn::Set(df, fn::kCos2), hn::Mul(x2[i], c[i]))));
  }
  for (int i = 0; i < N; ++i) {
    const auto q = hn::And(hn::ConvertTo(di, n[i]), hn::Set(di, 3));
    const auto swap = hn::RebindMask(df, hn::Eq(hn::And(q, hn::Set(di, 1)), hn::Set(di, 1)));
    const auto flip_sine = hn::RebindMask(df, hn::Eq(hn::And(q, hn::Set(di, 2)), hn::Set(di, 2)));
    const auto q1 = hn::And(hn::Add(q, hn::Set(di, 1)), hn::Set(di, 2));
    const auto flip_cosine = hn::RebindMask(df, hn::Eq(q1, hn::Set(di, 2)));
    sine[i] = hn::IfThenElse(swap, c[i], s[i]);
    cosine[i] = hn::IfThenElse(swap, s[i], c[i]);
    sine[i] = hn::IfThenElse(flip_sine, hn::Neg(sine[i]), sine[i]);
    cosine[i] = hn::IfThenElse(flip_cosine, hn::Neg(cosine[i]), cosine[i]);
  }
}

/// float_normal::box_muller of every lane's words in N vectors: x and y of each lane's pair.
template <int N>
HWY_INLINE void BoxMuller(const PhiloxLanes (&w)[N], float scale, Floats (&x)[N], Floats (&y)[N]) {
  const FloatTag df;
  const IntTag di;
  Floats u[N], a[N], log_u[N], sine[N], cosine[N];
  for (int i = 0; i < N; ++i) {
    const auto low =
        hn::Add(hn::Mul(WordsToFloat(w[i].w2), hn::Set(df, 0x1p-64f)), hn::Set(df, 0x1p-65f));
    u[i] = hn::Add(hn::Mul(WordsToFloat(w[i].w3), hn::Set(df, 0x1p-32f)), low);
    a[i] = hn::Add(hn::Mul(hn::ConvertTo(df, hn::BitCast(di, w[i].w1)), hn::Set(df, 0x1p-31f)),
                   hn::Set(df, 0x1p-32f));
  }
  LogUnit(u, log_u);
  SinCosPi(a, sine, cosine);
  for (int i = 0; i < N; ++i) {
    const auto radius =
        hn::Mul(hn::Sqrt(hn::Mul(hn::Set(df, -2.0f), log_u[i])), hn::Set(df, scale));
    x[i] = hn::Mul(sine[i], radius);
    y[i] = hn::Mul(cosine[i], radius);
  }
}

/// Stores the first `count` values of the interleaved pairs (x0, y0, x1, y1, ...).
HWY_INLINE void StorePairs(Floats x, Floats y, std::int64_t count, float* out) {
  const FloatTag df;
  const auto lanes = static_cast<std::int64_t>(hn::Lanes(df));
  if (count >= 2 * lanes) {
    hn::StoreInterleaved2(x, y, df, out);
    return;
  }
  HWY_ALIGN float pairs[2 * HWY_MAX_BYTES / sizeof(float)];
  hn::StoreInterleaved2(x, y, df, pairs);
  std::copy(pairs, pairs + count, out);
}

/// out[c] = scale * normal(index, c) to float rounding, c < count: components 2b and 2b + 1
/// from block b, kVectors vectors of blocks at a time.
HWY_INLINE void NormalRow(const RandomStream& stream, std::uint32_t index, int count, float scale,
                          float* HWY_RESTRICT out) {
  const auto step = 2 * static_cast<int>(hn::Lanes(FloatTag()));
  for (int c = 0; c < count; c += kVectors * step) {
    const auto batch = Philox(stream, index, static_cast<std::uint32_t>(c / 2), false);
    Floats x[kVectors], y[kVectors];
    BoxMuller(batch.v, scale, x, y);
    for (int k = 0; k < kVectors && c + k * step < count; ++k) {
      StorePairs(x[k], y[k], count - c - k * step, out + c + k * step);
    }
  }
}

#if HWY_TARGET != HWY_SCALAR

/// Whether NormalShortRows applies: at least two rows of `cols` fit a Philox batch.
HWY_INLINE bool ShortRows(int cols) {
  const auto batch_pairs = static_cast<int>(kVectors * hn::Lanes(WordTag()));
  return 2 * ((cols + 1) / 2) <= batch_pairs;
}

/// NormalRow of rows first_index .. first_index + rows - 1 (out[r * stride + c]) for rows that
/// ShortRows accepts, several to a Philox batch: lane p draws pair p % P of row p / P (P pairs
/// a row), the counters NormalRow gives that pair. Row by row, a batch of 2 kVectors N normals
/// would draw d and discard the rest (at d = 8 on AVX-512, 7 of 8).
HWY_INLINE void NormalShortRows(const RandomStream& stream, std::uint32_t first_index,
                                std::int64_t rows, int cols, float scale, float* HWY_RESTRICT out,
                                std::int64_t stride) {
  const FloatTag df;
  const WordTag du;
  const WideTag dw;
  const auto lanes = hn::Lanes(df), half = hn::Lanes(dw);
  const auto pairs = static_cast<std::uint32_t>((cols + 1) / 2);
  // p / P as (p M) >> 20, M = 2^20 / P + 1, in registers: exact while p (M - 2^20 / P) < 2^20 / P,
  // true for p below a batch (at most 2^10 pairs) and P at most half of it. A table written per
  // call was slower (BM_NormalRows/AVX3, cols 8: 1.76 against 1.59 ns a normal).
  constexpr int kShift = 20;
  const std::uint32_t magic = (1u << kShift) / pairs + 1;
  const auto divide = [&](Wide p) {
    return hn::ShiftRight<kShift>(hn::MulEven(hn::BitCast(du, p), hn::Set(du, magic)));
  };
  const auto per_batch = static_cast<std::int64_t>((kVectors * lanes * magic) >> kShift);
  const auto offsets = [&](int m) {  // lane p: pair p % P of row p / P
    const auto p = hn::Iota(dw, static_cast<std::uint64_t>(m) * half);
    const auto row = divide(p);
    return CounterOffsets{row, hn::Sub(p, hn::MulEven(hn::BitCast(du, row), hn::Set(du, pairs)))};
  };
  HWY_ALIGN float normals[2 * kVectors * HWY_MAX_BYTES / sizeof(float)];
  for (std::int64_t r = 0; r < rows; r += per_batch) {
    // The lanes past per_batch rows draw pairs of the next row, never stored.
    const auto batch = PhiloxAt(stream, first_index + static_cast<std::uint32_t>(r), 0, offsets);
    Floats x[kVectors], y[kVectors];
    BoxMuller(batch.v, scale, x, y);
    for (int k = 0; k < kVectors; ++k) {
      hn::StoreInterleaved2(x[k], y[k], df, normals + 2 * k * lanes);
    }
    for (std::int64_t i = 0; i < std::min(per_batch, rows - r); ++i) {
      std::copy_n(normals + 2 * i * pairs, cols, out + (r + i) * stride);
    }
  }
}

#endif

/// out[2i + k] = scale * normal_pair(first_index + i, block)[k], for 2i + k < count.
HWY_INLINE void NormalSequence(const RandomStream& stream, std::uint32_t first_index,
                               std::uint32_t block, std::int64_t count, float scale,
                               float* HWY_RESTRICT out) {
  const auto step = 2 * static_cast<std::int64_t>(hn::Lanes(FloatTag()));
  for (std::int64_t v = 0; v < count; v += kVectors * step) {
    const auto batch = Philox(stream, first_index + static_cast<std::uint32_t>(v / 2), block, true);
    Floats x[kVectors], y[kVectors];
    BoxMuller(batch.v, scale, x, y);
    for (int k = 0; k < kVectors && v + k * step < count; ++k) {
      StorePairs(x[k], y[k], count - v - k * step, out + v + k * step);
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace phasesim
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
