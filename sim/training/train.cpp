// The training loop and the NIAH evaluation of the trained layer.
#include "phasesim/training/train.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>

#include "phasesim/core/error.hpp"
#include "phasesim/core/portable_math.hpp"
#include "phasesim/core/random.hpp"
#include "phasesim/engines/analytic_engine.hpp"
#include "phasesim/engines/plan.hpp"
#include "phasesim/model/coverage.hpp"
#include "phasesim/model/gate.hpp"
#include "phasesim/model/softmax.hpp"
#include "workspace_pool.hpp"

namespace phasesim::training {
namespace {

constexpr int kMaxSteps = 10000000;
constexpr int kMaxBatch = 65536;
// The training streams' batch index shares a 32-bit counter word with the stream's 8 bits
// (random.hpp): with independent batches it runs to heads x batch.
constexpr std::int64_t kMaxBatchIndex = std::int64_t{1} << 24;

// The evaluation protocol with the trained gates of `parameters` as the model's gates, one
// reader per head: the spec `niah` would get from --save-gates (and --split-rho).
niah::NiahSpec evaluation_spec(const LabSpec& spec, const LayerParameters& parameters) {
  niah::NiahSpec niah;
  niah.geometry = spec.model.geometry;
  for (int h = 0; h < spec.model.heads; ++h)
    niah.gate_values.push_back(trained_gate(parameters, h));
  niah.dim = spec.model.dim;
  niah.query_noise = spec.model.query_noise;
  niah.rms_norm = spec.model.rms_norm;
  niah.split_rho = spec.model.split_rho;
  niah.context = spec.model.context;
  niah.groups = spec.groups;
  niah.prompts = spec.prompts;
  niah.seed = spec.seed;
  return niah;
}

// Argmax retrieval of every query head in every trial of the run, on fresh contexts.
niah::OutcomeTable retrieval_outcomes(const LabSpec& spec, const LayerParameters& parameters,
                                      const niah::NiahRun& run, const Parallel& parallel) {
  const auto& model = spec.model;
  niah::OutcomeTable table(run.needles.trials(), model.readers());
  training::WorkspacePool pool(model);
  parallel_for(
      parallel, run.needles.trials(), [&] { return pool.lease(); },
      [&](std::int64_t i, training::WorkspacePool::Lease& lease) {
        auto& w = *lease;
        const auto trial = static_cast<std::uint32_t>(i);
        draw_evaluation_context(model, spec.seed, trial, run.needles.position(spec.seed, trial),
                                w.context);
        std::vector<niah::Argmax> readers(static_cast<std::size_t>(model.readers()));
        layer_argmax(model, parameters, w.context, w, readers);
        for (int r = 0; r < model.readers(); ++r) {
          const auto entry = readers[static_cast<std::size_t>(r)].entry;
          table.set(i, r, model.geometry.holds(entry, w.context.needle));
        }
      });
  return table;
}

SlotPhase argmax_of(const Geometry& geometry, const RowMatrix& gates, int head) {
  Eigen::Index slot = 0;
  gates.row(head).maxCoeff(&slot);
  return {static_cast<int>(slot), geometry.phase_of_slot(static_cast<int>(slot))};
}

// Phases no head's argmax covers.
std::vector<int> blind_phases(int stride, const std::vector<SlotPhase>& argmaxes) {
  std::vector<bool> covered(static_cast<std::size_t>(stride), false);
  for (const auto& a : argmaxes) covered[static_cast<std::size_t>(a.phase)] = true;
  std::vector<int> blind;
  for (int phi = 0; phi < stride; ++phi) {
    if (!covered[static_cast<std::size_t>(phi)]) blind.push_back(phi);
  }
  return blind;
}

}  // namespace

struct BatchGradient::Scratch {
  explicit Scratch(const LabSpec& spec)
      : pool(spec.model),
        gradients(static_cast<std::size_t>(spec.batch), LayerParameters(spec.model)),
        losses(static_cast<std::size_t>(spec.batch)) {}
  WorkspacePool pool;
  std::vector<LayerParameters> gradients;  // of each batch item
  std::vector<double> losses;
};

BatchGradient::BatchGradient(const LabSpec& spec)
    : spec_(spec), scratch_(std::make_unique<Scratch>(spec)) {}

BatchGradient::~BatchGradient() = default;

void BatchGradient::differentiate(const LayerParameters& theta, int step, std::uint32_t first,
                                  std::optional<int> head, const Parallel& parallel) {
  auto& s = *scratch_;
  parallel_for(
      parallel, spec_.batch, [&] { return s.pool.lease(); },
      [&](std::int64_t i, WorkspacePool::Lease& lease) {
        auto& w = *lease;
        draw_training_context(spec_.model, spec_.seed, static_cast<std::uint32_t>(step),
                              first + static_cast<std::uint32_t>(i), w.context);
        s.losses[std::size_t(i)] =
            layer_loss(spec_.model, theta, w.context, w, &s.gradients[std::size_t(i)], head).loss;
      });
}

double BatchGradient::operator()(const LayerParameters& theta, int step, const Parallel& parallel,
                                 Eigen::VectorXd& mean) {
  const auto& gradients = scratch_->gradients;
  const auto& losses = scratch_->losses;
  const int batch = spec_.batch;
  mean.setZero();
  double loss = 0;
  if (spec_.batches == Batches::shared) {
    differentiate(theta, step, 0, std::nullopt, parallel);
    for (int i = 0; i < batch; ++i) {
      mean += gradients[std::size_t(i)].values();
      loss += losses[std::size_t(i)];
    }
    mean /= batch;
    return loss / batch;
  }
  // Head h's segments from its own contexts h B .. h B + B - 1 (one head: the shared batch,
  // bit for bit: the same contexts, sums and order), differentiated for head h alone.
  for (int h = 0; h < spec_.model.heads; ++h) {
    differentiate(theta, step, static_cast<std::uint32_t>(h * batch), h, parallel);
    for (const auto [offset, size] : theta.head_segments(h)) {
      for (int i = 0; i < batch; ++i) {
        mean.segment(offset, size) += gradients[std::size_t(i)].values().segment(offset, size);
      }
    }
    for (int i = 0; i < batch; ++i) loss += losses[std::size_t(i)];
  }
  mean /= batch;
  return loss / (double(batch) * spec_.model.heads);
}

Adam::Adam(Eigen::Index size, const AdamSettings& settings)
    : settings_(settings),
      first_(Eigen::VectorXd::Zero(size)),
      second_(Eigen::VectorXd::Zero(size)) {}

void Adam::step(Eigen::VectorXd& theta, const Eigen::VectorXd& gradient) {
  beta1_power_ *= settings_.beta1;
  beta2_power_ *= settings_.beta2;
  first_ = settings_.beta1 * first_ + (1 - settings_.beta1) * gradient;
  second_ = settings_.beta2 * second_ + (1 - settings_.beta2) * gradient.cwiseAbs2();
  const double correct1 = 1 - beta1_power_;
  const double correct2 = 1 - beta2_power_;
  theta.array() -= settings_.lr * (first_.array() / correct1) /
                   ((second_.array() / correct2).sqrt() + settings_.epsilon);
}

Batches parse_batches(std::string_view name) {
  if (name == "shared") return Batches::shared;
  if (name == "independent") return Batches::independent;
  throw InputError("invalid --batches " + std::string(name) + " (must be shared or independent)");
}

std::string to_string(Batches batches) {
  return batches == Batches::shared ? "shared" : "independent";
}

void LabSpec::validate() const {
  model.validate();
  require_in_range(steps, 1, kMaxSteps, "--steps");
  require_in_range(batch, 1, kMaxBatch, "--batch");
  require(batches == Batches::shared || std::int64_t{batch} * model.heads <= kMaxBatchIndex,
          "invalid --batch " + std::to_string(batch) + " (with --batches independent, --heads " +
              std::to_string(model.heads) + " x --batch must be at most " +
              std::to_string(kMaxBatchIndex) + ")");
  require_positive(adam.lr, "--lr");
  require_non_negative(init_scale, "--init-scale");
  if (init_lambda) require_positive(*init_lambda, "--init-lambda");
  // Every K steps, and after the last step whatever K.
  require_in_range(record_every, 1, kMaxSteps, "--record-every");
  require_in_range(log_every, 1, kMaxSteps, "--log-every");
  // The evaluation protocol's own checks (--groups, --prompts, --context).
  niah::plan_needles(model.geometry, model.context, groups, prompts);
}

void LabSpec::check_work(int threads) const {
  const std::string per_head = batches == Batches::independent ? " x --heads (independent)" : "";
  phasesim::check_work("--steps " + std::to_string(steps) + " x --batch " + std::to_string(batch) +
                           per_head + " x --context " + std::to_string(model.context) +
                           " (--heads " + std::to_string(model.heads) + ", --dim " +
                           std::to_string(model.dim) + ")",
                       estimate(), threads);
}

WorkEstimate LabSpec::estimate() const {
  // Measured with --threads 1 on the 2-core CI machine (W 8, S 4): 8.4 s for 200 steps of
  // 16 contexts of 2048 tokens at --heads 8 --dim 32, 10.4 s at --heads 2 --dim 64, and
  // 4x the context took 4.5x: about 15 ns plus 3 ns a head per token and dimension.
  // Independent batches: every head's own contexts each get the whole layer's forward pass
  // and one head's backward pass; counted as whole passes (a bound).
  const double contexts = double(batch) * (batches == Batches::independent ? model.heads : 1);
  const double values =
      static_cast<double>(steps) * contexts * static_cast<double>(model.context) * model.dim;
  // A thread's context: embeddings, keys and their gradients (twice with split projections).
  const double split = model.older_slots() > 0 ? 2 : 1;
  double bytes = 4.0 * 8 * split * static_cast<double>(model.context) * model.dim;
  double per_value = 15e-9 + 3e-9 * model.heads + 1e-9 * (model.readers() - model.heads);
  if (model.per_channel) {
    // C = X A_h^T and dA_h = E_h^T X (2 d multiply-adds a value, each head; measured: 0.12 s of
    // CPU a step of BM_TrainStepRealCompressor, 1 ns a head, value and dimension with the
    // rest), and the gates of every entry and channel held for the backward pass.
    per_value += split * 1e-9 * model.heads * model.dim;
    bytes += 8.0 * model.heads * static_cast<double>(model.entries()) * model.geometry.window *
             model.dim;
  }
  return {values * per_value, bytes};
}

double LabSpec::default_lambda() const {
  return model.rms_norm ? 1.0 : std::sqrt(static_cast<double>(model.dim));
}

LayerParameters initial_parameters(const LabSpec& spec) {
  const auto& m = spec.model;
  LayerParameters theta(m);
  for (int h = 0; h < m.heads; ++h) {
    if (!m.per_channel) {
      const auto logits = random_logits(spec.seed + static_cast<std::uint64_t>(h), spec.init_scale,
                                        m.geometry.window);
      for (int s = 0; s < m.geometry.window; ++s) theta.bias()(h, s) = logits[std::size_t(s)];
      continue;
    }
    // random_logits draws index 0 of this stream: channel 0 starts at random:SEED+h:SCALE.
    const RandomStream stream(spec.seed + static_cast<std::uint64_t>(h), 0, 0, Stream::gate_init);
    auto b = theta.head_bias(h);
    for (int s = 0; s < m.geometry.window; ++s) {
      for (int c = 0; c < m.dim; ++c) {
        b(s, c) = spec.init_scale *
                  stream.normal(static_cast<std::uint32_t>(c), static_cast<std::uint32_t>(s));
      }
    }
  }
  theta.log_lambda().setConstant(portable::log(spec.init_lambda.value_or(spec.default_lambda())));
  if (m.query_projection) {
    for (int r = 0; r < m.readers(); ++r) theta.projection(r).setIdentity();
  }
  return theta;
}

RowMatrix positional_gates(const LayerParameters& parameters) {
  if (parameters.channels() > 1) {
    RowMatrix gates(parameters.heads(), parameters.window());
    for (int h = 0; h < parameters.heads(); ++h) {
      gates.row(h) = channel_gates(parameters, h).colwise().mean();
    }
    return gates;
  }
  RowMatrix gates = parameters.bias();
  for (Eigen::Index h = 0; h < gates.rows(); ++h) {
    softmax(gates.row(h).data(), static_cast<int>(gates.cols()), gates.row(h).data());
  }
  return gates;
}

RowMatrix channel_gates(const LayerParameters& parameters, int h) {
  RowMatrix gates = parameters.head_bias(h);
  softmax_columns(gates.data(), static_cast<int>(gates.rows()), static_cast<int>(gates.cols()));
  return gates.transpose();
}

std::vector<ChannelLogits> channel_groups(const LayerParameters& parameters, int h) {
  const auto b = parameters.head_bias(h);
  std::vector<ChannelLogits> groups;
  for (Eigen::Index c = 0; c < b.cols(); ++c) {
    const std::vector<double> logits(b.col(c).begin(), b.col(c).end());
    auto same = std::find_if(groups.begin(), groups.end(),
                             [&](const ChannelLogits& g) { return g.logits == logits; });
    if (same == groups.end()) {
      groups.push_back({logits, 1});
    } else {
      ++same->count;
    }
  }
  return groups;
}

std::string ChannelLogits::spec() const {
  std::string text = "logits:";
  for (std::size_t s = 0; s < logits.size(); ++s) text += (s ? "," : "") + format_number(logits[s]);
  return text;
}

Gate trained_gate(const LayerParameters& parameters, int h) {
  const std::string name = "trained head " + std::to_string(h);
  if (parameters.channels() == 1) {
    const auto gates = positional_gates(parameters);
    return gate_from_weights({gates.row(h).begin(), gates.row(h).end()}, name);
  }
  std::vector<ChannelGroup> groups;
  for (const auto& group : channel_groups(parameters, h)) {
    auto gate = gate_from_logits(group.logits, group.spec());
    groups.push_back({std::move(gate.weights), double(group.count) / parameters.channels(),
                      std::move(gate.spec)});
  }
  return gate_from_channels(std::move(groups), name);
}

ChannelPhases channel_phases(const Geometry& geometry, const LayerParameters& parameters, int h) {
  const auto b = parameters.head_bias(h);
  const auto d = static_cast<double>(b.cols());
  ChannelPhases channels;
  channels.phase_share.assign(static_cast<std::size_t>(geometry.stride), 0.0);
  for (Eigen::Index c = 0; c < b.cols(); ++c) {
    Eigen::Index slot = 0;
    b.col(c).maxCoeff(&slot);  // the gate's argmax; ties: the lower slot
    channels.slot.push_back(static_cast<int>(slot));
    channels.phase.push_back(geometry.phase_of_slot(static_cast<int>(slot)));
    channels.phase_share[static_cast<std::size_t>(channels.phase.back())] += 1 / d;
  }
  for (const double share : channels.phase_share) {
    if (share > 0) channels.entropy -= share * portable::log(share);
  }
  return channels;
}

LabTraining train_layer(const LabSpec& spec, const Parallel& parallel,
                        const LabProgressCallback& progress) {
  const auto& model = spec.model;
  const auto initial = initial_parameters(spec);
  LabTraining run{initial, initial, {0}, {positional_gates(initial)}, {}, {}};
  auto& theta = run.final;
  const auto record_channels = [&] {
    if (!model.per_channel) return;
    auto& heads = run.channel_trajectory.emplace_back();
    for (int h = 0; h < model.heads; ++h) heads.push_back(channel_phases(model.geometry, theta, h));
  };
  record_channels();
  Adam adam(theta.values().size(), spec.adam);
  BatchGradient batch_gradient(spec);
  Eigen::VectorXd mean_gradient(theta.values().size());
  double recorded_loss = 0, logged_loss = 0;
  for (int step = 0; step < spec.steps; ++step) {
    const double loss = batch_gradient(theta, step, parallel, mean_gradient);
    adam.step(theta.values(), mean_gradient);
    recorded_loss += loss;
    logged_loss += loss;

    const int done = step + 1;
    const bool last = done == spec.steps;
    if (done % spec.record_every == 0 || last) {
      const int since = done - run.trajectory_steps.back();
      run.trajectory_steps.push_back(done);
      run.trajectory.push_back(positional_gates(theta));
      record_channels();
      run.loss_curve.push_back({done, recorded_loss / since});
      recorded_loss = 0;
    }
    if (progress && (done % spec.log_every == 0 || last)) {
      const int since = done % spec.log_every == 0 ? spec.log_every : done % spec.log_every;
      progress({done, spec.steps, logged_loss / since, positional_gates(theta)});
      logged_loss = 0;
    }
  }
  return run;
}

LabEvaluation evaluate_layer(const LabSpec& spec, const LayerParameters& parameters,
                             const Parallel& parallel) {
  // The prediction is the analytic engine's plan for the trained gates; the table is this
  // layer's own Monte Carlo over the same run (its needles, groups and combination).
  const auto registry = engines::builtin_engines();
  const auto plan = engines::prepare(evaluation_spec(spec, parameters),
                                     registry.get<engines::AnalyticEngine>(), parallel.team());
  LabEvaluation evaluation{plan.run(), {}, {}, {}, {}, {}};
  const auto& run = evaluation.run;
  evaluation.table =
      niah::monte_carlo_result(run, retrieval_outcomes(spec, parameters, run, parallel));
  evaluation.head_success = engines::run_engine(plan, parallel).phase_success;
  evaluation.prediction = niah::exact_result(run, evaluation.head_success);
  std::vector<double> best(static_cast<std::size_t>(spec.model.geometry.stride), 0.0);
  for (const auto& head : evaluation.head_success) {
    for (std::size_t phi = 0; phi < best.size(); ++phi) best[phi] = std::max(best[phi], head[phi]);
  }
  // One reader per phase is one head that reads every phase as well as its best head does.
  auto one_reader = run;
  one_reader.model.geometries.resize(1);
  one_reader.model.gates.resize(1);
  evaluation.prediction_shared = niah::exact_result(one_reader, {best});
  evaluation.period =
      stats::test_periods(niah::group_counts(evaluation.table), spec.period_options(), parallel);
  return evaluation;
}

LabHeads lab_heads(const LabSpec& spec, const LabTraining& training) {
  const auto& geometry = spec.model.geometry;
  const auto& start = training.trajectory.front();
  const auto& end = training.trajectory.back();
  LabHeads heads;
  heads.heads_per_phase.assign(static_cast<std::size_t>(geometry.stride), 0);
  for (int h = 0; h < spec.model.heads; ++h) {
    const auto initial = argmax_of(geometry, start, h);
    const auto final = argmax_of(geometry, end, h);
    heads.initial.push_back(initial);
    heads.final.push_back(final);
    heads.final_max_weight.push_back(end.row(h).maxCoeff());
    const std::vector<double> weights(end.row(h).begin(), end.row(h).end());
    double coverage = 0;
    for (const auto& c : phase_coverage(geometry, gate_from_weights(weights, "trained"))) {
      coverage = std::max(coverage, c.coverage);
    }
    heads.final_phase_coverage.push_back(coverage);
    ++heads.heads_per_phase[static_cast<std::size_t>(final.phase)];
    heads.kept_slot += initial.slot == final.slot ? 1 : 0;
    heads.kept_phase += initial.phase == final.phase ? 1 : 0;
  }
  if (spec.model.per_channel) {
    for (int h = 0; h < spec.model.heads; ++h) {
      heads.initial_channels.push_back(channel_phases(geometry, training.initial, h));
      heads.final_channels.push_back(channel_phases(geometry, training.final, h));
    }
  }
  heads.blind_phases = blind_phases(geometry.stride, heads.final);
  heads.initial_blind_phases = blind_phases(geometry.stride, heads.initial);
  heads.blind_law = theorems::blind_distribution(geometry.stride, spec.model.heads);
  return heads;
}

LabResult run_lab(const LabSpec& spec, const Parallel& parallel,
                  const LabProgressCallback& progress) {
  auto training = train_layer(spec, parallel, progress);
  auto heads = lab_heads(spec, training);
  auto evaluation = evaluate_layer(spec, training.final, parallel);
  return {std::move(training), std::move(heads), std::move(evaluation)};
}

}  // namespace phasesim::training
