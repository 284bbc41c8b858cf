// The layer's forward pass and its hand-written gradient (docs/TRAINING.md derives every
// formula used here). Per context the heavy work is four dense products, shared by the heads
// where it can be: y = X q, C = A X^T, the Gram band of X (RMS norm only) and dA = E X; the
// per-entry loops are O(H N_c W) (O(H N_c W^2) with RMS norm).
#include "phasesim/training/layer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "phasesim/core/error.hpp"
#include "phasesim/core/normal_block.hpp"
#include "phasesim/core/portable_math.hpp"
#include "phasesim/core/random.hpp"

namespace phasesim::training {
namespace {

constexpr std::int64_t kMaxEmbeddingValues = std::int64_t{1} << 24;  // L d per context
constexpr int kMaxHeads = 1024;
constexpr int kMaxDim = 4096;

// Tokens x_t ~ N(0, I/d) at index t of `tokens`; the query x_p + sigma_q eps with eps at index
// 0 of `noise`. The normals are the block generator's (normal_block.hpp), the engines' own
// float sampler: the same bits on every CPU and SIMD target, and at 65,536 normals a context
// (L 2048, d 32) faster than the ziggurat of double normals it replaced (100 steps at the
// default size: 0.85 s of CPU against 1.20 s, AVX3, one thread). Widened to double, they
// are scaled there.
void draw_context(const LayerModel& model, const RandomStream& tokens, const RandomStream& noise,
                  std::int64_t needle, LayerContext& context) {
  const int d = model.dim;
  const double scale = 1 / std::sqrt(static_cast<double>(d));
  auto& normals = context.normals;
  normals.resize(static_cast<std::size_t>(model.context * d));
  normal_rows(tokens, 0, model.context, d, 1.0f, normals.data(), d);
  context.tokens = Eigen::Map<const FloatRows>(normals.data(), model.context, d).cast<double>();
  context.tokens *= scale;
  normal_rows(noise, 0, 1, d, 1.0f, normals.data(), d);
  context.query = Eigen::Map<const Eigen::VectorXf>(normals.data(), d).cast<double>();
  context.query *= scale * model.query_noise;
  context.query += context.tokens.row(needle).transpose();
  context.needle = needle;
}

// ||K_j||^2 = sum_{s,s'} g_s g_s' x_{t_s} . x_{t_s'}, and v_s = K_j . x_{t_s} into `v`, from the
// Gram band (gram(t, k) = x_t . x_{t-k}).
double pooled_norm(const RowMatrix& gram, std::int64_t t0, int first, int window, const double* g,
                   double* v) {
  double squared = 0;
  for (int s = first; s < window; ++s) {
    double sum = 0;
    for (int r = first; r < window; ++r) {
      sum += g[r] * (r <= s ? gram(t0 + s, s - r) : gram(t0 + r, r - s));
    }
    v[s] = sum;
    squared += g[s] * sum;
  }
  return squared;
}

// The gate of entry j of head h: softmax over its existing slots of b_s + c_t, computed as
// exp(b_s - max b) exp(c_t - max c) normalized, or directly if that product underflows.
void entry_gate(const LayerModel& model, const LayerParameters& parameters,
                const LayerContext& context, int h, const LayerWorkspace& w, std::int64_t j,
                double* g) {
  const int W = model.geometry.window;
  const int first = model.geometry.first_existing_slot(j);
  const std::int64_t t0 = model.geometry.position(j, 0);
  double sum = 0;
  for (int s = 0; s < W; ++s) {
    g[s] = s < first ? 0.0 : w.slot_weights[s] * (model.content ? w.token_logits(h, t0 + s) : 1.0);
    sum += g[s];
  }
  if (!(sum > 0 && std::isfinite(sum))) {  // content logits far apart: exact softmax
    const auto b = parameters.bias().row(h);
    const auto a = parameters.content().row(h);
    double top = -std::numeric_limits<double>::infinity();
    for (int s = first; s < W; ++s) {
      g[s] = b[s] + (model.content ? a.dot(context.tokens.row(t0 + s)) : 0.0);
      top = std::max(top, g[s]);
    }
    sum = 0;
    for (int s = first; s < W; ++s) sum += (g[s] = portable::exp(g[s] - top));
  }
  for (int s = first; s < W; ++s) g[s] /= sum;
}

// Per-context products shared by the heads: y = X q, C = A X^T, the Gram band. The matrix
// products are lazy (coefficient by coefficient, each sum in index order): Eigen's blocked
// product splits a long inner dimension at a block size it derives from the CPU's cache sizes,
// so its sums, and 600 Adam steps after them, would differ from one CPU to another.
void prepare_context(const LayerModel& model, const LayerParameters& parameters,
                     const LayerContext& context, LayerWorkspace& w) {
  w.projection.noalias() = context.tokens * context.query;
  if (model.content) {
    w.token_logits.noalias() = parameters.content().lazyProduct(context.tokens.transpose());
  }
  if (model.rms_norm) {
    const int W = model.geometry.window;
    for (std::int64_t t = 0; t < model.context; ++t) {
      for (int k = 0; k < W; ++k) {
        w.gram(t, k) = t >= k ? context.tokens.row(t).dot(context.tokens.row(t - k)) : 0.0;
      }
    }
  }
}

// Gates and scores r_{h,j} of head h over all entries.
void pool_head(const LayerModel& model, const LayerParameters& parameters,
               const LayerContext& context, int h, LayerWorkspace& w) {
  const int W = model.geometry.window;
  const auto N = model.entries();
  const auto b = parameters.bias().row(h);
  w.slot_weights = (b.array() - b.maxCoeff()).exp().transpose();
  if (model.content) {
    auto c = w.token_logits.row(h).array();
    c = (c - c.maxCoeff()).exp();
  }
  const double root_d = std::sqrt(static_cast<double>(model.dim));
  double* v = w.slot_products.data();
  for (std::int64_t j = 0; j < N; ++j) {
    double* g = w.gates.row(h * N + j).data();
    entry_gate(model, parameters, context, h, w, j, g);
    const int first = model.geometry.first_existing_slot(j);
    const std::int64_t t0 = model.geometry.position(j, 0);
    double score = 0;
    for (int s = first; s < W; ++s) score += g[s] * w.projection[t0 + s];
    if (model.rms_norm) {
      const double squared = pooled_norm(w.gram, t0, first, W, g, v);
      w.squared_norms(h, j) = squared;
      score = squared > 0 ? root_d * score / std::sqrt(squared) : 0.0;
    }
    w.scores(h, j) = score;
  }
}

// Attention of head h and its mass on the needle's entries.
double attend(const LayerModel& model, const LayerParameters& parameters, int h,
              std::int64_t needle, LayerWorkspace& w) {
  const double lambda = portable::exp(parameters.log_lambda()[h]);
  auto alpha = w.attention.row(h).array();
  alpha = lambda * w.scores.row(h).array();
  alpha = (alpha - alpha.maxCoeff()).exp();
  alpha /= alpha.sum();
  const auto holding = model.geometry.entries_holding(needle, model.entries());
  double mass = 0;
  for (auto j = holding.first; j <= holding.last; ++j) mass += alpha[j];
  return mass;
}

// Head h's part of the gradient, given dLoss/dm_h = coef: its rows of the bias and log-lambda
// gradient and of the token gradient E (from which dLoss/da_h = E_h X).
void backward_head(const LayerModel& model, const LayerParameters& parameters, int h,
                   std::int64_t needle, double mass, double coef, LayerWorkspace& w,
                   LayerParameters& gradient) {
  const int W = model.geometry.window;
  const auto N = model.entries();
  const double lambda = portable::exp(parameters.log_lambda()[h]);
  const double root_d = std::sqrt(static_cast<double>(model.dim));
  const auto holding = model.geometry.entries_holding(needle, model.entries());
  auto db = gradient.bias().row(h);
  db.setZero();
  if (model.content) w.token_gradient.row(h).setZero();
  double dlambda = 0;
  double* v = w.slot_products.data();
  for (std::int64_t j = 0; j < N; ++j) {
    const double holds = holding.contains(j) ? 1.0 : 0.0;
    const double delta = coef * w.attention(h, j) * (holds - mass);  // dLoss / d(lambda r_j)
    const double r = w.scores(h, j);
    dlambda += delta * r;
    const double* g = w.gates.row(h * N + j).data();
    const int first = model.geometry.first_existing_slot(j);
    const std::int64_t t0 = model.geometry.position(j, 0);
    // dr_j/dz_{j,s} = g_s f_s, with sum_s g_s f_s = 0 (docs/TRAINING.md).
    double scale = lambda * delta;
    double ratio = 0;  // P_j / Q_j
    if (model.rms_norm) {
      const double squared = w.squared_norms(h, j);
      if (!(squared > 0)) continue;
      pooled_norm(w.gram, t0, first, W, g, v);
      scale *= root_d / std::sqrt(squared);
      ratio = r / (root_d * std::sqrt(squared));
    }
    for (int s = first; s < W; ++s) {
      const double f =
          model.rms_norm ? w.projection[t0 + s] - ratio * v[s] : w.projection[t0 + s] - r;
      const double e = scale * g[s] * f;
      db[s] += e;
      if (model.content) w.token_gradient(h, t0 + s) += e;
    }
  }
  gradient.log_lambda()[h] = lambda * dlambda;
}

}  // namespace

void LayerModel::validate() const {
  geometry.validate();
  require_in_range(heads, 1, kMaxHeads, "--heads");
  require_in_range(dim, 2, kMaxDim, "--dim");
  require(geometry.window <= kMaxDim, "invalid --window " + std::to_string(geometry.window) +
                                          " (must be at most " + std::to_string(kMaxDim) + ")");
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
  require_non_negative(query_noise, "--query-noise");
  require_positive(beta_out, "--beta-out");
  require_positive(loss.answers, "--answers");
}

LayerParameters::LayerParameters(int heads, int window, int dim)
    : heads_(heads),
      window_(window),
      dim_(dim),
      values_(Eigen::VectorXd::Zero(Eigen::Index{heads} * (window + dim + 1))) {}

void draw_training_context(const LayerModel& model, std::uint64_t seed, std::uint32_t step,
                           std::uint32_t index, LayerContext& context) {
  const RandomStream position(seed, step, index, Stream::training_needle);
  const double u = position.uniform_pair(0, 0).x;  // (0, 1]
  const auto needles = model.needle_range();
  const auto count = needles.last - needles.first + 1;
  const auto offset = std::min(count - 1, static_cast<std::int64_t>((1 - u) * double(count)));
  draw_context(model, RandomStream(seed, step, index, Stream::training_token),
               RandomStream(seed, step, index, Stream::training_query), needles.first + offset,
               context);
}

void draw_evaluation_context(const LayerModel& model, std::uint64_t seed, std::uint32_t trial,
                             std::int64_t needle, LayerContext& context) {
  draw_context(model, RandomStream(seed, trial, 0, Stream::evaluation_token),
               RandomStream(seed, trial, 0, Stream::evaluation_query), needle, context);
}

LayerWorkspace::LayerWorkspace(const LayerModel& model)
    : projection(model.context),
      token_logits(model.content ? model.heads : 0, model.context),
      gram(model.rms_norm ? model.context : 0, model.geometry.window),
      gates(model.heads * model.entries(), model.geometry.window),
      scores(model.heads, model.entries()),
      squared_norms(model.rms_norm ? model.heads : 0, model.entries()),
      attention(model.heads, model.entries()),
      token_gradient(model.content ? model.heads : 0, model.context),
      head_mass(model.heads),
      slot_weights(model.geometry.window),
      slot_products(model.geometry.window) {
  context.tokens.resize(model.context, model.dim);
  context.query.resize(model.dim);
}

LayerForward layer_loss(const LayerModel& model, const LayerParameters& parameters,
                        const LayerContext& context, LayerWorkspace& w, LayerParameters* gradient) {
  prepare_context(model, parameters, context, w);
  for (int h = 0; h < model.heads; ++h) {
    pool_head(model, parameters, context, h, w);
    w.head_mass[h] = attend(model, parameters, h, context.needle, w);
  }
  const double mass = w.head_mass.mean();
  const double z = model.beta_out * mass;
  const LayerForward forward{model.loss.value(z), mass};
  if (!gradient) return forward;
  const double coef = model.beta_out * model.loss.derivative(z, 1) / model.heads;
  for (int h = 0; h < model.heads; ++h) {
    backward_head(model, parameters, h, context.needle, w.head_mass[h], coef, w, *gradient);
  }
  if (model.content) {
    gradient->content().noalias() = w.token_gradient.lazyProduct(context.tokens);  // see above
  } else {
    gradient->content().setZero();
  }
  return forward;
}

void layer_argmax(const LayerModel& model, const LayerParameters& parameters,
                  const LayerContext& context, LayerWorkspace& w, std::span<niah::Argmax> heads) {
  prepare_context(model, parameters, context, w);
  for (int h = 0; h < model.heads; ++h) {
    pool_head(model, parameters, context, h, w);
    niah::Argmax best;
    for (std::int64_t j = 0; j < model.entries(); ++j) best.offer(j, w.scores(h, j));
    heads[static_cast<std::size_t>(h)] = best;
  }
}

}  // namespace phasesim::training
