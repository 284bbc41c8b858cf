#pragma once
// A tiny compressed-attention layer that gradient descent can train (docs/TRAINING.md; the
// geometry, gate and channel of MODEL.md sections 2-4, the output loss of section 6).
//
// Context: L tokens with embeddings x_t ~ N(0, I_d / d), fresh in every context. Head h (a
// cache) pools entry j over its W slots with gate logits z_{j,s} = b_{h,s} + a_h . x_{t(j,s)},
// weights g_{j,s} = softmax_s(z_j) over the slots that exist, key K_j = sum_s g_{j,s} x_{t(j,s)}
// (optionally RMS-normalized). The query of a needle at p is q = x_p + sigma_q eps; head h
// attends with softmax_j(lambda_h q . K_j); m is the heads' average attention mass on the
// entries that hold p, and the loss is l(beta_o m) = log(1 + M e^{-beta_o m}).
// The real compressor's options (MODEL.md section 9, docs/TRAINING.md): a gate per channel
// (b_h: W x d, content A_h: d x d, a softmax over slots for every channel), K query heads per
// cache (each its own query noise, lambda and optionally a learned d x d query projection),
// and split projections (older slots read rho x_t + sqrt(1 - rho^2) x''_t).
//
// This header holds the model, its parameters, one context, and the forward pass with its
// hand-written gradient (no autodiff): what one item of a training batch computes.
#include <Eigen/Core>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "phasesim/model/geometry.hpp"
#include "phasesim/niah/argmax.hpp"
#include "phasesim/theorems/diversity.hpp"

namespace phasesim::training {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// The layer and the data it is trained on.
struct LayerModel {
  Geometry geometry;
  int heads = 8;                ///< H: caches, each pooled by its own gate
  int dim = 32;                 ///< d
  std::int64_t context = 2048;  ///< L
  double query_noise = 1;       ///< sigma_q (1: beta = sqrt(d / 2) = 4, T1's threshold regime)
  bool rms_norm = false;        ///< RMS-normalize every pooled key
  bool content = true;          ///< learn the content term a_h (off: a = 0, frozen)
  /// A gate per channel (V4's `ape`): b_h is W x d and the content term a d x d matrix A_h,
  /// the softmax over slots taken for every channel. Off: one gate, b_h in R^W, a_h in R^d.
  bool per_channel = false;
  int query_heads = 1;  ///< K query heads read each cache, each its own query noise and lambda
  bool query_projection = false;  ///< each query head learns a d x d projection of its query
  /// rho: slots older than the entry's own chunk (s < W - S) read the token's older key
  /// rho x_t + sqrt(1 - rho^2) x''_t; the query matches the newer key x_t. 1: one projection.
  double split_rho = 1;
  double beta_out = 12;       ///< beta_o
  theorems::OutputLoss loss;  ///< l(z) = log(1 + M e^-z), M = loss.answers

  /// Throws InputError, naming the `train` option, unless the model is well formed and its
  /// random draws fit the counters (positions and dimensions index 32-bit words).
  void validate() const;
  /// N_c = floor((L - o) / S): the entries before the query.
  std::int64_t entries() const { return geometry.entries_before(context); }
  /// Needle positions of training contexts, drawn uniformly: the geometry's interior, where
  /// every entry that holds the needle exists and has all its slots (the range `niah` uses).
  PositionRange needle_range() const { return geometry.interior(entries()); }
  /// C: the gates of one head (d with per_channel, else 1).
  int channels() const { return per_channel ? dim : 1; }
  /// R = H K: every query head; query head k of cache h is reader h K + k.
  int readers() const { return heads * query_heads; }
  /// Slots that read the older key: W - S with split projections, else 0.
  int older_slots() const { return split_rho < 1 ? geometry.older_slots() : 0; }
  /// Query noise draws per context: one shared by every head when K = 1 (the single-query
  /// layer), else one per query head.
  int query_draws() const { return query_heads > 1 ? readers() : 1; }
  /// Distinct queries a forward pass reads: one per query head once each projects its own.
  int distinct_queries() const { return query_projection ? readers() : query_draws(); }
};

/// theta = (b, a, log lambda, query projections), one flat vector (what Adam updates) with a
/// view per group. lambda_r = exp(log lambda_r) keeps each query head's inverse temperature
/// positive. With every option of the real compressor off the layout is H W, H d, H.
class LayerParameters {
 public:
  using Matrix = Eigen::Map<RowMatrix>;
  using ConstMatrix = Eigen::Map<const RowMatrix>;
  using Vector = Eigen::Map<Eigen::VectorXd>;
  using ConstVector = Eigen::Map<const Eigen::VectorXd>;

