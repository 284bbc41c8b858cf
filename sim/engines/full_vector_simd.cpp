// The full engine's SIMD scan: Highway compiles this file once per SIMD target
// (foreach_target) and full_vector_argmax_simd dispatches to the best one the CPU supports.
// SimdOps is FloatOps (full_vector.hpp) in vectors: key rows from the block generator, and
// entry logits whose per-component sums run in FloatOps's order, 16 partial sums spread over
// 16 / N vectors of N lanes and reduced by the same tree.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "sim/engines/full_vector_simd.cpp"
#include "phasesim/engines/full_vector_simd.hpp"

#include <hwy/foreach_target.h>  // must come before highway.h
#include <hwy/highway.h>

#include "phasesim/core/normal_block-inl.hpp"

HWY_BEFORE_NAMESPACE();
namespace phasesim::engines {
namespace HWY_NAMESPACE {

// The block generator's per-target code (core's), with its Highway alias hn.
using namespace phasesim::HWY_NAMESPACE;

using LogitTag = hn::CappedTag<float, kReduceLanes>;
using LogitVec = hn::Vec<LogitTag>;
constexpr int kLogitLanes = static_cast<int>(hn::MaxLanes(LogitTag()));
constexpr int kGroups = kReduceLanes / kLogitLanes;  // vectors that hold the 16 partial sums

/// The lanes of v added by halving (lane l + lane l + N/2, ...): the last steps of
/// reduce_lanes' tree.
template <class D>
HWY_INLINE float HalveToOne(D, hn::Vec<D> v) {
#if HWY_TARGET == HWY_SCALAR  // one lane, and no UpperHalf
  return hn::GetLane(v);
#else
  if constexpr (hn::MaxLanes(D()) == 1) {
    return hn::GetLane(v);
  } else {
    const hn::Half<D> half;
    return HalveToOne(half, hn::Add(hn::LowerHalf(half, v), hn::UpperHalf(half, v)));
  }
#endif
}

/// reduce_lanes of the 16 partial sums held by sums[0..kGroups): group k holds sums
/// kN..kN+N-1, so the tree's first steps add whole vectors, the rest halve the last one.
HWY_INLINE float ReduceLanes(LogitVec (&sums)[kGroups]) {
  for (int width = kGroups / 2; width > 0; width /= 2) {
    for (int k = 0; k < width; ++k) sums[k] = hn::Add(sums[k], sums[k + width]);
  }
  return HalveToOne(LogitTag(), sums[0]);
}

#if HWY_TARGET != HWY_SCALAR
// An entry's new keys (S of them, when the gate weights their slots) for d up to a Philox
// batch's pairs, several to a batch. Out of line: inlined into key_rows, it slowed the
// row-by-row loop there by 10 to 20% (one key an entry: the gate `last`, d 64).
HWY_NOINLINE void ShortKeyRows(const RandomStream& stream, std::int64_t first, int rows, int dim,
                               double scale, float* out, int row) {
  NormalShortRows(stream, static_cast<std::uint32_t>(first), rows, dim, static_cast<float>(scale),
                  out, row);
}
#endif

struct SimdOps {
  using Real = float;
  static int row_size(int dim) { return FloatOps::row_size(dim); }

  static void key_rows(const RandomStream& stream, std::int64_t first, int rows, int dim,
                       double scale, Strided<float> out, int row) {
#if HWY_TARGET != HWY_SCALAR
    if (rows > 1 && ShortRows(dim)) {
      ShortKeyRows(stream, first, rows, dim, scale, out.data, row);
      return;
    }
#endif
    for (int r = 0; r < rows; ++r) {
      NormalRow(stream, static_cast<std::uint32_t>(first + r), dim, static_cast<float>(scale),
                out.data + static_cast<std::int64_t>(r) * row);
    }
  }

  static float content(const RandomStream& stream, std::int64_t t) {
    return FloatOps::content(stream, t);
  }

