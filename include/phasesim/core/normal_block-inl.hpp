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

/// Vectors of counters computed together: their independent rounds hide each other's latency.
inline constexpr int kBatch = 2;

struct PhiloxBatch {
  PhiloxLanes v[kBatch];
};

#if HWY_TARGET == HWY_SCALAR

/// One lane a vector: Random123's own Philox.
HWY_INLINE PhiloxBatch Philox(const RandomStream& stream, std::uint32_t index, std::uint32_t block,
                              bool over_index) {
  const WordTag du;
  PhiloxBatch batch;
  for (std::uint32_t k = 0; k < kBatch; ++k) {
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

/// Philox4x32-10 of kBatch vectors of counters, lane i of vector k being counter
/// (index + kN + i, block) when `over_index`, else (index, block + kN + i), N = Lanes; trial
/// and tag from the stream.
HWY_INLINE PhiloxBatch Philox(const RandomStream& stream, std::uint32_t index, std::uint32_t block,
                              bool over_index) {
  const WordTag du;
  const WideTag dw;
  const auto counter = stream.counter(index, block);
  const auto half = static_cast<std::uint64_t>(hn::Lanes(dw));
  WideCounters c[2 * kBatch];
  for (int k = 0; k < 2 * kBatch; ++k) {
    c[k] = {hn::Set(dw, counter[0]), hn::Set(dw, counter[1]), hn::Set(dw, counter[2]),
            hn::Set(dw, counter[3])};
    Wide& varying = over_index ? c[k].c0 : c[k].c1;
    varying = hn::Add(varying, hn::Iota(dw, static_cast<std::uint64_t>(k) * half));
  }
  Rounds(c, stream.key());
  const auto join = [&](Wide upper, Wide lower) {
    return hn::ConcatEven(du, hn::BitCast(du, upper), hn::BitCast(du, lower));
  };
  PhiloxBatch batch;
  for (int k = 0; k < kBatch; ++k) {
    const auto& lo = c[2 * k];
    const auto& hi = c[2 * k + 1];
    batch.v[k] = {join(hi.c0, lo.c0), join(hi.c1, lo.c1), join(hi.c2, lo.c2), join(hi.c3, lo.c3)};
  }
  return batch;
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

/// float_normal::log_unit, lane by lane.
HWY_INLINE Floats LogUnit(Floats u) {
  namespace fn = float_normal;
  const FloatTag df;
  const IntTag di;
  const auto bits = hn::BitCast(di, u);
  auto e = hn::Sub(hn::ShiftRight<23>(bits), hn::Set(di, 127));
  auto m_bits = hn::Or(hn::And(bits, hn::Set(di, 0x007FFFFF)), hn::Set(di, 0x3F800000));
  const auto above = hn::Gt(m_bits, hn::Set(di, static_cast<std::int32_t>(fn::kSqrt2Bits)));
  m_bits = hn::IfThenElse(above, hn::Sub(m_bits, hn::Set(di, 0x00800000)), m_bits);
  e = hn::IfThenElse(above, hn::Add(e, hn::Set(di, 1)), e);
  const auto f = hn::Sub(hn::BitCast(df, m_bits), hn::Set(df, 1.0f));
  const auto s = hn::Div(f, hn::Add(hn::Set(df, 2.0f), f));
  const auto z = hn::Mul(s, s);
  auto r = hn::Add(hn::Set(df, fn::kLog7), hn::Mul(z, hn::Set(df, fn::kLog9)));
  r = hn::Add(hn::Set(df, fn::kLog5), hn::Mul(z, r));
  r = hn::Mul(z, hn::Add(hn::Set(df, fn::kLog3), hn::Mul(z, r)));
  const auto half_f2 = hn::Mul(hn::Mul(hn::Set(df, 0.5f), f), f);
  const auto e_f = hn::ConvertTo(df, e);
  const auto correction =
      hn::Add(hn::Mul(s, hn::Add(half_f2, r)), hn::Mul(e_f, hn::Set(df, fn::kLn2Low)));
  return hn::Sub(hn::Mul(e_f, hn::Set(df, fn::kLn2High)), hn::Sub(hn::Sub(half_f2, correction), f));
}

/// float_normal::sincospi, lane by lane.
HWY_INLINE void SinCosPi(Floats a, Floats& sine, Floats& cosine) {
  namespace fn = float_normal;
  const FloatTag df;
  const IntTag di;
  const auto n = hn::Floor(hn::Add(hn::Mul(hn::Set(df, 2.0f), a), hn::Set(df, 0.5f)));
  const auto x = hn::Sub(a, hn::Mul(hn::Set(df, 0.5f), n));
  const auto x2 = hn::Mul(x, x);
  auto s = hn::Add(hn::Set(df, fn::kSin7), hn::Mul(x2, hn::Set(df, fn::kSin9)));
  s = hn::Add(hn::Set(df, fn::kSin5), hn::Mul(x2, s));
  s = hn::Add(hn::Set(df, fn::kSin3), hn::Mul(x2, s));
  s = hn::Mul(x, hn::Add(hn::Set(df, fn::kSin1), hn::Mul(x2, s)));
  auto c = hn::Add(hn::Set(df, fn::kCos8), hn::Mul(x2, hn::Set(df, fn::kCos10)));
  c = hn::Add(hn::Set(df, fn::kCos6), hn::Mul(x2, c));
  c = hn::Add(hn::Set(df, fn::kCos4), hn::Mul(x2, c));
  c = hn::Add(hn::Set(df, 1.0f), hn::Mul(x2, hn::Add(hn::Set(df, fn::kCos2), hn::Mul(x2, c))));
  const auto q = hn::And(hn::ConvertTo(di, n), hn::Set(di, 3));
  const auto swap = hn::RebindMask(df, hn::Eq(hn::And(q, hn::Set(di, 1)), hn::Set(di, 1)));
  const auto flip_sine = hn::RebindMask(df, hn::Eq(hn::And(q, hn::Set(di, 2)), hn::Set(di, 2)));
  const auto q1 = hn::And(hn::Add(q, hn::Set(di, 1)), hn::Set(di, 2));
  const auto flip_cosine = hn::RebindMask(df, hn::Eq(q1, hn::Set(di, 2)));
  sine = hn::IfThenElse(swap, c, s);
  cosine = hn::IfThenElse(swap, s, c);
  sine = hn::IfThenElse(flip_sine, hn::Neg(sine), sine);
  cosine = hn::IfThenElse(flip_cosine, hn::Neg(cosine), cosine);
}

/// float_normal::box_muller of every lane's words: x and y of each lane's pair.
HWY_INLINE void BoxMuller(const PhiloxLanes& w, float scale, Floats& x, Floats& y) {
  const FloatTag df;
  const IntTag di;
  const auto low =
      hn::Add(hn::Mul(WordsToFloat(w.w2), hn::Set(df, 0x1p-64f)), hn::Set(df, 0x1p-65f));
  const auto u = hn::Add(hn::Mul(WordsToFloat(w.w3), hn::Set(df, 0x1p-32f)), low);
  const auto a = hn::Add(hn::Mul(hn::ConvertTo(df, hn::BitCast(di, w.w1)), hn::Set(df, 0x1p-31f)),
                         hn::Set(df, 0x1p-32f));
  const auto radius =
      hn::Mul(hn::Sqrt(hn::Mul(hn::Set(df, -2.0f), LogUnit(u))), hn::Set(df, scale));
  Floats sine, cosine;
  SinCosPi(a, sine, cosine);
  x = hn::Mul(sine, radius);
  y = hn::Mul(cosine, radius);
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
/// from block b, kBatch vectors of blocks at a time.
HWY_INLINE void NormalRow(const RandomStream& stream, std::uint32_t index, int count, float scale,
                          float* HWY_RESTRICT out) {
  const auto step = 2 * static_cast<int>(hn::Lanes(FloatTag()));
  for (int c = 0; c < count; c += kBatch * step) {
    const auto batch = Philox(stream, index, static_cast<std::uint32_t>(c / 2), false);
    for (int k = 0; k < kBatch && c + k * step < count; ++k) {
      Floats x, y;
      BoxMuller(batch.v[k], scale, x, y);
      StorePairs(x, y, count - c - k * step, out + c + k * step);
    }
  }
}

/// out[2i + k] = scale * normal_pair(first_index + i, block)[k], for 2i + k < count.
HWY_INLINE void NormalSequence(const RandomStream& stream, std::uint32_t first_index,
                               std::uint32_t block, std::int64_t count, float scale,
                               float* HWY_RESTRICT out) {
  const auto step = 2 * static_cast<std::int64_t>(hn::Lanes(FloatTag()));
  for (std::int64_t v = 0; v < count; v += kBatch * step) {
    const auto batch = Philox(stream, first_index + static_cast<std::uint32_t>(v / 2), block, true);
    for (int k = 0; k < kBatch && v + k * step < count; ++k) {
      Floats x, y;
      BoxMuller(batch.v[k], scale, x, y);
      StorePairs(x, y, count - v - k * step, out + v + k * step);
    }
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace phasesim
HWY_AFTER_NAMESPACE();

#endif  // per-target include guard