  /// All zero, shaped for `model`.
  explicit LayerParameters(const LayerModel& model);

  /// b: H x (W C), row h holding b_{h,s,c} at s C + c.
  Matrix bias() { return {values_.data(), heads_, window_ * channels_}; }
  ConstMatrix bias() const { return {values_.data(), heads_, window_ * channels_}; }
  /// b_h as W x C.
  Matrix head_bias(int h) {
    return {values_.data() + Eigen::Index{h} * window_ * channels_, window_, channels_};
  }
  ConstMatrix head_bias(int h) const {
    return {values_.data() + Eigen::Index{h} * window_ * channels_, window_, channels_};
  }
  /// a: H x (C d), row h holding a_h (C = 1) or A_h row by row.
  Matrix content() { return {values_.data() + content_offset(), heads_, channels_ * dim_}; }
  ConstMatrix content() const {
    return {values_.data() + content_offset(), heads_, channels_ * dim_};
  }
  /// a_h as 1 x d, or A_h as d x d: channel c's logit is row c times the key.
  Matrix head_content(int h) { return {content_row(h), channels_, dim_}; }
  ConstMatrix head_content(int h) const { return {content_row(h), channels_, dim_}; }
  Vector log_lambda() { return {values_.data() + lambda_offset(), readers_}; }  ///< R
  ConstVector log_lambda() const { return {values_.data() + lambda_offset(), readers_}; }
  /// The d x d query projection of query head r (query_projection only).
  Matrix projection(int r) { return {projection_row(r), dim_, dim_}; }
  ConstMatrix projection(int r) const { return {projection_row(r), dim_, dim_}; }

  /// A run of values(): `size` parameters from `offset`.
  struct Segment {
    Eigen::Index offset = 0, size = 0;
  };
  /// What belongs to head h, in the order of values(): its bias row, its content row, and the
  /// lambdas and projections of its query heads (readers h K .. h K + K - 1; the projections
  /// empty without them). The heads' segments partition values().
  std::array<Segment, 4> head_segments(int h) const;

  Eigen::VectorXd& values() { return values_; }
  const Eigen::VectorXd& values() const { return values_; }
  int heads() const { return heads_; }
  int window() const { return window_; }
  int channels() const { return channels_; }

 private:
  Eigen::Index content_offset() const { return Eigen::Index{heads_} * window_ * channels_; }
  Eigen::Index lambda_offset() const {
    return content_offset() + Eigen::Index{heads_} * channels_ * dim_;
  }
  Eigen::Index projection_offset() const { return lambda_offset() + readers_; }
  double* content_row(int h) {
    return values_.data() + content_offset() + Eigen::Index{h} * channels_ * dim_;
  }
  const double* content_row(int h) const {
    return values_.data() + content_offset() + Eigen::Index{h} * channels_ * dim_;
  }
  double* projection_row(int r) {
    return values_.data() + projection_offset() + Eigen::Index{r} * dim_ * dim_;
  }
  const double* projection_row(int r) const {
    return values_.data() + projection_offset() + Eigen::Index{r} * dim_ * dim_;
  }

  int heads_, window_, dim_, channels_, readers_;
  Eigen::VectorXd values_;
};

using FloatRows = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// One context: the token embeddings, the queries and the needle position.
struct LayerContext {
  RowMatrix tokens;        ///< L x d
  RowMatrix older_tokens;  ///< rho x_t + sqrt(1 - rho^2) x''_t: L x d (split projections only)
  /// x_p + sigma_q eps_i, i < query_draws(): one shared by every head (K = 1), or one per
  /// query head.
  std::vector<Eigen::VectorXd> queries;
  std::int64_t needle = 0;
  std::vector<float> normals;  ///< the block generator's draws before they widen to double