  static float entry_logit(const FullVectorHead& head, const ScanWorkspace<float>& ws,
                           EntryWeights<float> w, std::int64_t first) {
    const LogitTag d;
    const int W = head.geometry.window;
    const int base = ring_row(first, W);
    const int older = head.older_slots();
    LogitVec dots[kGroups], squares[kGroups];
    for (int k = 0; k < kGroups; ++k) dots[k] = squares[k] = hn::Zero(d);
    for (int c0 = 0, k = 0; c0 < ws.row; c0 += kLogitLanes, k = k + 1 == kGroups ? 0 : k + 1) {
      auto pooled = hn::Zero(d);
      for (int s = 0, r = base; s < W; ++s, r = ring_next(r, W)) {
        if (w.slots[s] == 0) continue;
        const float* ring = s < older ? ws.older_keys.data : ws.keys.data;
        const auto key = hn::LoadU(d, ring + static_cast<std::int64_t>(r) * ws.row + c0);
        const auto weight =
            w.per_channel()
                ? hn::LoadU(d, w.channels.data + static_cast<std::int64_t>(s) * ws.row + c0)
                : hn::Set(d, w.slots[s]);
        pooled = hn::Add(pooled, hn::Mul(weight, key));
      }
      dots[k] = hn::Add(dots[k], hn::Mul(hn::LoadU(d, ws.query.data + c0), pooled));
      squares[k] = hn::Add(squares[k], hn::Mul(pooled, pooled));
    }
    const float logit = ReduceLanes(dots);
    return head.rms_norm ? FloatOps::rms_scaled(logit, ReduceLanes(squares), head.dim) : logit;
  }
};

niah::Argmax Scan(const FullVectorHead& head, std::uint64_t seed, std::uint32_t trial,
                  std::uint32_t head_index, std::int64_t needle, std::int64_t begin,
                  std::int64_t end, const ScanWorkspace<float>& ws) {
  return scan_full_vector<SimdOps>(head, seed, trial, head_index, needle, begin, end, ws);
}

float EntryLogit(const FullVectorHead& head, const ScanWorkspace<float>& ws,
                 EntryWeights<float> weights, std::int64_t first) {
  return SimdOps::entry_logit(head, ws, weights, first);
}

void ReadScan(const FullVectorHead& head, const FullVectorRead& read, std::uint64_t seed,
              std::uint32_t trial, std::uint32_t head_index, ReadQueries scales, std::int64_t begin,
              std::int64_t end, const ScanWorkspace<float>& ws,
              const ScanWorkspace<float>& index_ws, float* attention, double* score) {
  scan_read_entries<SimdOps>(head, read, seed, trial, head_index, scales, begin, end, ws, index_ws,
                             attention, score);
}

}  // namespace HWY_NAMESPACE
}  // namespace phasesim::engines
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace phasesim::engines {

HWY_EXPORT(Scan);
HWY_EXPORT(EntryLogit);
HWY_EXPORT(ReadScan);

niah::Argmax full_vector_argmax_simd(const FullVectorHead& head, std::uint64_t seed,
                                     std::uint32_t trial, std::uint32_t head_index,
                                     std::int64_t needle, std::int64_t begin, std::int64_t end,
                                     const ScanWorkspace<float>& ws) {
  return HWY_DYNAMIC_DISPATCH(Scan)(head, seed, trial, head_index, needle, begin, end, ws);
}

void full_vector_read_simd(const FullVectorHead& head, const FullVectorRead& read,
                           std::uint64_t seed, std::uint32_t trial, std::uint32_t head_index,
                           ReadQueries scales, std::int64_t begin, std::int64_t end,
                           const ScanWorkspace<float>& ws, const ScanWorkspace<float>& index_ws,
                           float* attention, double* score) {
  HWY_DYNAMIC_DISPATCH(ReadScan)
  (head, read, seed, trial, head_index, scales, begin, end, ws, index_ws, attention, score);
}

float full_vector_entry_logit_simd(const FullVectorHead& head, const ScanWorkspace<float>& ws,
                                   EntryWeights<float> weights, std::int64_t first) {
  return HWY_DYNAMIC_DISPATCH(EntryLogit)(head, ws, weights, first);
}

}  // namespace phasesim::engines
#endif
