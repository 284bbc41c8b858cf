// The layer's hand-written gradient (docs/TRAINING.md derives every formula used here), head by
// head: the per-entry loops O(N_c W) a head (O(N_c W^2) with RMS norm, O(N_c W d) with a gate per
// channel), and the content gradient dA = E X (dA_h = E_h^T X per channel, L d^2).
#include <cmath>

#include "layer_passes.hpp"
#include "phasesim/core/portable_math.hpp"

namespace phasesim::training::detail {
namespace {

// Starts head h's query heads' part of the gradient: their log-lambda gradient at 0 (delta r
// is added entry by entry, times lambda at the end) and their lambdas in w.reader_lambda.
void start_readers(const LayerModel& model, const LayerParameters& parameters, int h,
                   LayerWorkspace& w, LayerParameters& gradient) {
  for (int k = 0; k < model.query_heads; ++k) {
    const int r = h * model.query_heads + k;
    gradient.log_lambda()[r] = 0;
    w.reader_lambda[k] = portable::exp(parameters.log_lambda()[r]);
  }
}

// dLoss/d(lambda_r r_{r,j}) = coef alpha_{r,j} ([j holds p] - m_r) for the query heads of
// head h at entry j, added into their log-lambda gradient as delta r; lambda_r delta into
// w.reader_scale.
void entry_deltas(const LayerModel& model, int h, Eigen::Index j, double holds, double coef,
                  LayerWorkspace& w, LayerParameters& gradient) {
  for (int k = 0; k < model.query_heads; ++k) {
    const int r = h * model.query_heads + k;
    const double delta = coef * w.attention(r, j) * (holds - w.head_mass[r]);
    gradient.log_lambda()[r] += delta * w.scores(r, j);
    w.reader_scale[k] = w.reader_lambda[k] * delta;
  }
}

// Head h's part of the gradient (one gate), given dLoss/dm = coef R: its rows of the bias and
// log-lambda gradient, of the token gradient E (from which dLoss/da_h = E_h X) and of the query
// token weights u (dLoss/dq_r = u_r X).
void backward_head(const LayerModel& model, const LayerParameters& parameters, int h,
                   std::int64_t needle, double coef, LayerWorkspace& w, LayerParameters& gradient) {
  const int W = model.geometry.window;
  const int K = model.query_heads;
  const int older = model.older_slots();
  const auto N = ix(model.entries());
  const double root_d = std::sqrt(static_cast<double>(model.dim));
  const auto holding = model.geometry.entries_holding(needle, model.entries());
  auto db = gradient.bias().row(h);
  db.setZero();
  if (model.content) w.token_gradient.row(h).setZero();
  if (model.content && older > 0) w.older_gradient.row(h).setZero();
  start_readers(model, parameters, h, w, gradient);
  for (int k = 0; k < K; ++k) {
    if (model.query_projection) w.query_weights.row(h * K + k).setZero();
    if (model.query_projection && older > 0) w.older_query_weights.row(h * K + k).setZero();
  }
  double* v = w.slot_products.data();
  double* newer_tokens = model.content ? w.token_gradient.row(h).data() : nullptr;
  double* older_tokens = model.content && older > 0 ? w.older_gradient.row(h).data() : nullptr;
  for (Eigen::Index j = 0; j < N; ++j) {
    entry_deltas(model, h, j, holding.contains(j) ? 1.0 : 0.0, coef, w, gradient);
    const double* g = w.gates.row(h * N + j).data();
    const int first = model.geometry.first_existing_slot(j);
    const Eigen::Index t0 = ix(model.geometry.position(j, 0));
    // dr_j/dz_{j,s} = g_s f_s, with sum_s g_s f_s = 0 (docs/TRAINING.md).
    if (model.rms_norm) {
      const double squared = w.squared_norms(h, j);
      if (!(squared > 0)) continue;
      pooled_norm(w, t0, first, W, older, g, v);
      for (int k = 0; k < K; ++k) {
        w.reader_scale[k] *= root_d / std::sqrt(squared);
        w.reader_ratio[k] = w.scores(h * K + k, j) / (root_d * std::sqrt(squared));  // P / Q
      }
    }
    // dLoss/dz_{j,s} = sum_k lambda_r delta_{r,j} dr_{r,j}/dz_{j,s}, added query head by query
    // head into b's gradient and the token gradient.
    for (int k = 0; k < K; ++k) {
      const int r = h * K + k;
      const auto i = query_index(model, r);
      const double* y = w.projection[i].data();
      const double* y_older = older > 0 ? w.older_projection[i].data() : y;
      const double scale = w.reader_scale[k], score = w.scores(r, j);
      const double ratio = model.rms_norm ? w.reader_ratio[k] : 0.0;
      for (int s = first; s < W; ++s) {
        const Eigen::Index t = t0 + s;
        const double y_s = s < older ? y_older[t] : y[t];
        const double f = model.rms_norm ? y_s - ratio * v[s] : y_s - score;
        const double e = scale * g[s] * f;
        db[s] += e;
        if (model.content) (s < older ? older_tokens : newer_tokens)[t] += e;
        if (model.query_projection) {
          (s < older ? w.older_query_weights : w.query_weights)(r, t) += scale * g[s];
        }
      }
    }
  }
}

// Head h's part of the gradient with a gate per channel: through dLoss/dK_j = gamma,
// dLoss/dz_{j,s,c} = g_{s,c} gamma_c (k_s - K_j)_c; dLoss/dq_r collected directly.
void backward_head_channels(const LayerModel& model, const LayerParameters& parameters, int h,
                            const LayerContext& context, double coef, LayerWorkspace& w,
                            LayerParameters& gradient) {
  const int W = model.geometry.window, d = model.dim, K = model.query_heads;
  const int older = model.older_slots();
  const auto N = ix(model.entries());
  const auto L = ix(model.content ? model.context : 0);
  const double root_d = std::sqrt(static_cast<double>(d));
  const auto holding = model.geometry.entries_holding(context.needle, model.entries());
  auto db = gradient.head_bias(h);
  db.setZero();
  Eigen::Map<RowMatrix> newer_gradient(model.content ? w.token_gradient.row(h).data() : nullptr, L,
                                       d);
  Eigen::Map<RowMatrix> older_gradient(
      model.content && older > 0 ? w.older_gradient.row(h).data() : nullptr, older > 0 ? L : 0, d);
  newer_gradient.setZero();
  older_gradient.setZero();
  start_readers(model, parameters, h, w, gradient);
  for (int k = 0; k < K; ++k) {
    if (model.query_projection) w.query_gradient.row(h * K + k).setZero();
  }
  auto& gamma = w.key_gradient;
  for (Eigen::Index j = 0; j < N; ++j) {
    entry_deltas(model, h, j, holding.contains(j) ? 1.0 : 0.0, coef, w, gradient);
    const auto key = w.keys.row(h * N + j);
    const double squared = model.rms_norm ? w.squared_norms(h, j) : 1.0;
    if (!(squared > 0)) continue;
    const double norm = std::sqrt(squared);
    gamma.setZero();
    for (int k = 0; k < K; ++k) {
      const int r = h * K + k;
      const auto& q = reader_query(model, context, w, r);
      // dr/dK = q, or (sqrt(d) / |K|) q - (r / |K|^2) K with RMS norm; dr/dq = K (sqrt(d)/|K|).
      const double scale = model.rms_norm ? w.reader_scale[k] * root_d / norm : w.reader_scale[k];
      gamma += scale * q;
      if (model.rms_norm) gamma -= (w.reader_scale[k] * w.scores(r, j) / squared) * key.transpose();
      if (model.query_projection) w.query_gradient.row(r) += scale * key;
    }
    const Eigen::Map<const RowMatrix> g(w.gates.row(h * N + j).data(), W, d);
    const int first = model.geometry.first_existing_slot(j);
    const Eigen::Index t0 = ix(model.geometry.position(j, 0));
    for (int s = first; s < W; ++s) {
      const Eigen::Index t = t0 + s;
      auto& e = w.slot_channel_gradient;  // preallocated: this loop runs N_c W times a head
      e = g.row(s).array() * gamma.transpose().array() *
          (key_row(context, older, s, t) - key).array();
      db.row(s) += e;
      if (model.content) (s < older ? older_gradient : newer_gradient).row(t) += e;
    }
  }
}

// sum_t E(t, :)^T Y(t, :) into `out` (d x d), added token by token: each coefficient summed
// in token order, as a lazy product would, but over rows (E^T Y's lazy product strides down
// columns: 70% of a step at d 64).
void add_token_outer_products(Eigen::Map<const RowMatrix> E, const RowMatrix& Y,
                              Eigen::Map<RowMatrix> out) {
  for (Eigen::Index t = 0; t < E.rows(); ++t) {
    for (Eigen::Index c = 0; c < E.cols(); ++c) out.row(c) += E(t, c) * Y.row(t);
  }
}

// Head h's row of dLoss/da (or dLoss/dA_h) from its token gradients: E_h X (+ E~_h X~), or
// E_h^T X with a gate per channel.
void content_gradient(const LayerModel& model, const LayerContext& context, const LayerWorkspace& w,
                      int h, LayerParameters& gradient) {
  const bool split = model.older_slots() > 0;
  if (!model.content) {
    gradient.content().row(h).setZero();
  } else if (!model.per_channel) {
    auto a = gradient.content().row(h);
    a.noalias() = w.token_gradient.row(h).lazyProduct(context.tokens);  // see prepare_context
    if (split) a.noalias() += w.older_gradient.row(h).lazyProduct(context.older_tokens);
  } else {
    const auto L = ix(model.context);
    gradient.head_content(h).setZero();
    add_token_outer_products({w.token_gradient.row(h).data(), L, model.dim}, context.tokens,
                             gradient.head_content(h));
    if (!split) return;
    add_token_outer_products({w.older_gradient.row(h).data(), L, model.dim}, context.older_tokens,
                             gradient.head_content(h));
  }
}

// dLoss/dP_r = (dLoss/dq_r) (x_p + sigma_q eps_r)^T for query head r.
void projection_gradient(const LayerModel& model, const LayerContext& context, int r,
                         LayerWorkspace& w, LayerParameters& gradient) {
  if (!model.per_channel) {
    w.query_gradient.row(r).noalias() = w.query_weights.row(r).lazyProduct(context.tokens);
    if (model.older_slots() > 0) {
      w.query_gradient.row(r).noalias() +=
          w.older_query_weights.row(r).lazyProduct(context.older_tokens);
    }
  }
  gradient.projection(r).noalias() =
      w.query_gradient.row(r).transpose() * context.query(r).transpose();
}

}  // namespace

void head_gradient(const LayerModel& model, const LayerParameters& parameters, int h,
                   const LayerContext& context, double coef, LayerWorkspace& w,
                   LayerParameters& gradient) {
  if (model.per_channel) {
    backward_head_channels(model, parameters, h, context, coef, w, gradient);
  } else {
    backward_head(model, parameters, h, context.needle, coef, w, gradient);
  }
  for (int r = h * model.query_heads; r < (h + 1) * model.query_heads; ++r) {
    gradient.log_lambda()[r] *= portable::exp(parameters.log_lambda()[r]);
    if (model.query_projection) projection_gradient(model, context, r, w, gradient);
  }
  content_gradient(model, context, w, h, gradient);
}

}  // namespace phasesim::training::detail
