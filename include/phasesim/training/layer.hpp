#pragma once
// A tiny compressed-attention layer that gradient descent can train (docs/TRAINING.md; the
// geometry, gate and channel of MODEL.md sections 2-4, the output loss of section 6).
//
// Context: L tokens with embeddings x_t ~ N(0, I_d / d), fresh in every context. Head h pools
// entry j over its W slots with gate logits z_{j,s} = b_{h,s} + a_h . x_{t(j,s)}, weights
// g_{j,s} = softmax_s(z_j) over the slots that exist, key K_j = sum_s g_{j,s} x_{t(j,s)}
// (optionally RMS-normalized). The query of a needle at p is q = x_p + sigma_q eps; head h
// attends with softmax_j(lambda_h q . K_j); m is the heads' average attention mass on the
// entries that hold p, and the loss is l(beta_o m) = log(1 + M e^{-beta_o m}).
//
// This header holds the model, its parameters, one context, and the forward pass with its
// hand-written gradient (no autodiff): what one item of a training batch computes.
#include <Eigen/Core>
#include <cstdint>
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
  int heads = 8;                ///< H
  int dim = 32;                 ///< d
  std::int64_t context = 2048;  ///< L
  double query_noise = 1;       ///< sigma_q (1: beta = sqrt(d / 2) = 4, T1's threshold regime)
  bool rms_norm = false;        ///< RMS-normalize every pooled key
  bool content = true;          ///< learn the content term a_h (off: a = 0, frozen)
  double beta_out = 12;         ///< beta_o
  theorems::OutputLoss loss;    ///< l(z) = log(1 + M e^-z), M = loss.answers

  /// Throws InputError, naming the `train` option, unless the model is well formed and its
  /// random draws fit the counters (positions and dimensions index 32-bit words).
  void validate() const;
  /// N_c = floor((L - o) / S): the entries before the query.
  std::int64_t entries() const { return geometry.entries_before(context); }
  /// Needle positions of training contexts, drawn uniformly: the geometry's interior, where
  /// every entry that holds the needle exists and has all its slots (the range `niah` uses).
  PositionRange needle_range() const { return geometry.interior(entries()); }
};

/// theta = (b, a, log lambda), one flat vector (what Adam updates) with a view per group.
/// lambda_h = exp(log lambda_h) keeps the attention's inverse temperature positive.
class LayerParameters {
 public:
  using Matrix = Eigen::Map<RowMatrix>;
  using ConstMatrix = Eigen::Map<const RowMatrix>;
  using Vector = Eigen::Map<Eigen::VectorXd>;
  using ConstVector = Eigen::Map<const Eigen::VectorXd>;

  /// All zero.
  LayerParameters(int heads, int window, int dim);

  Matrix bias() { return {values_.data(), heads_, window_}; }  ///< b: H x W
  ConstMatrix bias() const { return {values_.data(), heads_, window_}; }
  Matrix content() { return {values_.data() + content_offset(), heads_, dim_}; }  ///< a: H x d
  ConstMatrix content() const { return {values_.data() + content_offset(), heads_, dim_}; }
  Vector log_lambda() { return {values_.data() + lambda_offset(), heads_}; }  ///< H
  ConstVector log_lambda() const { return {values_.data() + lambda_offset(), heads_}; }

  Eigen::VectorXd& values() { return values_; }
  const Eigen::VectorXd& values() const { return values_; }

 private:
  Eigen::Index content_offset() const { return Eigen::Index{heads_} * window_; }
  Eigen::Index lambda_offset() const { return content_offset() + Eigen::Index{heads_} * dim_; }

  int heads_, window_, dim_;
  Eigen::VectorXd values_;
};

using FloatRows = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// One context: the token embeddings, the query and the needle position.
struct LayerContext {
  RowMatrix tokens;       ///< L x d
  Eigen::VectorXd query;  ///< d
  std::int64_t needle = 0;
  std::vector<float> normals;  ///< the block generator's draws before they widen to double
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
struct LayerWorkspace {
  explicit LayerWorkspace(const LayerModel& model);

  LayerContext context;           ///< the context a batch item draws into
  Eigen::VectorXd projection;     ///< y_t = q . x_t
  RowMatrix token_logits;         ///< c_{h,t} = a_h . x_t, then exp(c - max c): H x L
  RowMatrix gram;                 ///< x_t . x_{t-k} for k < W (RMS norm only): L x W
  RowMatrix gates;                ///< g_{j,s} of every head: (H N_c) x W
  RowMatrix scores;               ///< r_{h,j} = q . K_j (RMS: q . K_j / rms(K_j)): H x N_c
  RowMatrix squared_norms;        ///< ||K_j||^2 (RMS norm only): H x N_c
  RowMatrix attention;            ///< softmax_j(lambda_h r_{h,j}): H x N_c
  RowMatrix token_gradient;       ///< dLoss/dc_{h,t}: H x L
  Eigen::VectorXd head_mass;      ///< m_h: H
  Eigen::VectorXd slot_weights;   ///< exp(b_s - max b) of one head: W
  Eigen::VectorXd slot_products;  ///< K_j . x_{t(j,s)} of one entry (RMS norm only): W
};

/// What the forward pass gives for one context.
struct LayerForward {
  double loss = 0;  ///< l(beta_o m)
  double mass = 0;  ///< m: the heads' average attention mass on the needle's entries
};

/// The loss of `parameters` on `context` (drawn into workspace.context or given), and when
/// `gradient` is not null its gradient with respect to every parameter (written, not added).
LayerForward layer_loss(const LayerModel& model, const LayerParameters& parameters,
                        const LayerContext& context, LayerWorkspace& workspace,
                        LayerParameters* gradient);

/// Hard attention, for evaluation: the entry each head attends to most (the argmax of
/// q . K_j, or of its RMS-normalized form; lambda_h > 0 does not change it; ties: the lower
/// entry), one per head in `heads`.
void layer_argmax(const LayerModel& model, const LayerParameters& parameters,
                  const LayerContext& context, LayerWorkspace& workspace,
                  std::span<niah::Argmax> heads);

}  // namespace phasesim::training
