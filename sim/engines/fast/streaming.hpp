#pragma once
// What the streaming paths share: the sweep over every entry of a trial, and the numbers it
// reads by index from the block generator, drawn a batch at a time.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "phasesim/core/normal_block.hpp"
#include "phasesim/core/random.hpp"
#include "phasesim/engines/full_vector.hpp"
#include "phasesim/niah/report.hpp"

namespace phasesim::engines::fast {

/// Positions a PositionDraws batch holds (its batch is 2 * blocks * this many floats).
inline constexpr int kPositionsPerBatch = 128;

/// The indices [first, first + span) of the batch a sweep reads now. Every number is keyed by
/// its index, so where a batch starts does not change the numbers, only when they are drawn.
class BatchRange {
 public:
  explicit BatchRange(std::int64_t span) : span_(span) {}
  std::int64_t span() const { return span_; }
  bool holds(std::int64_t index) const { return index >= first_ && index < first_ + span_; }
  void start_at(std::int64_t first) { first_ = first; }
  std::int64_t offset(std::int64_t index) const { return index - first_; }

 private:
  std::int64_t span_;
  // No batch drawn yet: no index lies inside, so the first call draws (-1 would put index 0
  // inside and read the previous trial's numbers).
  std::int64_t first_ = std::numeric_limits<std::int64_t>::min();
};

/// What a sweep over increasing indices reads, from the block generator a batch at a time (its
/// float normals, RandomStream::normal_pair_float): row(i)[c] = normal(i, c), c < cols.
class RowNormals {
 public:
  RowNormals(const RandomStream& stream, int cols, std::vector<float>& batch)
      : stream_(stream),
        cols_(cols),
        range_(static_cast<std::int64_t>(batch.size()) / cols),
        batch_(batch) {}
  const float* operator()(std::int64_t index) {
    if (!range_.holds(index)) {
      range_.start_at(index);
      normal_rows(stream_, static_cast<std::uint32_t>(index), range_.span(), cols_, 1.0f,
                  batch_.data(), cols_);
    }
    return batch_.data() + range_.offset(index) * cols_;
  }

 private:
  RandomStream stream_;
  int cols_;
  BatchRange range_;
  std::vector<float>& batch_;
};

/// Scalars keyed by position, value(t) = normal_pair(t / 2, block)[t % 2], likewise.
class PositionNormals {
 public:
  PositionNormals(const RandomStream& stream, std::uint32_t block, std::vector<float>& batch)
      : stream_(stream),
        block_(block),
        range_(static_cast<std::int64_t>(batch.size())),
        batch_(batch) {}
  double operator()(std::int64_t t) {
    if (!range_.holds(t)) {
      range_.start_at(t - t % 2);  // a pair's two numbers come together
      normal_sequence(stream_, static_cast<std::uint32_t>(t / 2), block_, range_.span(), 1.0f,
                      batch_.data());
    }
    return batch_[static_cast<std::size_t>(range_.offset(t))];
  }

 private:
  RandomStream stream_;
  std::uint32_t block_;
  BatchRange range_;
  std::vector<float>& batch_;
};

/// The normals of a position, normal(p, c) = normal_pair_float(p, c / 2)[c % 2], drawn for a
/// batch of positions block by block, so that the block generator runs at its full width over
/// positions whatever the few blocks a position needs (streaming-rms, streaming-channels).
class PositionDraws {
 public:
  PositionDraws(const RandomStream& stream, int blocks, std::vector<float>& batch)
      : stream_(stream),
        blocks_(blocks),
        range_(static_cast<std::int64_t>(batch.size()) / (2 * blocks)),
        batch_(batch) {}
  const RandomStream& stream() const { return stream_; }

  /// The normals of one position: row[c] = normal(p, c).
  struct Row {
    const float* first;  ///< normal(p, 0)
    std::int64_t block_stride;
    double operator[](int c) const { return first[(c / 2) * block_stride + c % 2]; }
  };
  Row row(std::int64_t p) {
    if (!range_.holds(p)) draw_from(p);
    return {batch_.data() + 2 * range_.offset(p), 2 * range_.span()};
  }

 private:
  void draw_from(std::int64_t p) {
    range_.start_at(p);
    for (int b = 0; b < blocks_; ++b) {
      normal_sequence(stream_, static_cast<std::uint32_t>(p), static_cast<std::uint32_t>(b),
                      2 * range_.span(), 1.0f, batch_.data() + 2 * b * range_.span());
    }
  }

  RandomStream stream_;
  int blocks_;
  BatchRange range_;
  std::vector<float>& batch_;
};

/// The argmax over entries 0..entries-1 of logit(j), after draw(p) for each position of entry j
/// that no earlier entry held and some entry weights, in order: the streaming paths' sweep.
template <class Draw, class Logit>
niah::Argmax stream_entries(const Geometry& g, const double* weights, std::int64_t entries,
                            Draw draw, Logit logit) {
  niah::Argmax best;
  std::int64_t next = 0;  // first position not drawn yet
  for (std::int64_t j = 0; j < entries; ++j) {
    const std::int64_t first = g.position(j, 0);
    for (std::int64_t p = std::max({next, first, std::int64_t{0}}); p < first + g.window; ++p) {
      if (position_weighted(g, weights, static_cast<int>(p - first))) draw(p);
    }
    next = first + g.window;
    best.offer(j, logit(j));
  }
  return best;
}

}  // namespace phasesim::engines::fast