  /// The query noise draw of query head r.
  const Eigen::VectorXd& query(int r) const {
    return queries[queries.size() == 1 ? 0 : static_cast<std::size_t>(r)];
  }
};

/// Training context `index` of step `step`: tokens, query noise and needle position from the
/// training streams keyed by (seed, step, index), so a batch is the same on any thread.
void draw_training_context(const LayerModel& model, std::uint64_t seed, std::uint32_t step,
                           std::uint32_t index, LayerContext& context);

/// Evaluation context of NIAH trial `trial` with its needle at `needle` (the NIAH plan's
/// position), from the evaluation streams keyed by (seed, trial).
void draw_evaluation_context(const LayerModel& model, std::uint64_t seed, std::uint32_t trial,
                             std::int64_t needle, LayerContext& context);

/// Scratch memory of one forward and backward pass, sized once for a model and reused.
/// "Older" arrays are those of the older keys (split projections only); C = channels().
struct LayerWorkspace {
  explicit LayerWorkspace(const LayerModel& model);

  LayerContext context;                           ///< the context a batch item draws into
  std::vector<Eigen::VectorXd> queries;           ///< projected queries (query_projection only)
  std::vector<Eigen::VectorXd> projection;        ///< y_t = q . x_t per distinct query (one gate)
  std::vector<Eigen::VectorXd> older_projection;  ///< q . x~_t (one gate, split)
  RowMatrix token_logits;         ///< c_{h,t,c} = (A_h x_t)_c, then exp(c - max c): H x (L C)
  RowMatrix older_logits;         ///< the same of x~_t (split)
  RowMatrix gram;                 ///< x_t . x_{t-k} for k < W (one gate, RMS norm): L x W
  RowMatrix older_gram;           ///< x~_t . x~_{t-k} (and split)
  RowMatrix cross_gram;           ///< x_t . x~_{t-k} (and split)
  RowMatrix gates;                ///< g_{j,s,c} of every head: (H N_c) x (W C)
  RowMatrix keys;                 ///< pooled keys K_{h,j} (per channel): (H N_c) x d
  RowMatrix scores;               ///< r_{r,j} = q_r . K_j (RMS: q_r . K_j / rms(K_j)): R x N_c
  RowMatrix squared_norms;        ///< ||K_j||^2 (RMS norm only): H x N_c
  RowMatrix attention;            ///< softmax_j(lambda_r r_{r,j}): R x N_c
  RowMatrix token_gradient;       ///< dLoss/dc_{h,t,c}: H x (L C)
  RowMatrix older_gradient;       ///< dLoss/dc~_{h,t,c} (split)
  RowMatrix query_weights;        ///< dLoss/dq_r = sum_t u_{r,t} x_t (one gate, projection): R x L
  RowMatrix older_query_weights;  ///< ... + sum_t u~_{r,t} x~_t (and split)
  RowMatrix query_gradient;       ///< dLoss/dq_r (query_projection only): R x d
  Eigen::VectorXd head_mass;      ///< m_r: R
  Eigen::VectorXd slot_weights;   ///< exp(b_s - max b) of one head: W C
  Eigen::VectorXd slot_products;  ///< K_j . x_{t(j,s)} of one entry (RMS norm only): W
  Eigen::VectorXd key_gradient;   ///< dLoss/dK_j of one entry (per channel): d
  Eigen::RowVectorXd slot_channel_gradient;    ///< dLoss/dz_{j,s,c} of one slot (per channel): d
  Eigen::VectorXd reader_lambda;               ///< lambda of head h's query heads: K
  Eigen::VectorXd reader_scale, reader_ratio;  ///< per query head of one entry: K
};

/// What the forward pass gives for one context.
struct LayerForward {
  double loss = 0;  ///< l(beta_o m)
  double mass = 0;  ///< m: the query heads' average attention mass on the needle's entries
};

/// The loss of `parameters` on `context` (drawn into workspace.context or given), and when
/// `gradient` is not null its gradient with respect to every parameter (written, not added),
/// or with `head` only head h's segments of it (LayerParameters::head_segments: the same bits;
/// the others are left as they were), at the cost of the forward pass and one head's backward.
LayerForward layer_loss(const LayerModel& model, const LayerParameters& parameters,
                        const LayerContext& context, LayerWorkspace& workspace,
                        LayerParameters* gradient, std::optional<int> head = std::nullopt);

/// Hard attention, for evaluation: the entry each query head attends to most (the argmax of
/// q_r . K_j, or of its RMS-normalized form; lambda_r > 0 does not change it; ties: the lower
/// entry), one per query head (R = H K) in `readers`.
void layer_argmax(const LayerModel& model, const LayerParameters& parameters,
                  const LayerContext& context, LayerWorkspace& workspace,
                  std::span<niah::Argmax> readers);

}  // namespace phasesim::training
