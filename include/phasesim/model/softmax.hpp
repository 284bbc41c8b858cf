#pragma once
// The softmax g_s = exp(x_s - max x) / sum_t exp(x_t - max x), written once for every layer that
// takes one: gates from logits (gate.hpp), the engines' entry gates with content noise
// (full_vector.hpp: the CPU engines and the CUDA kernel), the training lab's gates, gates per
// channel and attention. Always the same steps: the shift max x, the numerators exp(x_s - shift)
// by portable::exp (glibc's and Eigen's exp differ from one CPU to another in the last bit, and
// CUDA's from both), their sum in index order, one division each. So a softmax has the same bits
// on every CPU, SIMD target and GPU. A logit of -inf (kMaskedLogit: a slot that pools nothing)
// gets weight 0; when every logit is -inf, every weight is 0.
#include <limits>

#include "phasesim/core/host_device.hpp"
#include "phasesim/core/portable_math.hpp"
#include "phasesim/core/strided.hpp"

namespace phasesim {

/// The logit of a slot that pools nothing: its weight is 0 in any softmax.
inline constexpr double kMaskedLogit = -std::numeric_limits<double>::infinity();

/// The shift of a softmax: the largest x_s, s < count (-inf when there is none).
template <class In>
PHASESIM_HD inline double softmax_shift(In x, int count) {
  double top = kMaskedLogit;
  for (int s = 0; s < count; ++s) {
    if (x[s] > top) top = x[s];
  }
  return top;
}

/// The numerators out_s = exp(x_s - shift), s < count (out may be x): a softmax before its
/// division, or one factor of a softmax of a sum of logits.
template <class In, class Out>
PHASESIM_HD inline void softmax_numerators(In x, int count, double shift, Out out) {
  for (int s = 0; s < count; ++s) {
    out[s] = x[s] == kMaskedLogit ? 0.0 : portable::exp(x[s] - shift);
  }
}

/// Divides non-negative w_s, s < count, by their sum (added in index order), so that they sum
/// to 1; weights that are all 0 stay 0.
template <class Out>
PHASESIM_HD inline void normalize_weights(Out w, int count) {
  double total = 0;
  for (int s = 0; s < count; ++s) total += w[s];
  for (int s = 0; s < count; ++s) w[s] = total > 0 ? w[s] / total : 0.0;
}

/// out = softmax(x) over s < count (out may be x).
template <class In, class Out>
PHASESIM_HD inline void softmax(In x, int count, Out out) {
  softmax_numerators(x, count, softmax_shift(x, count), out);
  normalize_weights(out, count);
}

/// A gate per channel (MODEL.md section 9): the softmax down every column of the row-major
/// rows x cols matrix x, in place (rows: slots, columns: channels).
PHASESIM_HD inline void softmax_columns(double* x, int rows, int cols) {
  for (int c = 0; c < cols; ++c) softmax(column_of(x, cols, c), rows, column_of(x, cols, c));
}

}  // namespace phasesim
