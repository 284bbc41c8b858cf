#pragma once
// Training the layer (docs/TRAINING.md): Adam on mini-batches of random contexts, each
// batch item keyed by (seed, step, index) and its gradient reduced in index order, so a run
// is a pure function of its spec whatever the thread count. Then what `phasesim train`
// reports: where each head's gate started and ended (T2), the phases no head covers (T3),
// and the trained layer's per-group NIAH table (MODEL.md section 5) with its period.
#include <Eigen/Core>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "phasesim/core/budget.hpp"
#include "phasesim/core/parallel.hpp"
#include "phasesim/niah/report.hpp"
#include "phasesim/niah/run.hpp"
#include "phasesim/stats/period.hpp"
#include "phasesim/training/layer.hpp"

namespace phasesim::training {

struct AdamSettings {
  double lr = 0.05;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double epsilon = 1e-8;
};

/// Adam (Kingma and Ba), bias-corrected, over one flat parameter vector.
class Adam {
 public:
  Adam(Eigen::Index size, const AdamSettings& settings);
  /// theta -= lr m_hat / (sqrt(v_hat) + epsilon) after folding in `gradient`.
  void step(Eigen::VectorXd& theta, const Eigen::VectorXd& gradient);

 private:
  AdamSettings settings_;
  Eigen::VectorXd first_, second_;
  /// beta1^t and beta2^t after t steps, kept as running products: std::pow is one of the
  /// functions glibc picks per CPU, and its last bit would move every later step.
  double beta1_power_ = 1, beta2_power_ = 1;
};

/// Where the heads' gradients come from (--batches). shared: every head's from the same batch
/// of contexts. independent: head h's from its own batch (training contexts h B .. h B + B - 1
/// of the step), so that the heads' gradient noise is independent while its mean is the same;
/// the forward pass is still the whole layer's, so a step costs H times the contexts.
enum class Batches { shared, independent };
/// Throws InputError naming --batches and its values.
Batches parse_batches(std::string_view name);
std::string to_string(Batches batches);

/// Everything `phasesim train` takes, under its option names.
struct LabSpec {
  LayerModel model;
  int steps = 2000;
  int batch = 16;
  Batches batches = Batches::shared;
  AdamSettings adam;
  double init_scale = 0.1;            ///< head h starts at the logits of random:SEED+h:SCALE
  std::optional<double> init_lambda;  ///< lambda_h at the start; unset: default_lambda()
  std::uint64_t seed = 1;
  int record_every = 20;       ///< gate trajectory and loss curve every K steps
  int log_every = 200;         ///< progress callback every K steps
  int groups = 8;              ///< NIAH evaluation: G
  int prompts = 256;           ///< NIAH evaluation: trials per group
  double period_alpha = 0.01;  ///< level of the period test of the table (stats/period.hpp)

  /// Throws InputError naming the option; bounds the work before any is done.
  void validate() const;
  /// The time and memory of the training (check_work bounds them): steps x batch contexts
  /// (x heads with independent batches), each a forward and backward pass over context x dim
  /// embedding values for every head.
  WorkEstimate estimate() const;
  /// check_work of estimate() on `threads` threads, naming steps x batch x context.
  void check_work(int threads) const;
  /// sqrt(d) without RMS norm and 1 with it: either way an entry holding the needle with all
  /// its weight on it starts about sqrt(d) standard deviations of a distractor's logit ahead.
  double default_lambda() const;
  /// The period test of the evaluation table: diagnose's defaults at period_alpha, keyed by
  /// the seed.
  stats::PeriodOptions period_options() const { return {9999, seed, period_alpha}; }
};

/// The mean loss and gradient of a step's batch (LabSpec::batches says which contexts each
/// head's gradient comes from), keeping its scratch memory from step to step. Each context is
/// drawn and differentiated by whichever thread takes it, then summed in index order: the same
/// bits on any number of threads.
class BatchGradient {
 public:
  explicit BatchGradient(const LabSpec& spec);  ///< `spec` must outlive this
  ~BatchGradient();
  BatchGradient(const BatchGradient&) = delete;
  BatchGradient& operator=(const BatchGradient&) = delete;
  /// The batch's mean loss at `theta` on step `step`; its mean gradient into `mean`.
  double operator()(const LayerParameters& theta, int step, const Parallel& parallel,
                    Eigen::VectorXd& mean);

