// The layer's model, parameters, contexts and workspace, and the passes that layer_loss and
// layer_argmax run over one context: the gates (layer_gates.cpp), the forward pass
// (layer_forward.cpp) and the gradient (layer_backward.cpp).
#include "phasesim/training/layer.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "layer_passes.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/core/normal_block.hpp"
#include "phasesim/core/random.hpp"

namespace phasesim::training {
namespace {

using detail::ix;

constexpr std::int64_t kMaxEmbeddingValues = std::int64_t{1} << 24;  // L d per context
constexpr std::int64_t kMaxParameters = std::int64_t{1} << 24;       // theta, and its gradients
constexpr int kMaxHeads = 1024;  // H K query heads: an index of the query noise's stream
constexpr int kMaxDim = 4096;

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
  detail::forward_heads(model, parameters, context, w);
  for (int r = 0; r < model.readers(); ++r) {
    w.head_mass[r] = detail::attend(model, parameters, r, context.needle, w);
  }
  const double mass = w.head_mass.mean();
  const double z = model.beta_out * mass;
  const LayerForward forward{model.loss.value(z), mass};
  if (!gradient) return forward;
  const double coef = model.beta_out * model.loss.derivative(z, 1) / model.readers();
  const int first = head.value_or(0), last = head.value_or(model.heads - 1);
  for (int h = first; h <= last; ++h) {
    detail::head_gradient(model, parameters, h, context, coef, w, *gradient);
  }
  return forward;
}

void layer_argmax(const LayerModel& model, const LayerParameters& parameters,
                  const LayerContext& context, LayerWorkspace& w, std::span<niah::Argmax> readers) {
  detail::forward_heads(model, parameters, context, w);
  for (int r = 0; r < model.readers(); ++r) {
    niah::Argmax best;
    for (Eigen::Index j = 0; j < ix(model.entries()); ++j) best.offer(j, w.scores(r, j));
    readers[static_cast<std::size_t>(r)] = best;
  }
}

}  // namespace phasesim::training
