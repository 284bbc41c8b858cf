#pragma once
// The entries of a scan that are still being pooled, under RMS normalization, without d-vectors
// (sim/ENGINES.md, "The streaming-rms path"). Given the query's direction e, a key (times
// sqrt(d)) is a e + r with a ~ N(0, 1) and r ~ N(0, I_D) in the D = d - 1 dimensions orthogonal
// to e. An entry pools A e + R, and its normalized logit needs only A and |R|^2. The open
// entries' R vectors are kept as coordinates in an orthonormal frame of a small subspace: a new
// position's r has iid N(0, 1) coordinates in the frame and a remainder orthogonal to it whose
// squared length is chi^2 with D - k degrees of freedom, in a direction that becomes the
// frame's next axis. Rotational invariance makes this exact: future r's are isotropic and
// independent of the past, so only inner products, which the coordinates keep, matter.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "phasesim/core/portable_math.hpp"

namespace phasesim::engines {

class PooledFrame {
 public:
  /// Entries pooled in `space` = D dimensions, at most `max_open` open at once, in a frame of at
  /// most `capacity` axes, 1 <= capacity <= space (the caller compresses a full frame first).
  PooledFrame(int space, int capacity, int max_open)
      : space_(space),
        capacity_(capacity),
        along_(static_cast<std::size_t>(max_open)),
        log_scale_(static_cast<std::size_t>(max_open)),
        weights_(static_cast<std::size_t>(max_open)),
        coords_(static_cast<std::size_t>(max_open) * static_cast<std::size_t>(capacity)),
        reflector_(static_cast<std::size_t>(capacity)) {}

  /// The pooled vector of an entry: A = its projection on e, |R|^2 the rest's squared length.
  struct Pooled {
    double along;
    double across_squared;
  };

  /// k: the frame's axes, i.e. how many coordinates a new position's r has in it.
  int dimension() const { return k_; }
  int open_entries() const { return open_; }
  /// True when adding a position needs a compress first: no axis left for its remainder.
  bool full() const { return k_ == capacity_ && capacity_ < space_; }
  /// Whether a new position has a remainder outside the frame (false once it spans the space).
  bool has_remainder() const { return k_ < space_; }

  /// Forgets every entry: the frame of a new trial.
  void clear() {
    open_ = 0;
    k_ = 0;
  }

  /// A new entry (the newest), with A = 0 and R = 0.
  void open() {
    along_[static_cast<std::size_t>(open_)] = 0;
    log_scale_[static_cast<std::size_t>(open_)] = kNoWeight;
    std::fill_n(row(open_), capacity_, 0.0);
    ++open_;
  }

  /// Adds weights[i] (a e + r) to open entry i (oldest first), r with coordinates z[0..k) in the
  /// frame and `remainder` along a new axis orthogonal to it (unread when the frame spans the
  /// space), which then joins the frame.
  void add(const double* weights, double a, const double* z, double remainder) {
    const bool grows = has_remainder();
    for (int i = 0; i < open_; ++i) {
      const double w = weights[i];
      if (w == 0) continue;
      along_[static_cast<std::size_t>(i)] += w * a;
      double* r = row(i);
      for (int c = 0; c < k_; ++c) r[c] += w * z[c];
      if (grows) r[k_] += w * remainder;
    }
    if (grows) ++k_;
  }

  /// As add, with the weights given by their logarithms (kNoWeight: none), as content noise
  /// makes them: g_s exp(tau xi) overflows a double for large tau. Each entry keeps its weights
  /// relative to the largest it has taken, rescaling what it holds when a larger one comes (the
  /// softmax's running maximum), which changes its length but not its direction: only the
  /// direction (Pooled's cosine) is read.
  void add_logs(const double* log_weights, double a, const double* z, double remainder) {
    for (int i = 0; i < open_; ++i) {
      const auto e = static_cast<std::size_t>(i);
      if (log_weights[i] > log_scale_[e]) {
        if (log_scale_[e] != kNoWeight)
          scale_entry(i, portable::exp(log_scale_[e] - log_weights[i]));
        log_scale_[e] = log_weights[i];
      }
      weights_[e] =
          log_weights[i] == kNoWeight ? 0.0 : portable::exp(log_weights[i] - log_scale_[e]);
    }
    add(weights_.data(), a, z, remainder);
  }