 private:
  struct Scratch;
  /// Loss and gradient of training contexts first .. first + batch - 1 of the step (only
  /// `head`'s segments of it when given: layer_loss).
  void differentiate(const LayerParameters& theta, int step, std::uint32_t first,
                     std::optional<int> head, const Parallel& parallel);
  const LabSpec& spec_;
  std::unique_ptr<Scratch> scratch_;
};

/// theta at step 0: b_h = the logits of random:(seed + h):init_scale (with a gate per channel,
/// channel c draws index c of that gate's stream, so channel 0 is that gate), a = 0, lambda_r,
/// and every query projection the identity.
LayerParameters initial_parameters(const LabSpec& spec);

/// The positional gates softmax(b_h), one row per head; with a gate per channel their mean
/// over the channels (what a per-channel Gate's weights are: model/gate.hpp).
RowMatrix positional_gates(const LayerParameters& parameters);

/// The positional gate of every channel of head h, softmax_s(b_{h,s,c}): C x W.
RowMatrix channel_gates(const LayerParameters& parameters, int h);

/// Channels of head h with the same bias, in the order of their first channel: the groups of
/// the per-channel gate that `niah` reads (one group without a gate per channel).
struct ChannelLogits {
  std::vector<double> logits;  ///< b_{h,s,c}, s = 0..W-1
  int count = 0;               ///< channels with these logits; the group's share is count / C
  std::string spec() const;    ///< logits:b_0,...,b_{W-1}, every digit that reads back
};
std::vector<ChannelLogits> channel_groups(const LayerParameters& parameters, int h);

/// Head h's gate as `niah` takes it: softmax(b_h), or the channel groups, each the spec
/// logits:b_0,...,b_{W-1} with share count / d.
Gate trained_gate(const LayerParameters& parameters, int h);

/// Where the channels of one head point (a gate per channel): each channel's argmax slot and
/// its phase, the share of the channels per phase (the per-channel coverage) and its entropy.
struct ChannelPhases {
  std::vector<int> slot, phase;     ///< per channel
  std::vector<double> phase_share;  ///< per phase: channels whose argmax has that phase / d
  double entropy = 0;               ///< -sum share log share, in nats (log S: spread evenly)
};
ChannelPhases channel_phases(const Geometry& geometry, const LayerParameters& parameters, int h);

/// What the progress callback sees every log_every steps (and after the last).
struct LabProgress {
  int step = 0;  ///< updates done
  int steps = 0;
  double loss = 0;  ///< mean batch loss since the previous call
  RowMatrix gates;  ///< positional gates now
};
using LabProgressCallback = std::function<void(const LabProgress&)>;

struct LossPoint {
  int step = 0;     ///< the interval (step - record_every, step]
  double loss = 0;  ///< mean batch loss over it
};

struct LabTraining {
  LayerParameters initial;
  LayerParameters final;
  std::vector<int> trajectory_steps;  ///< 0, record_every, ..., steps
  std::vector<RowMatrix> trajectory;  ///< positional gates at those steps
  /// With a gate per channel: where each head's channels point at those steps (every
  /// channel's argmax, the shares per phase), one per head (empty otherwise).
  std::vector<std::vector<ChannelPhases>> channel_trajectory;
  std::vector<LossPoint> loss_curve;
};

/// Trains from initial_parameters(spec); calls `progress` (if set) every log_every steps.
LabTraining train_layer(const LabSpec& spec, const Parallel& parallel,
                        const LabProgressCallback& progress = {});

/// The trained layer read by the NIAH protocol.
struct LabEvaluation {
  niah::NiahRun run;  ///< the protocol, with the trained gates (one per head) as the model
  /// argmax retrieval of the trained layer on fresh contexts, every query head an answer,
  /// combined by `any` (as niah's Monte Carlo engines combine query heads of a shared cache)
  niah::NiahResult table;
  /// The analytic engine on the positional gates softmax(b_h) (large d, no content term):
  /// P_h(phi) of every head, and the table with the heads combined as independent.
  std::vector<std::vector<double>> head_success;
  niah::NiahResult prediction;
  /// The same with the heads of one phase as one reader: they pool the same tokens and see
  /// the same query, so with concentrated gates they attend to the same token; each phase
  /// gets its best head's P_h(phi).
  niah::NiahResult prediction_shared;
  stats::PeriodTest period;  ///< of `table`
};

LabEvaluation evaluate_layer(const LabSpec& spec, const LayerParameters& parameters,
                             const Parallel& parallel);

/// Where a head's gate is heaviest; slots of one phase are interchangeable for retrieval.
struct SlotPhase {
  int slot = 0;
  int phase = 0;
};

/// Per head: the argmax at the start and at the end (T2 lock-in), and the phases no head's
/// final argmax covers (T3), against T3's multinomial law for H heads over S phases.
struct LabHeads {
  std::vector<SlotPhase> initial, final;
  std::vector<double> final_max_weight;
  std::vector<double> final_phase_coverage;  ///< max over phases of c_phi (coverage.hpp)
  std::vector<int> heads_per_phase;          ///< heads whose final argmax has phase phi
  std::vector<int> blind_phases, initial_blind_phases;
  int kept_slot = 0, kept_phase = 0;  ///< heads whose final argmax is their initial slot/phase
  std::vector<double> blind_law;      ///< P(j phases blind) for uniform phases, j = 0..S
  /// With a gate per channel, per head: its channels at the start and at the end.
  std::vector<ChannelPhases> initial_channels, final_channels;
};

LabHeads lab_heads(const LabSpec& spec, const LabTraining& training);

/// train_layer, lab_heads and evaluate_layer: the whole `train` command.
struct LabResult {
  LabTraining training;
  LabHeads heads;
  LabEvaluation evaluation;
};
LabResult run_lab(const LabSpec& spec, const Parallel& parallel,
                  const LabProgressCallback& progress = {});

}  // namespace phasesim::training
