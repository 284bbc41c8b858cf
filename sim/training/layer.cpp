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
#include "phasesim/core/random.hpp"
#include "phasesim/training/ziggurat.hpp"

namespace phasesim {
namespace {

constexpr std::int64_t kMaxEmbeddingValues = std::int64_t{1} << 24;  // L d per context
constexpr int kMaxHeads = 1024;
constexpr int kMaxDim = 4096;

// Tokens x_t ~ N(0, I/d) at index t of `tokens`; the query x_p + sigma_q eps with eps at index
// 0 of `noise`.
void draw_context(const LayerModel& model, const RandomStream& tokens, const RandomStream& noise,
                  std::int64_t needle, LayerContext& context) {
  const int d = model.dim;
  const double scale = 1 / std::sqrt(static_cast<double>(d));
  context.tokens.resize(model.context, d);
  for (std::int64_t t = 0; t < model.context; ++t) {
    ziggurat_normals(tokens, static_cast<std::uint32_t>(t), scale, context.tokens.row(t).data(), d);
  }
  context.query.resize(d);
  ziggurat_normals(noise, 0, scale * model.query_noise, context.query.data(), d);
  context.query += context.tokens.row(needle).transpose();
  context.needle = needle;
}

// floor(a / b) for b > 0.
std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
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
    for (int s = first; s < W; ++s) sum += (g[s] = std::exp(g[s] - top));
  }
  for (int s = first; s < W; ++s) g[s] /= sum;
}

// Per-context products shared by the heads: y = X q, C = A X^T, the Gram band.
void prepare_context(const LayerModel& model, const LayerParameters& parameters,
                     const LayerContext& context, LayerWorkspace& w) {
  w.projection.noalias() = context.tokens * context.query;
  if (model.content) w.token_logits.noalias() = parameters.content() * context.tokens.transpose();
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

// The first and last entries that hold position p.
std::pair<std::int64_t, std::int64_t> needle_entries(const LayerModel& model, std::int64_t p) {
  const std::int64_t S = model.geometry.stride, W = model.geometry.window;
  const std::int64_t first = std::max<std::int64_t>(0, floor_div(p, S));
  const std::int64_t last = std::min(model.entries() - 1, floor_div(p - S + W, S));
  return {first, last};
}

// Attention of head h and its mass on the needle's entries.
double attend(const LayerModel& model, const LayerParameters& parameters, int h,
              std::int64_t needle, LayerWorkspace& w) {
  const double lambda = std::exp(parameters.log_lambda()[h]);
  auto alpha = w.attention.row(h).array();
  alpha = lambda * w.scores.row(h).array();
  alpha = (alpha - alpha.maxCoeff()).exp();
  alpha /= alpha.sum();
  const auto [first, last] = needle_entries(model, needle);
  double mass = 0;
  for (auto j = first; j <= last; ++j) mass += alpha[j];
  return mass;
}

// Head h's part of the gradient, given dLoss/dm_h = coef: its rows of the bias and log-lambda
// gradient and of the token gradient E (from which dLoss/da_h = E_h X).
void backward_head(const LayerModel& model, const LayerParameters& parameters, int h,
                   std::int64_t needle, double mass, double coef, LayerWorkspace& w,
                   LayerParameters& gradient) {
  const int W = model.geometry.window;
  const auto N = model.entries();
  const double lambda = std::exp(parameters.log_lambda()[h]);
  const double root_d = std::sqrt(static_cast<double>(model.dim));
  const auto [first_needle, last_needle] = needle_entries(model, needle);
  auto db = gradient.bias().row(h);
  db.setZero();
  if (model.content) w.token_gradient.row(h).setZero();
  double dlambda = 0;
  double* v = w.slot_products.data();
  for (std::int64_t j = 0; j < N; ++j) {
    const double holds = j >= first_needle && j <= last_needle ? 1.0 : 0.0;
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
  require(heads >= 1 && heads <= kMaxHeads, "invalid --heads " + std::to_string(heads) +
                                                " (must be in [1, " + std::to_string(kMaxHeads) +
                                                "])");
  require(dim >= 2 && dim <= kMaxDim, "invalid --dim " + std::to_string(dim) + " (must be in [2, " +
                                          std::to_string(kMaxDim) + "])");
  require(geometry.window <= kMaxDim, "invalid --window " + std::to_string(geometry.window) +
                                          " (must be at most " + std::to_string(kMaxDim) + ")");
  const std::int64_t shortest =
      geometry.stride *
      ((2 * std::int64_t{geometry.window} + geometry.stride - 1) / geometry.stride);
  require(context >= shortest, "invalid --context " + std::to_string(context) +
                                   " (must be at least " + std::to_string(shortest) +
                                   " for --window " + std::to_string(geometry.window) +
                                   " and --stride " + std::to_string(geometry.stride) + ")");
  require(context <= kMaxEmbeddingValues / dim,
          "invalid --context " + std::to_string(context) + " (--context x --dim must be at most " +
              std::to_string(kMaxEmbeddingValues) + ": a context's embeddings are held in memory)");
  require(std::isfinite(query_noise) && query_noise >= 0,
          "invalid --query-noise " + format_number(query_noise) + " (must be finite and >= 0)");
  require(std::isfinite(beta_out) && beta_out > 0,
          "invalid --beta-out " + format_number(beta_out) + " (must be finite and > 0)");
  require(std::isfinite(loss.answers) && loss.answers > 0,
          "invalid --answers " + format_number(loss.answers) + " (must be finite and > 0)");
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
  const auto count = model.last_needle() - model.first_needle() + 1;
  const auto offset = std::min(count - 1, static_cast<std::int64_t>((1 - u) * double(count)));
  draw_context(model, RandomStream(seed, step, index, Stream::training_token),
               RandomStream(seed, step, index, Stream::training_query),
               model.first_needle() + offset, context);
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
    gradient->content().noalias() = w.token_gradient * context.tokens;
  } else {
    gradient->content().setZero();
  }
  return forward;
}

void layer_argmax(const LayerModel& model, const LayerParameters& parameters,
                  const LayerContext& context, LayerWorkspace& w, std::span<Argmax> heads) {
  prepare_context(model, parameters, context, w);
  for (int h = 0; h < model.heads; ++h) {
    pool_head(model, parameters, context, h, w);
    Argmax best;
    for (std::int64_t j = 0; j < model.entries(); ++j) best.offer(j, w.scores(h, j));
    heads[static_cast<std::size_t>(h)] = best;
  }
}

bool entry_holds(const Geometry& geometry, std::int64_t entry, std::int64_t position) {
  const auto first = geometry.position(entry, 0);
  return position >= first && position < first + geometry.window;
}

}  // namespace phasesim