  /// The logarithm of a zero weight for add_logs.
  static constexpr double kNoWeight = -std::numeric_limits<double>::infinity();

  /// Removes the oldest open entry and returns what it pooled.
  Pooled close_oldest() {
    const double* r = row(0);
    double squared = 0;
    for (int c = 0; c < k_; ++c) squared += r[c] * r[c];
    const Pooled pooled{along_[0], squared};
    std::copy(along_.begin() + 1, along_.begin() + open_, along_.begin());
    std::copy(log_scale_.begin() + 1, log_scale_.begin() + open_, log_scale_.begin());
    std::copy(coords_.begin() + capacity_, coords_.begin() + open_ * capacity_, coords_.begin());
    --open_;
    return pooled;
  }

  /// Rotates the frame onto the span of the open entries' R (Householder reflections of the
  /// coordinates' rows, O(open^2 k)), so that k <= open entries: only they are read again.
  void compress() {
    if (open_ >= k_) return;
    if (open_ == 1) {
      collapse_row();
    } else {
      for (int i = 0; i < open_; ++i) reflect_row(i);  // row i ends with no coordinate past i
    }
    k_ = open_;
  }

 private:
  double* row(int i) { return coords_.data() + static_cast<std::ptrdiff_t>(i) * capacity_; }

  // Multiplies open entry i's A and R by `factor`.
  void scale_entry(int i, double factor) {
    along_[static_cast<std::size_t>(i)] *= factor;
    double* r = row(i);
    for (int c = 0; c < k_; ++c) r[c] *= factor;
  }

  // One open entry (the common case after a close): its R's length is its one coordinate.
  void collapse_row() {
    double* r = row(0);
    double squared = 0;
    for (int c = 0; c < k_; ++c) squared += r[c] * r[c];
    std::fill(r + 1, r + k_, 0.0);
    r[0] = std::sqrt(squared);
  }

  // The reflection that maps row i's coordinates i..k-1 onto axis i, applied to rows i..open-1.
  void reflect_row(int i) {
    const double* pivot = row(i);  // read into v before the rows change
    double tail = 0;
    for (int c = i + 1; c < k_; ++c) tail += pivot[c] * pivot[c];
    if (tail == 0) return;
    const double norm = std::sqrt(pivot[i] * pivot[i] + tail);
    double* v = reflector_.data();
    std::copy(pivot + i, pivot + k_, v);
    v[0] += pivot[i] >= 0 ? norm : -norm;  // no cancellation: v = x + sign(x_0) |x| e_0
    const double scale = 2 / (v[0] * v[0] + tail);
    for (int r = i; r < open_; ++r) {
      double* x = row(r) + i;
      double dot = 0;
      for (int c = 0; c < k_ - i; ++c) dot += v[c] * x[c];
      const double f = scale * dot;
      for (int c = 0; c < k_ - i; ++c) x[c] -= f * v[c];
    }
    std::fill(row(i) + i + 1, row(i) + k_, 0.0);  // zero up to rounding: exactly zero
  }

  int space_;
  int capacity_;
  int open_ = 0;
  int k_ = 0;
  std::vector<double> along_;      ///< A of each open entry, oldest first
  std::vector<double> log_scale_;  ///< add_logs: the largest log weight each open entry took
  std::vector<double> weights_;    ///< add_logs: the weights relative to it
  std::vector<double> coords_;     ///< R of each open entry: a row of capacity coordinates
  std::vector<double> reflector_;  ///< compress's Householder vector
};

}  // namespace phasesim::engines
