// The layer's forward pass (docs/TRAINING.md): per context the products shared by the heads,
// y = X q, C = A X^T and the Gram band of X (RMS norm only), then per head its gates
// (layer_gates.cpp), pooled keys and scores, O(H N_c W) (O(H N_c W^2) with RMS norm); a gate per
// channel pools every channel on its own, O(H N_c W d), with C = X A_h^T. Then attention.
#include <algorithm>
#include <cmath>

#include "layer_passes.hpp"
#include "phasesim/core/portable_math.hpp"
#include "phasesim/model/softmax.hpp"

namespace phasesim::training::detail {
namespace {

// k_r . k_s of one entry's slots r <= s, from the Gram bands: older slots come first, so a
// mixed pair is an older slot r and a newer slot s.
double key_product(const LayerWorkspace& w, Eigen::Index t0, int older, int r, int s) {
  const Eigen::Index t = t0 + s;
  if (s < older) return w.older_gram(t, s - r);
  if (r < older) return w.cross_gram(t, s - r);
  return w.gram(t, s - r);
}

// x_t . y_{t-k} for k < W into `band`.
void gram_band(const RowMatrix& x, const RowMatrix& y, int window, RowMatrix& band) {
  for (Eigen::Index t = 0; t < x.rows(); ++t) {
    for (int k = 0; k < window; ++k) band(t, k) = t >= k ? x.row(t).dot(y.row(t - k)) : 0.0;
  }
}

// Per-context products shared by the heads: the queries, y = X q, C = A X^T, the Gram band.
// The matrix products are lazy (coefficient by coefficient, each sum in index order): Eigen's
// blocked product splits a long inner dimension at a block size it derives from the CPU's cache
// sizes, so its sums, and 600 Adam steps after them, would differ from one CPU to another.
void prepare_context(const LayerModel& model, const LayerParameters& parameters,
                     const LayerContext& context, LayerWorkspace& w) {
  const bool split = model.older_slots() > 0;
  for (int i = 0; i < model.distinct_queries(); ++i) {
    if (model.query_projection) {
      w.queries[std::size_t(i)].noalias() = parameters.projection(i).lazyProduct(context.query(i));
    }
    if (model.per_channel) continue;  // scores come from the pooled keys
    const auto& q = reader_query(model, context, w, i);
    w.projection[std::size_t(i)].noalias() = context.tokens * q;
    if (split) w.older_projection[std::size_t(i)].noalias() = context.older_tokens * q;
  }
  if (model.content && !model.per_channel) {
    w.token_logits.noalias() = parameters.content().lazyProduct(context.tokens.transpose());
    if (split) {
      w.older_logits.noalias() = parameters.content().lazyProduct(context.older_tokens.transpose());
    }
  } else if (model.content) {
    for (int h = 0; h < model.heads; ++h) {
      const auto A = parameters.head_content(h);
      Eigen::Map<RowMatrix>(w.token_logits.row(h).data(), ix(model.context), model.dim).noalias() =
          context.tokens.lazyProduct(A.transpose());
      if (!split) continue;
      Eigen::Map<RowMatrix>(w.older_logits.row(h).data(), ix(model.context), model.dim).noalias() =
          context.older_tokens.lazyProduct(A.transpose());
    }
  }
  if (model.rms_norm && !model.per_channel) {
    const int W = model.geometry.window;
    gram_band(context.tokens, context.tokens, W, w.gram);
    if (split) {
      gram_band(context.older_tokens, context.older_tokens, W, w.older_gram);
      gram_band(context.tokens, context.older_tokens, W, w.cross_gram);
    }
  }
}

// Gates and the scores r_{r,j} of head h's query heads over all entries (one gate).
void pool_head(const LayerModel& model, const LayerParameters& parameters,
               const LayerContext& context, int h, LayerWorkspace& w) {
  const int W = model.geometry.window;
  const int K = model.query_heads;
  const int older = model.older_slots();
  const auto N = ix(model.entries());
  gate_factors(model, parameters, h, w);
  const double root_d = std::sqrt(static_cast<double>(model.dim));
  double* v = w.slot_products.data();
  for (Eigen::Index j = 0; j < N; ++j) {
    double* g = w.gates.row(h * N + j).data();
    entry_gate(model, parameters, context, h, w, j, g);
    const int first = model.geometry.first_existing_slot(j);
    const Eigen::Index t0 = ix(model.geometry.position(j, 0));
    const double squared = model.rms_norm ? pooled_norm(w, t0, first, W, older, g, v) : 0.0;
    if (model.rms_norm) w.squared_norms(h, j) = squared;
    for (int k = 0; k < K; ++k) {
      const int r = h * K + k;
      const double* y = w.projection[query_index(model, r)].data();
      const double* y_older = older > 0 ? w.older_projection[query_index(model, r)].data() : y;
      double score = 0;
      // Older slots, then newer ones: the sum in slot order without a choice per slot.
      const int newer = std::max(first, older);
      for (int s = first; s < newer; ++s) score += g[s] * y_older[t0 + s];
      for (int s = newer; s < W; ++s) score += g[s] * y[t0 + s];
      if (model.rms_norm) score = squared > 0 ? root_d * score / std::sqrt(squared) : 0.0;
      w.scores(r, j) = score;
    }
  }
}

// Gates, pooled keys and the scores of head h's query heads over all entries (a gate per
// channel): channel c of entry j pools with softmax_s(b_{s,c} + (A_h k_s)_c).
void pool_head_channels(const LayerModel& model, const LayerParameters& parameters,
                        const LayerContext& context, int h, LayerWorkspace& w) {
  const int W = model.geometry.window, d = model.dim, K = model.query_heads;
  const int older = model.older_slots();
  const auto N = ix(model.entries());
  gate_factors(model, parameters, h, w);
  for (Eigen::Index j = 0; j < N; ++j) {
    const int first = model.geometry.first_existing_slot(j);
    const Eigen::Index t0 = ix(model.geometry.position(j, 0));
    Eigen::Map<RowMatrix> g(w.gates.row(h * N + j).data(), W, d);
    channel_gate(model, parameters, context, h, w, j, g);
    auto key = w.keys.row(h * N + j);
    key.setZero();
    for (int s = first; s < W; ++s) {
      key.array() += g.row(s).array() * key_row(context, older, s, t0 + s).array();
    }
    if (model.rms_norm) w.squared_norms(h, j) = key.squaredNorm();
  }
  const double root_d = std::sqrt(static_cast<double>(d));
  const auto keys = w.keys.middleRows(h * N, N);
  for (int k = 0; k < K; ++k) {
    const int r = h * K + k;
    w.scores.row(r).noalias() = keys.lazyProduct(reader_query(model, context, w, r)).transpose();
    if (!model.rms_norm) continue;
    for (Eigen::Index j = 0; j < N; ++j) {
      const double squared = w.squared_norms(h, j);
      w.scores(r, j) = squared > 0 ? root_d * w.scores(r, j) / std::sqrt(squared) : 0.0;
    }
  }
}

}  // namespace

double pooled_norm(const LayerWorkspace& w, Eigen::Index t0, int first, int window, int older,
                   const double* g, double* v) {
  double squared = 0;
  for (int s = first; s < window; ++s) {
    double sum = 0;
    for (int r = first; r < window; ++r) {
      sum += g[r] * (r <= s ? key_product(w, t0, older, r, s) : key_product(w, t0, older, s, r));
    }
    v[s] = sum;
    squared += g[s] * sum;
  }
  return squared;
}

void forward_heads(const LayerModel& model, const LayerParameters& parameters,
                   const LayerContext& context, LayerWorkspace& w) {
  prepare_context(model, parameters, context, w);
  for (int h = 0; h < model.heads; ++h) {
    if (model.per_channel) {
      pool_head_channels(model, parameters, context, h, w);
    } else {
      pool_head(model, parameters, context, h, w);
    }
  }
}

double attend(const LayerModel& model, const LayerParameters& parameters, int r,
              std::int64_t needle, LayerWorkspace& w) {
  const double lambda = portable::exp(parameters.log_lambda()[r]);
  auto alpha = w.attention.row(r);
  alpha = lambda * w.scores.row(r);
  softmax(alpha.data(), static_cast<int>(alpha.size()), alpha.data());
  const auto holding = model.geometry.entries_holding(needle, model.entries());
  double mass = 0;
  for (auto j = ix(holding.first); j <= holding.last; ++j) mass += alpha[j];
  return mass;
}

}  // namespace phasesim::training::detail
