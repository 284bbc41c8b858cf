// The layer's forward pass and its hand-written gradient (docs/TRAINING.md derives every
// formula used here). Per context the heavy work is four dense products, shared by the heads
// where it can be: y = X q, C = A X^T, the Gram band of X (RMS norm only) and dA = E X; the
// per-entry loops are O(H N_c W) (O(H N_c W^2) with RMS norm). A gate per channel pools
// every channel on its own, O(H N_c W d), with C = X A_h^T and dA_h = E_h^T X (H L d^2).
#include "phasesim/training/layer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "phasesim/core/error.hpp"
#include "phasesim/core/normal_block.hpp"
#include "phasesim/core/portable_math.hpp"
#include "phasesim/core/random.hpp"
#include "phasesim/model/softmax.hpp"

namespace phasesim::training {
namespace {

constexpr std::int64_t kMaxEmbeddingValues = std::int64_t{1} << 24;  // L d per context
constexpr std::int64_t kMaxParameters = std::int64_t{1} << 24;       // theta, and its gradients
constexpr int kMaxHeads = 1024;  // H K query heads: an index of the query noise's stream
constexpr int kMaxDim = 4096;
// A gate's factored exponentials exp(b_s - max b) exp(c_t - max c) are exact to rounding
// when they sum above this: their largest is then a normal double, and any subnormal one (whose
// last bits are lost) lies below its last bit. Below it (content logits hundreds of nats apart)
// the gate is the exact softmax instead; no trained layer of the lab comes near it.
constexpr double kSmallestFactoredSum = 1e-250;

// An entry, position or length as Eigen's index: 32 bits in wasm, where validate() bounds a
// context to kMaxEmbeddingValues values.
constexpr Eigen::Index ix(std::int64_t i) { return static_cast<Eigen::Index>(i); }

// Tokens x_t ~ N(0, I/d) at index t of `tokens`; the older keys rho x_t + sqrt(1 - rho^2) x''_t
// with x''_t at index t of `older` (split projections only); query i is x_p + sigma_q eps_i
// with eps_i at index i of `noise` (index 0 alone when every head shares one query). The normals
// are the block generator's (normal_block.hpp), the engines' own float sampler: the same bits
// on every CPU and SIMD target, and at 65,536 normals a context (L 2048, d 32) faster than the
// ziggurat of double normals it replaced (100 steps at the default size: 0.85 s of CPU against
// 1.20 s, AVX3, one thread). Widened to double, they are scaled there.
void draw_context(const LayerModel& model, const RandomStream& tokens, const RandomStream& noise,
                  const RandomStream& older, std::int64_t needle, LayerContext& context) {
  const int d = model.dim;
  const int draws = model.query_draws();
  const double scale = 1 / std::sqrt(static_cast<double>(d));
  auto& normals = context.normals;
  normals.resize(static_cast<std::size_t>(std::max<std::int64_t>(model.context, draws) * d));
  normal_rows(tokens, 0, model.context, d, 1.0f, normals.data(), d);
  context.tokens = Eigen::Map<const FloatRows>(normals.data(), ix(model.context), d).cast<double>();
  context.tokens *= scale;
  if (model.older_slots() > 0) {
    const double rho = model.split_rho;
    normal_rows(older, 0, model.context, d, 1.0f, normals.data(), d);
    context.older_tokens =
        Eigen::Map<const FloatRows>(normals.data(), ix(model.context), d).cast<double>();
    context.older_tokens *= scale * std::sqrt(1 - rho * rho);
    context.older_tokens += rho * context.tokens;
  }
  normal_rows(noise, 0, draws, d, 1.0f, normals.data(), d);
  context.queries.resize(static_cast<std::size_t>(draws));
  for (int i = 0; i < draws; ++i) {
    auto& query = context.queries[static_cast<std::size_t>(i)];
    query =
        Eigen::Map<const Eigen::VectorXf>(normals.data() + std::ptrdiff_t{i} * d, d).cast<double>();
    query *= scale * model.query_noise;
    query += context.tokens.row(ix(needle)).transpose();
  }
  context.needle = needle;
}

// Which of the distinct queries (LayerModel::distinct_queries) query head r reads.
std::size_t query_index(const LayerModel& model, int r) {
  return model.distinct_queries() == 1 ? 0 : static_cast<std::size_t>(r);
}

// The query of query head r: its noise draw, through its projection when it learns one.
const Eigen::VectorXd& reader_query(const LayerModel& model, const LayerContext& context,
                                    const LayerWorkspace& w, int r) {
  return model.query_projection ? w.queries[static_cast<std::size_t>(r)] : context.query(r);
}

// The key slot s of an entry reads at position t: the older key in the older slots.
auto key_row(const LayerContext& context, int older, int s, Eigen::Index t) {
  return (s < older ? context.older_tokens : context.tokens).row(t);
}

// k_r . k_s of one entry's slots r <= s, from the Gram bands: older slots come first, so a
// mixed pair is an older slot r and a newer slot s.
double key_product(const LayerWorkspace& w, Eigen::Index t0, int older, int r, int s) {
  const Eigen::Index t = t0 + s;
  if (s < older) return w.older_gram(t, s - r);
  if (r < older) return w.cross_gram(t, s - r);
  return w.gram(t, s - r);
}

// ||K_j||^2 = sum_{s,s'} g_s g_s' k_s . k_s', and v_s = K_j . k_s into `v`, from the Gram
// bands (gram(t, k) = x_t . x_{t-k}).
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

// Divides a gate's factored numerators (exp_columns) by their sum, unless that sum is too small
// for them to be exact (kSmallestFactoredSum) or not finite: then it returns false, and the
// caller takes the exact softmax instead.
template <class Gate>
bool normalize_factored(Gate g, int count) {
  double sum = 0;
  for (int s = 0; s < count; ++s) sum += g[s];
  if (!(sum > kSmallestFactoredSum && std::isfinite(sum))) return false;
  for (int s = 0; s < count; ++s) g[s] /= sum;
  return true;
}

// The gate of entry j of head h: softmax over its existing slots of b_s + c_t, computed as
// exp(b_s - max b) exp(c_t - max c) normalized, or directly when their sum is too small to be
// exact.
void entry_gate(const LayerModel& model, const LayerParameters& parameters,
                const LayerContext& context, int h, const LayerWorkspace& w, Eigen::Index j,
                double* g) {
  const int W = model.geometry.window;
  const int older = model.older_slots();
  const int first = model.geometry.first_existing_slot(j);
  const Eigen::Index t0 = ix(model.geometry.position(j, 0));
  const double* c = model.content ? w.token_logits.row(h).data() : nullptr;
  const double* c_older = model.content && older > 0 ? w.older_logits.row(h).data() : c;
  for (int s = 0; s < W; ++s) {
    // Only slots that exist (s >= first) have a logit to read.
    g[s] = s < first        ? 0.0
           : !model.content ? w.slot_weights[s]
           : s < older      ? w.slot_weights[s] * c_older[t0 + s]
                            : w.slot_weights[s] * c[t0 + s];
  }
  if (normalize_factored(g + first, W - first)) return;
  // Logits far apart: the exact softmax.
  const auto b = parameters.bias().row(h);
  const auto a = parameters.content().row(h);
  for (int s = first; s < W; ++s) {
    g[s] = b[s] + (model.content ? a.dot(key_row(context, older, s, t0 + s)) : 0.0);
  }
  softmax(g + first, W - first, g + first);
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

// exp(x - max) down every column of x, each column's shift shared with y's column when y has
// rows (the older keys' logits, so that products with newer and older slots share one softmax).
void exp_columns(Eigen::Map<RowMatrix> x, Eigen::Map<RowMatrix> y) {
  const auto cols = static_cast<int>(x.cols());
  const auto column = [&](Eigen::Map<RowMatrix>& m, int c) { return column_of(m.data(), cols, c); };
  for (int c = 0; c < cols; ++c) {
    double top = -std::numeric_limits<double>::infinity();
    for (auto* m : {&x, &y}) {
      if (m->rows() > 0) top = std::max(top, softmax_shift(column(*m, c), int(m->rows())));
    }
    for (auto* m : {&x, &y}) {
      if (m->rows() > 0) softmax_numerators(column(*m, c), int(m->rows()), top, column(*m, c));
    }
  }
}

// Head h's content logits as L x C (`logits`: token_logits or older_logits), or no rows where
// the model has none.
Eigen::Map<RowMatrix> logit_rows(const LayerModel& model, RowMatrix& logits, int h) {
  const bool any = logits.rows() > 0;
  return {any ? logits.row(h).data() : nullptr, any ? ix(model.context) : 0, model.channels()};
}

// The factors of head h's gates, a column per channel (one for one gate): exp(b_s - max b) into
// w.slot_weights, and exp(c_t - max c) in place of its content logits.
void gate_factors(const LayerModel& model, const LayerParameters& parameters, int h,
                  LayerWorkspace& w) {
  const int C = model.channels();
  Eigen::Map<RowMatrix> slot(w.slot_weights.data(), model.geometry.window, C);
  slot = parameters.head_bias(h);
  exp_columns(slot, {nullptr, 0, C});
  if (!model.content) return;
  exp_columns(logit_rows(model, w.token_logits, h), logit_rows(model, w.older_logits, h));
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

// The exact softmax over the existing slots of channel c of entry j into column c of `g`, for
// when the factored exponentials sum below kSmallestFactoredSum.
void exact_channel_gate(const LayerModel& model, const LayerParameters& parameters,
                        const LayerContext& context, int h, Eigen::Index j, int c,
                        Eigen::Map<RowMatrix>& g) {
  const int W = model.geometry.window;
  const int older = model.older_slots();
  const int first = model.geometry.first_existing_slot(j);
  const Eigen::Index t0 = ix(model.geometry.position(j, 0));
  const auto b = parameters.head_bias(h);
  const auto A = parameters.head_content(h);
  for (int s = first; s < W; ++s) {
    g(s, c) = b(s, c) + (model.content ? A.row(c).dot(key_row(context, older, s, t0 + s)) : 0.0);
  }
  const auto column = column_of(g.data() + first * g.cols(), int(g.cols()), c);
  softmax(column, W - first, column);
}

// Gates, pooled keys and the scores of head h's query heads over all entries (a gate per
// channel): channel c of entry j pools with softmax_s(b_{s,c} + (A_h k_s)_c).
void pool_head_channels(const LayerModel& model, const LayerParameters& parameters,
                        const LayerContext& context, int h, LayerWorkspace& w) {
  const int W = model.geometry.window, d = model.dim, K = model.query_heads;
  const int older = model.older_slots();
  const auto N = ix(model.entries());
  gate_factors(model, parameters, h, w);
  const Eigen::Map<const RowMatrix> slot(w.slot_weights.data(), W, d);
  const auto newer_logits = logit_rows(model, w.token_logits, h);
  const auto older_logits = logit_rows(model, w.older_logits, h);
  for (Eigen::Index j = 0; j < N; ++j) {
    const int first = model.geometry.first_existing_slot(j);
    const Eigen::Index t0 = ix(model.geometry.position(j, 0));
    Eigen::Map<RowMatrix> g(w.gates.row(h * N + j).data(), W, d);
    g.topRows(first).setZero();
    for (int s = first; s < W; ++s) {
      g.row(s) = slot.row(s);
      if (model.content) {
        g.row(s).array() *= (s < older ? older_logits : newer_logits).row(t0 + s).array();
      }
    }
    for (int c = 0; c < d; ++c) {
      if (!normalize_factored(column_of(g.data() + first * d, d, c), W - first)) {
        exact_channel_gate(model, parameters, context, h, j, c, g);
      }
    }
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

// Attention of query head r and its mass on the needle's entries.
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

// The forward pass of every head, into w: gates, keys, scores, attention and masses.
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

}  // namespace

void LayerModel::validate() const {
  geometry.validate();
  require_in_range(heads, 1, kMaxHeads, "--heads");
  require_in_range(dim, 2, kMaxDim, "--dim");
  require(geometry.window <= kMaxDim, "invalid --window " + std::to_string(geometry.window) +
                                          " (must be at most " + std::to_string(kMaxDim) + ")");
  require_in_range(query_heads, 1, kMaxHeads, "--query-heads");
  require(readers() <= kMaxHeads, "invalid --query-heads " + std::to_string(query_heads) +
                                      " (--heads x --query-heads must be at most " +
                                      std::to_string(kMaxHeads) + ")");
  require(split_rho >= 0 && split_rho <= 1,
          "invalid --split-rho " + format_number(split_rho) +
              " (the correlation of a token's two keys must be in [0, 1])");
  // At least one needle position: the interior max(W, o) <= N_c S + o - W.
  const std::int64_t W = geometry.window, S = geometry.stride, o = geometry.offset;
  const std::int64_t shortest = o + S * ((std::max(W, o) + W - o + S - 1) / S);
  require(context >= shortest,
          "invalid --context " + std::to_string(context) + " (must be at least " +
              std::to_string(shortest) + " for --window " + std::to_string(W) + " and --stride " +
              std::to_string(S) + (o > 0 ? " and --offset " + std::to_string(o) : "") + ")");
  require(context <= kMaxEmbeddingValues / dim,
          "invalid --context " + std::to_string(context) + " (--context x --dim must be at most " +
              std::to_string(kMaxEmbeddingValues) + ": a context's embeddings are held in memory)");
  // d x d per head or per query head: bound theta (and each batch item's gradient) first.
  const std::int64_t d = dim, C = channels();
  const std::int64_t parameters =
      heads * (W * C + C * d) + readers() * (1 + (query_projection ? d * d : 0));
  require(parameters <= kMaxParameters,
          "invalid --dim " + std::to_string(dim) + " (with --heads " + std::to_string(heads) +
              (per_channel ? ", --per-channel" : "") +
              (query_projection ? ", --query-projection" : "") + " the layer has " +
              std::to_string(parameters) + " parameters, at most " +
              std::to_string(kMaxParameters) + ")");
  require_non_negative(query_noise, "--query-noise");
  require_positive(beta_out, "--beta-out");
  require_positive(loss.answers, "--answers");
}

LayerParameters::LayerParameters(const LayerModel& model)
    : heads_(model.heads),
      window_(model.geometry.window),
      dim_(model.dim),
      channels_(model.channels()),
      readers_(model.readers()),
      values_(Eigen::VectorXd::Zero(
          projection_offset() +
          (model.query_projection ? Eigen::Index{readers_} * dim_ * dim_ : 0))) {}

std::array<LayerParameters::Segment, 4> LayerParameters::head_segments(int h) const {
  const Eigen::Index H = heads_, K = readers_ / heads_, d = dim_;
  const Eigen::Index bias = Eigen::Index{window_} * channels_,
                     content = Eigen::Index{channels_} * d;
  const Eigen::Index projection = (values_.size() - projection_offset()) / H;  // K d d, or 0
  return {{{h * bias, bias},
           {content_offset() + h * content, content},
           {lambda_offset() + h * K, K},
           {projection_offset() + h * projection, projection}}};
}

void draw_training_context(const LayerModel& model, std::uint64_t seed, std::uint32_t step,
                           std::uint32_t index, LayerContext& context) {
  const RandomStream position(seed, step, index, Stream::training_needle);
  const double u = position.uniform_pair(0, 0).x;  // (0, 1]
  const auto needles = model.needle_range();
  const auto count = needles.last - needles.first + 1;
  const auto offset = std::min(count - 1, static_cast<std::int64_t>((1 - u) * double(count)));
  draw_context(model, RandomStream(seed, step, index, Stream::training_token),
               RandomStream(seed, step, index, Stream::training_query),
               RandomStream(seed, step, index, Stream::training_older_token),
               needles.first + offset, context);
}

void draw_evaluation_context(const LayerModel& model, std::uint64_t seed, std::uint32_t trial,
                             std::int64_t needle, LayerContext& context) {
  draw_context(model, RandomStream(seed, trial, 0, Stream::evaluation_token),
               RandomStream(seed, trial, 0, Stream::evaluation_query),
               RandomStream(seed, trial, 0, Stream::evaluation_older_token), needle, context);
}

LayerWorkspace::LayerWorkspace(const LayerModel& model) {
  const auto H = model.heads, R = model.readers(), W = model.geometry.window, d = model.dim;
  const Eigen::Index L = ix(model.context), N = ix(model.entries()), C = model.channels();
  const bool split = model.older_slots() > 0, one_gate = !model.per_channel;
  const auto distinct = static_cast<std::size_t>(model.distinct_queries());
  const auto rows = [](bool needed, Eigen::Index count) { return needed ? count : 0; };
  queries.assign(model.query_projection ? distinct : 0, Eigen::VectorXd(d));
  projection.assign(one_gate ? distinct : 0, Eigen::VectorXd(L));
  older_projection.assign(one_gate && split ? distinct : 0, Eigen::VectorXd(L));
  token_logits.resize(rows(model.content, H), L * C);
  older_logits.resize(rows(model.content && split, H), L * C);
  gram.resize(rows(model.rms_norm && one_gate, L), W);
  older_gram.resize(rows(model.rms_norm && one_gate && split, L), W);
  cross_gram.resize(rows(model.rms_norm && one_gate && split, L), W);
  gates.resize(H * N, W * C);
  keys.resize(rows(model.per_channel, H * N), d);
  scores.resize(R, N);
  squared_norms.resize(rows(model.rms_norm, H), N);
  attention.resize(R, N);
  token_gradient.resize(rows(model.content, H), L * C);
  older_gradient.resize(rows(model.content && split, H), L * C);
  query_weights.resize(rows(model.query_projection && one_gate, R), L);
  older_query_weights.resize(rows(model.query_projection && one_gate && split, R), L);
  query_gradient.resize(rows(model.query_projection, R), d);
  head_mass.resize(R);
  slot_weights.resize(W * C);
  slot_products.resize(W);
  key_gradient.resize(model.per_channel ? d : 0);
  slot_channel_gradient.resize(model.per_channel ? d : 0);
  reader_lambda.resize(model.query_heads);
  reader_scale.resize(model.query_heads);
  reader_ratio.resize(model.query_heads);
  context.tokens.resize(L, d);
}

LayerForward layer_loss(const LayerModel& model, const LayerParameters& parameters,
                        const LayerContext& context, LayerWorkspace& w, LayerParameters* gradient,
                        std::optional<int> head) {
  forward_heads(model, parameters, context, w);
  for (int r = 0; r < model.readers(); ++r) {
    w.head_mass[r] = attend(model, parameters, r, context.needle, w);
  }
  const double mass = w.head_mass.mean();
  const double z = model.beta_out * mass;
  const LayerForward forward{model.loss.value(z), mass};
  if (!gradient) return forward;
  const double coef = model.beta_out * model.loss.derivative(z, 1) / model.readers();
  const int first = head.value_or(0), last = head.value_or(model.heads - 1);
  for (int h = first; h <= last; ++h) {
    if (model.per_channel) {
      backward_head_channels(model, parameters, h, context, coef, w, *gradient);
    } else {
      backward_head(model, parameters, h, context.needle, coef, w, *gradient);
    }
    for (int r = h * model.query_heads; r < (h + 1) * model.query_heads; ++r) {
      gradient->log_lambda()[r] *= portable::exp(parameters.log_lambda()[r]);
      if (model.query_projection) projection_gradient(model, context, r, w, *gradient);
    }
    content_gradient(model, context, w, h, *gradient);
  }
  return forward;
}

void layer_argmax(const LayerModel& model, const LayerParameters& parameters,
                  const LayerContext& context, LayerWorkspace& w, std::span<niah::Argmax> readers) {
  forward_heads(model, parameters, context, w);
  for (int r = 0; r < model.readers(); ++r) {
    niah::Argmax best;
    for (Eigen::Index j = 0; j < ix(model.entries()); ++j) best.offer(j, w.scores(r, j));
    readers[static_cast<std::size_t>(r)] = best;
  }
}

}  // namespace phasesim::training
