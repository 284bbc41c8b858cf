#pragma once
// The passes of the layer over one context, shared by the files that hold them: the gates
// (layer_gates.cpp), the forward pass (layer_forward.cpp) and the gradient (layer_backward.cpp);
// layer.cpp runs them (layer_loss, layer_argmax).
#include <cstddef>
#include <cstdint>

#include "phasesim/training/layer.hpp"

namespace phasesim::training::detail {

/// An entry, position or length as Eigen's index: 32 bits in wasm, where validate() bounds a
/// context to kMaxEmbeddingValues values.
constexpr Eigen::Index ix(std::int64_t i) { return static_cast<Eigen::Index>(i); }

/// Which of the distinct queries (LayerModel::distinct_queries) query head r reads.
inline std::size_t query_index(const LayerModel& model, int r) {
  return model.distinct_queries() == 1 ? 0 : static_cast<std::size_t>(r);
}

/// The query of query head r: its noise draw, through its projection when it learns one.
inline const Eigen::VectorXd& reader_query(const LayerModel& model, const LayerContext& context,
                                           const LayerWorkspace& w, int r) {
  return model.query_projection ? w.queries[static_cast<std::size_t>(r)] : context.query(r);
}

/// The key slot s of an entry reads at position t: the older key in the older slots.
inline auto key_row(const LayerContext& context, int older, int s, Eigen::Index t) {
  return (s < older ? context.older_tokens : context.tokens).row(t);
}

// The gates (layer_gates.cpp).

/// The factors of head h's gates, a column per channel (one for one gate): exp(b_s - max b) into
/// w.slot_weights, and exp(c_t - max c) in place of its content logits.
void gate_factors(const LayerModel& model, const LayerParameters& parameters, int h,
                  LayerWorkspace& w);

/// The gate of entry j of head h: softmax over its existing slots of b_s + c_t, computed as
/// exp(b_s - max b) exp(c_t - max c) normalized, or directly when their sum is too small to be
/// exact.
void entry_gate(const LayerModel& model, const LayerParameters& parameters,
                const LayerContext& context, int h, const LayerWorkspace& w, Eigen::Index j,
                double* g);

/// The gate of entry j of head h, a column per channel, into g (W x d): channel c pools with
/// softmax_s(b_{s,c} + (A_h k_s)_c), from gate_factors' factors (or exactly, as entry_gate).
void channel_gate(const LayerModel& model, const LayerParameters& parameters,
                  const LayerContext& context, int h, const LayerWorkspace& w, Eigen::Index j,
                  Eigen::Map<RowMatrix> g);

// The forward pass (layer_forward.cpp).

/// ||K_j||^2 = sum_{s,s'} g_s g_s' k_s . k_s', and v_s = K_j . k_s into `v`, from the Gram
/// bands (gram(t, k) = x_t . x_{t-k}).
double pooled_norm(const LayerWorkspace& w, Eigen::Index t0, int first, int window, int older,
                   const double* g, double* v);

/// The forward pass of every head, into w: gates, keys, scores, attention and masses.
void forward_heads(const LayerModel& model, const LayerParameters& parameters,
                   const LayerContext& context, LayerWorkspace& w);

/// Attention of query head r and its mass on the needle's entries.
double attend(const LayerModel& model, const LayerParameters& parameters, int r,
              std::int64_t needle, LayerWorkspace& w);

// The gradient (layer_backward.cpp).

/// Head h's segments of the gradient (LayerParameters::head_segments), given dLoss/dm = coef R
/// and the forward pass in w: its bias, content and log-lambda rows, and its query heads'
/// projections.
void head_gradient(const LayerModel& model, const LayerParameters& parameters, int h,
                   const LayerContext& context, double coef, LayerWorkspace& w,
                   LayerParameters& gradient);

}  // namespace phasesim::training::detail
