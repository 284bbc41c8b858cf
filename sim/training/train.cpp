// The training loop and the NIAH evaluation of the trained layer.
#include "phasesim/training/train.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "phasesim/core/error.hpp"
#include "phasesim/engines/engine.hpp"
#include "phasesim/model/coverage.hpp"
#include "phasesim/model/gate.hpp"
#include "workspace_pool.hpp"

namespace phasesim {
namespace {

constexpr int kMaxSteps = 10000000;
constexpr int kMaxBatch = 65536;  // the batch index shares a 32-bit counter word with the stream

void require_range(std::int64_t value, std::int64_t least, std::int64_t most,
                   const std::string& option) {
  require(value >= least && value <= most, "invalid " + option + " " + std::to_string(value) +
                                               " (must be in [" + std::to_string(least) + ", " +
                                               std::to_string(most) + "])");
}

void require_positive(double value, const std::string& option) {
  require(std::isfinite(value) && value > 0,
          "invalid " + option + " " + format_number(value) + " (must be finite and > 0)");
}

// The evaluation protocol with the positional gates of `parameters` as the model's gates:
// the spec `niah` would get from --save-gates.
NiahSpec evaluation_spec(const LabSpec& spec, const LayerParameters& parameters) {
  NiahSpec niah;
  niah.geometry = spec.model.geometry;
  const auto gates = positional_gates(parameters);
  niah.gates.clear();
  for (Eigen::Index h = 0; h < gates.rows(); ++h) {
    niah.gates += h > 0 ? ";weights:" : "weights:";
    for (Eigen::Index s = 0; s < gates.cols(); ++s) {
      niah.gates += (s > 0 ? "," : "") + format_number(gates(h, s));
    }
  }
  niah.dim = spec.model.dim;
  niah.query_noise = spec.model.query_noise;
  niah.rms_norm = spec.model.rms_norm;
  niah.context = spec.model.context;
  niah.groups = spec.groups;
  niah.prompts = spec.prompts;
  niah.seed = spec.seed;
  return niah;
}

// Argmax retrieval of every head in every trial of the run, on fresh contexts.
OutcomeTable retrieval_outcomes(const LabSpec& spec, const LayerParameters& parameters,
                                const NiahRun& run, const Parallel& parallel) {
  const auto& model = spec.model;
  OutcomeTable table(run.needles.trials(), model.heads);
  training::WorkspacePool pool(model);
  parallel_for(
      parallel, run.needles.trials(), [&] { return pool.lease(); },
      [&](std::int64_t i, training::WorkspacePool::Lease& lease) {
        auto& w = *lease;
        const auto trial = static_cast<std::uint32_t>(i);
        draw_evaluation_context(model, spec.seed, trial, run.needles.position(spec.seed, trial),
                                w.context);
        std::vector<Argmax> heads(static_cast<std::size_t>(model.heads));
        layer_argmax(model, parameters, w.context, w, heads);
        for (int h = 0; h < model.heads; ++h) {
          const auto entry = heads[static_cast<std::size_t>(h)].entry;
          table.set(i, h, entry_holds(model.geometry, entry, w.context.needle));
        }
      });
  return table;
}

// The mean loss and gradient (into `mean`) of step `step`'s batch: each context drawn and
// differentiated by whichever thread takes it, then summed in index order, so that the sum
// is the same on any number of threads.
double batch_gradient(const LabSpec& spec, const LayerParameters& theta, int step,
                      const Parallel& parallel, training::WorkspacePool& pool,
                      std::vector<LayerParameters>& gradients, std::vector<double>& losses,
                      Eigen::VectorXd& mean) {
  parallel_for(
      parallel, spec.batch, [&] { return pool.lease(); },
      [&](std::int64_t i, training::WorkspacePool::Lease& lease) {
        auto& w = *lease;
        draw_training_context(spec.model, spec.seed, static_cast<std::uint32_t>(step),
                              static_cast<std::uint32_t>(i), w.context);
        losses[std::size_t(i)] =
            layer_loss(spec.model, theta, w.context, w, &gradients[std::size_t(i)]).loss;
      });
  mean.setZero();
  double loss = 0;
  for (int i = 0; i < spec.batch; ++i) {
    mean += gradients[std::size_t(i)].values();
    loss += losses[std::size_t(i)];
  }
  mean /= spec.batch;
  return loss / spec.batch;
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

Adam::Adam(Eigen::Index size, const AdamSettings& settings)
    : settings_(settings),
      first_(Eigen::VectorXd::Zero(size)),
      second_(Eigen::VectorXd::Zero(size)) {}

void Adam::step(Eigen::VectorXd& theta, const Eigen::VectorXd& gradient) {
  ++steps_;
  first_ = settings_.beta1 * first_ + (1 - settings_.beta1) * gradient;
  second_ = settings_.beta2 * second_ + (1 - settings_.beta2) * gradient.cwiseAbs2();
  const double correct1 = 1 - std::pow(settings_.beta1, steps_);
  const double correct2 = 1 - std::pow(settings_.beta2, steps_);
  theta.array() -= settings_.lr * (first_.array() / correct1) /
                   ((second_.array() / correct2).sqrt() + settings_.epsilon);
}

void LabSpec::validate() const {
  model.validate();
  require_range(steps, 1, kMaxSteps, "--steps");
  require_range(batch, 1, kMaxBatch, "--batch");
  require_positive(adam.lr, "--lr");
  require(std::isfinite(init_scale) && init_scale >= 0,
          "invalid --init-scale " + format_number(init_scale) + " (must be finite and >= 0)");
  if (init_lambda) require_positive(*init_lambda, "--init-lambda");
  // Every K steps, and after the last step whatever K.
  require_range(record_every, 1, kMaxSteps, "--record-every");
  require_range(log_every, 1, kMaxSteps, "--log-every");
  // The evaluation protocol's own checks (--groups, --prompts, --context).
  plan_needles(model.geometry, model.context, groups, prompts);
}

double LabSpec::default_lambda() const {
  return model.rms_norm ? 1.0 : std::sqrt(static_cast<double>(model.dim));
}

LayerParameters initial_parameters(const LabSpec& spec) {
  const auto& m = spec.model;
  LayerParameters theta(m.heads, m.geometry.window, m.dim);
  for (int h = 0; h < m.heads; ++h) {
    const auto logits = random_logits(spec.seed + static_cast<std::uint64_t>(h), spec.init_scale,
                                      m.geometry.window);
    for (int s = 0; s < m.geometry.window; ++s) theta.bias()(h, s) = logits[std::size_t(s)];
  }
  theta.log_lambda().setConstant(std::log(spec.init_lambda.value_or(spec.default_lambda())));
  return theta;
}

RowMatrix positional_gates(const LayerParameters& parameters) {
  RowMatrix gates = parameters.bias();
  for (Eigen::Index h = 0; h < gates.rows(); ++h) {
    auto row = gates.row(h).array();
    row = (row - row.maxCoeff()).exp();
    row /= row.sum();
  }
  return gates;
}

LabTraining train_layer(const LabSpec& spec, const Parallel& parallel,
                        const LabProgressCallback& progress) {
  const auto& model = spec.model;
  const auto initial = initial_parameters(spec);
  LabTraining run{initial, initial, {0}, {positional_gates(initial)}, {}};
  auto& theta = run.final;
  Adam adam(theta.values().size(), spec.adam);
  training::WorkspacePool pool(model);
  std::vector<LayerParameters> gradients(
      static_cast<std::size_t>(spec.batch),
      LayerParameters(model.heads, model.geometry.window, model.dim));
  std::vector<double> losses(static_cast<std::size_t>(spec.batch));
  Eigen::VectorXd mean_gradient(theta.values().size());
  double recorded_loss = 0, logged_loss = 0;
  for (int step = 0; step < spec.steps; ++step) {
    const double loss =
        batch_gradient(spec, theta, step, parallel, pool, gradients, losses, mean_gradient);
    adam.step(theta.values(), mean_gradient);
    recorded_loss += loss;
    logged_loss += loss;

    const int done = step + 1;
    const bool last = done == spec.steps;
    if (done % spec.record_every == 0 || last) {
      const int since = done - run.trajectory_steps.back();
      run.trajectory_steps.push_back(done);
      run.trajectory.push_back(positional_gates(theta));
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
  LabEvaluation evaluation{make_run(evaluation_spec(spec, parameters)), {}, {}, {}, {}, {}};
  const auto& run = evaluation.run;
  evaluation.table = monte_carlo_result(run, retrieval_outcomes(spec, parameters, run, parallel));
  const auto engines = builtin_engines();
  const auto& analytic = engines.find("analytic");
  analytic.check(run.model);
  evaluation.head_success = analytic.run(run, parallel).phase_success;
  evaluation.prediction = exact_result(run, evaluation.head_success);
  std::vector<double> best(static_cast<std::size_t>(spec.model.geometry.stride), 0.0);
  for (const auto& head : evaluation.head_success) {
    for (std::size_t phi = 0; phi < best.size(); ++phi) best[phi] = std::max(best[phi], head[phi]);
  }
  // One reader per phase is one head that reads every phase as well as its best head does.
  auto one_reader = run;
  one_reader.model.geometries.resize(1);
  one_reader.model.gates.resize(1);
  evaluation.prediction_shared = exact_result(one_reader, {best});
  evaluation.period = estimate_period(evaluation.table.groups, spec.period_alpha);
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
  heads.blind_phases = blind_phases(geometry.stride, heads.final);
  heads.initial_blind_phases = blind_phases(geometry.stride, heads.initial);
  heads.blind_law = blind_distribution(geometry.stride, spec.model.heads);
  return heads;
}

LabResult run_lab(const LabSpec& spec, const Parallel& parallel,
                  const LabProgressCallback& progress) {
  auto training = train_layer(spec, parallel, progress);
  auto heads = lab_heads(spec, training);
  auto evaluation = evaluate_layer(spec, training.final, parallel);
  return {std::move(training), std::move(heads), std::move(evaluation)};
}

}  // namespace phasesim
