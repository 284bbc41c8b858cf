#include "phasesim/theorems/commands.hpp"

#include <cmath>

#include "phasesim/core/budget.hpp"
#include "phasesim/core/error.hpp"
#include "phasesim/theorems/concentration.hpp"
#include "phasesim/theorems/lockin.hpp"

namespace phasesim::theorems {
namespace {

double parse_double(const std::string& text, const std::string& option, const std::string& whole) {
  double value = 0;
  require(!has_leading_zero(text), "invalid " + option + " " + whole + " ('" + text + "' has " +
                                       leading_zero_rule(text) + ")");
  require(read_number(text, value) && std::isfinite(value),
          "invalid " + option + " " + whole + " (use a:b:step or a comma list of numbers)");
  return value;
}

}  // namespace

Objective ObjectiveOptions::objective() const {
  Objective o;
  o.geometry = {window, stride};
  o.beta = beta;
  o.entries = entries;
  o.model = parse_retention_model(model);
  o.phase_weights = weights;
  o.top_k = top_k.value_or(1);
  o.validate();
  if (!weights.empty()) o.phase_weights = normalized_phase_weights(weights, stride);
  return o;
}

void ObjectiveOptions::put(Json& doc, bool point) const {
  doc["window"] = window;
  doc["stride"] = stride;
  if (point) doc["beta"] = beta;
  if (point) doc["entries"] = entries;
  doc["model"] = model;
  if (top_k) doc["top_k"] = *top_k;  // only where given: every other document keeps its bytes
}

void put_search(Json& doc, const OptimizeSettings& search) {
  doc["restarts"] = search.restarts;
  doc["seed"] = search.seed;
  doc["init_scale"] = search.init_scale;
  doc["max_iterations"] = search.max_iterations;
}

DynamicsSettings DynamicsOptions::settings() const {
  DynamicsSettings s;
  s.steps = steps;
  s.lr = lr;
  s.max_logit_step = max_logit_step;
  s.rule = parse_update_rule(update);
  s.content = {content_noise, 0, content_samples};  // the seed: each run's own
  return s;
}

std::vector<RunSpec> DynamicsOptions::runs(int window) const {
  return run_specs(init, inits, content_seeds, window);
}

WorkEstimate DynamicsOptions::estimate(const Objective& objective, int extra_steps) const {
  const double count = static_cast<double>(inits) * static_cast<double>(content_seeds.size());
  return dynamics_estimate(objective, settings(), count, static_cast<double>(steps) + extra_steps);
}

void DynamicsOptions::validate(const Objective& objective, int extra_steps) const {
  require(!content_seeds.empty(), "invalid --content-seed (give at least one seed)");
  validate_dynamics(objective, settings());
  require_at_least(inits, 1, "--inits");
  const auto seeds = content_seeds.size();
  check_work("--inits " + std::to_string(inits) +
                 (seeds > 1 ? " for each of " + counted(seeds, "content seed") : "") + ", " +
                 counted(steps + extra_steps, "step") + " each",
             estimate(objective, extra_steps), Parallel{}.team());
  runs(objective.geometry.window);
}

void DynamicsOptions::put(Json& doc) const {
  doc["steps"] = steps;
  doc["lr"] = lr;
  doc["max_logit_step"] = max_logit_step;
  doc["update"] = update;
  doc["content_noise"] = content_noise;
  doc["content_seed"] = content_seeds;
  doc["content_samples"] = content_samples;
  doc["init"] = init;
  doc["inits"] = inits;
}

void DiversityModelOptions::validate() const {
  model.validate();
  require(!heads.empty(), "invalid --heads (give at least one N)");
  for (int n : heads) {
    require_at_least(n, 1, "--heads");
    require(n <= 10000000, "invalid --heads " + std::to_string(n) + " (must be at most 10000000)");
  }
}

void DiversityModelOptions::put(Json& doc) const {
  doc["stride"] = model.stride;
  doc["heads"] = heads;
  doc["beta_out"] = model.beta_out;
  doc["success"] = model.success;
  doc["answers"] = model.loss.answers;
}

std::vector<double> parse_range(const std::string& text, const std::string& option) {
  const auto parts = split_text(text, ':');
  std::vector<double> values;
  if (parts.size() == 1) {
    for (const auto& item : split_text(text, ','))
      values.push_back(parse_double(item, option, text));
    return values;
  }
  require(parts.size() == 3,
          "invalid " + option + " " + text + " (use a:b:step or a comma list of numbers)");
  const double a = parse_double(parts[0], option, text), b = parse_double(parts[1], option, text),
               step = parse_double(parts[2], option, text);
  require(step > 0 && a <= b,
          "invalid " + option + " " + text + " (a:b:step needs a <= b and step > 0)");
  // Counted in double: (b - a) / step may exceed any int (or be inf) before the check.
  const double count = std::floor((b - a) / step + 1e-9);
  require(count < 10000, "invalid " + option + " " + text + " (more than 10000 values)");
  for (int i = 0; i <= static_cast<int>(count); ++i) values.push_back(a + i * step);
  for (std::size_t i = 1; i < values.size(); ++i) {
    require(values[i] > values[i - 1],
            "invalid " + option + " " + text + " (step is below the precision of the values)");
  }
  return values;
}

// optimize

namespace {

// Throws InputError when `work`, optimizations of `objective`, is beyond core/budget.hpp's
// limits (they run on every core).
void check_optimize_work(const Objective& objective, const ChainWork& work) {
  check_work("--window " + std::to_string(objective.geometry.window) + " with " +
                 counted(work.ascents, "ascent"),
             work.estimate, Parallel{}.team());
}

}  // namespace

void OptimizeCommand::validate() const {
  const auto o = objective.objective();
  search.validate();
  check_optimize_work(o, work());
}

ChainWork OptimizeCommand::work() const {
  const auto o = objective.objective();
  auto work = optimize_work(o, search);
  work.estimate += concentration_report_estimate(o, false);
  return work;
}

GateOptimum OptimizeCommand::run(const Parallel& parallel) const {
  return optimize_gate(objective.objective(), search, parallel);
}

Json OptimizeCommand::document(const GateOptimum& best) const {
  const auto o = objective.objective();
  auto doc = new_document("optimize");
  objective.put(doc);
  doc["weights"] = o.weights();
  put_search(doc, search);
  doc["gate"] = best.gate;
  doc["objective"] = best.objective;
  doc["per_phase"] = best.per_phase;
  doc["onehot_objective"] = best.onehot_objective;
  doc["onehot_slot"] = best.onehot_slot;
  doc["max_weight"] = best.summary.max_weight;
  doc["entropy"] = best.summary.entropy;
  doc["k_effective"] = best.summary.k_effective;
  doc["k_star_predicted"] = best.k_star_predicted;
  if (o.model == RetentionModel::normalized) {
    doc["max_weight_first_order"] = vertex_perturbation(o).max_weight;
  }
  doc["equal_split_values"] = best.equal_split_values;
  doc["best_start"] = best.best_start;
  doc["starts"] = best.starts;
  doc["iterations"] = best.iterations;
  return doc;
}

// phase-diagram

void PhaseDiagramCommand::validate() const {
  auto o = objective.objective();
  search.validate();
  require(!entries.empty(), "invalid --entries (give at least one N)");
  for (double beta : parse_range(betas, "--beta")) {
    o.beta = beta;
    for (auto n : entries) {
      o.entries = n;
      o.validate();
    }
  }
  check_optimize_work(o, work());
}

ChainWork PhaseDiagramCommand::work() const {
  // Each cell at its own beta and N: whether its random starts lock in depends on both.
  std::vector<std::vector<Objective>> chains;
  auto o = objective.objective();
  for (auto n : entries) {
    o.entries = n;
    chains.emplace_back();
    for (double beta : parse_range(betas, "--beta")) {
      o.beta = beta;
      chains.back().push_back(o);
    }
  }
  return chained_optimize_work(chains, search);
}

std::vector<PhaseCell> PhaseDiagramCommand::run(const Parallel& parallel) const {
  const auto beta_values = parse_range(betas, "--beta");
  std::vector<PhaseCell> cells;
  for (auto n : entries) {
    auto o = objective.objective();
    o.entries = n;
    auto settings = search;
    for (double beta : beta_values) {
      o.beta = beta;
      cells.push_back({beta, n, optimize_gate(o, settings, parallel)});
      settings.warm_starts = {cells.back().optimum.logits};
    }
  }
  return cells;
}

Json PhaseDiagramCommand::document(const std::vector<PhaseCell>& cells) const {
  auto doc = new_document("phase-diagram");
  objective.put(doc, false);
  doc["beta"] = parse_range(betas, "--beta");
  doc["entries"] = entries;
  put_search(doc, search);
  Json rows = Json::array(), stars = Json::array();
  for (const auto& c : cells) {
    rows.push_back({{"beta", c.beta},
                    {"entries", c.entries},
                    {"k_effective", c.optimum.summary.k_effective},
                    {"k_star_predicted", c.optimum.k_star_predicted},
                    {"max_weight", c.optimum.summary.max_weight},
                    {"objective", c.optimum.objective},
                    {"onehot_objective", c.optimum.onehot_objective},
                    {"concentrated", c.optimum.summary.max_weight >= 0.99},
                    {"gate", c.optimum.gate}});
  }
  const auto k = objective.top_k.value_or(1);
  for (auto n : entries) {
    stars.push_back({{"entries", n}, {"beta_star", critical_beta(n, k)}});
    // Under selection, the extreme-value heuristic's guess beside it: beta*(N/k) of the argmax.
    if (k > 1) stars.back()["beta_star_n_over_k"] = critical_beta(std::max<std::int64_t>(2, n / k));
  }
  doc["rows"] = rows;
  doc["beta_star"] = stars;
  return doc;
}

// dynamics

void DynamicsCommand::validate() const {
  const auto o = objective.objective();
  dynamics.validate(o);
  require_at_least(record_every, 1, "--record-every");
  require(reweight_at >= -1, "invalid --reweight-at " + std::to_string(reweight_at) +
                                 " (must be >= 0, or -1 for none)");
  require(reweight_at < dynamics.steps, "invalid --reweight-at " + std::to_string(reweight_at) +
                                            " (must be below --steps " +
                                            std::to_string(dynamics.steps) + ")");
  require(reweight_at < 0 || !weights.empty(),
          "invalid --reweight-at " + std::to_string(reweight_at) +
              " (needs --weights, the phase weights from then on)");
  require(reweight_at >= 0 || weights.empty(),
          "invalid --weights (they apply from --reweight-at T; give T)");
  if (!weights.empty()) normalized_phase_weights(weights, o.geometry.stride);
}

WorkEstimate DynamicsCommand::estimate() const { return dynamics.estimate(objective.objective()); }

DynamicsBatch DynamicsCommand::run(const Parallel& parallel) const {
  const auto o = objective.objective();
  auto settings = dynamics.settings();
  settings.reweight_at = reweight_at;
  if (reweight_at >= 0) settings.reweight = normalized_phase_weights(weights, o.geometry.stride);
  settings.record_every = record_every;
  return run_dynamics_batch(o, dynamics.runs(o.geometry.window), settings, parallel);
}

Json DynamicsCommand::document(const DynamicsBatch& batch) const {
  auto doc = new_document("dynamics");
  objective.put(doc);
  dynamics.put(doc);
  doc["reweight_at"] = reweight_at;
  doc["weights"] = weights;
  doc["record_every"] = record_every;
  doc.update(dynamics_batch_json(batch));
  return doc;
}

// diversity

ObjectiveOptions DiversityCommand::channel_options() const {
  auto options = channel;
  options.stride = t3.model.stride;
  return options;
}

void DiversityCommand::validate() const {
  t3.validate();
  require_at_least(samples, 0, "--samples");
  check_work(
      samples > 0
          ? "--samples " + std::to_string(samples) + " for --heads " + heads_list(t3.heads) +
                " at --stride " + std::to_string(t3.model.stride)
          : "--heads " + heads_list(t3.heads) + " at --stride " + std::to_string(t3.model.stride),
      diversity_estimate(t3.model, t3.heads, samples), Parallel{}.team());
  if (train_heads.empty()) return;
  validate_training(channel_options().objective(), training, train_heads, train_runs);
}

WorkEstimate DiversityCommand::estimate() const {
  auto total = diversity_estimate(t3.model, t3.heads, samples);
  if (train_heads.empty()) return total;
  total +=
      theorems::training_estimate(channel_options().objective(), training, train_heads, train_runs);
  return total;
}

DiversityCommand::Result DiversityCommand::run(const Parallel& parallel) const {
  Result result;
  for (int n : t3.heads) {
    result.rows.push_back(diversity_row(t3.model, n, parallel));
    if (samples > 0)
      result.sampled.push_back(sample_diversity(t3.model, n, samples, seed, parallel));
  }
  const auto objective = channel_options().objective();
  for (int h : train_heads) {
    auto settings = training;
    settings.heads = h;
    result.trained.push_back(
        training_statistics(objective, t3.model, settings, train_runs, parallel));
  }
  return result;
}

Json DiversityCommand::document(const Result& result) const {
  auto doc = new_document("diversity");
  t3.put(doc);
  doc["samples"] = samples;
  doc["seed"] = seed;
  Json rows = Json::array();
  for (std::size_t i = 0; i < result.rows.size(); ++i) {
    rows.push_back(diversity_row_json(result.rows[i]));
    if (!result.sampled.empty()) rows.back().update(sampled_diversity_json(result.sampled[i]));
  }
  doc["rows"] = rows;
  doc["slope"] = log_log_slope(result.rows);  // NaN (one N, or S = 1: no gap): null
  doc["slope_fit"] = "least squares over all N";
  doc["constant_c"] = t3.model.constant();
  if (train_heads.empty()) return doc;
  channel_options().put(doc);
  doc["train_heads"] = train_heads;
  doc["train_runs"] = train_runs;
  doc["train_steps"] = training.steps;
  doc["lr"] = training.lr;
  doc["init_scale"] = training.init_scale;
  doc["train_seed"] = training.seed;
  Json trained = Json::array();
  for (const auto& statistics : result.trained) trained.push_back(training_json(statistics));
  doc["training"] = trained;
  return doc;
}

// theorem concentration, lockin, diversity

void ConcentrationCommand::validate() const {
  const auto o = objective.objective();
  validate_concentration_model(o);
  check.validate();
  check_optimize_work(o, work());
}

ChainWork ConcentrationCommand::work() const {
  const auto o = objective.objective();
  auto work = optimize_work(o, check.search);
  work.estimate += concentration_report_estimate(o, true);
  return work;
}

ConcentrationCheck ConcentrationCommand::run(const Parallel& parallel) const {
  return check_concentration(objective.objective(), check, parallel);
}

Json ConcentrationCommand::document(const ConcentrationCheck& result) const {
  auto doc = new_document("theorem concentration");
  objective.put(doc);
  doc["weights"] = objective.objective().weights();
  put_search(doc, check.search);
  doc["threshold"] = check.threshold;
  doc.update(check_json(result));
  return doc;
}

void LockinCommand::validate() const {
  const auto o = objective.objective();
  require_at_least(reweight_steps, 0, "--reweight-steps");
  dynamics.validate(o, reweight_steps);
  validate_lockin(o.geometry, {dynamics.settings(), reweight_steps});
}

WorkEstimate LockinCommand::estimate() const {
  return dynamics.estimate(objective.objective(), reweight_steps);
}

std::vector<RunSpec> LockinCommand::runs() const { return dynamics.runs(objective.window); }

LockinCheck LockinCommand::run(const Parallel& parallel) const {
  return check_lockin(objective.objective(), {dynamics.settings(), reweight_steps}, runs(),
                      parallel);
}

Json LockinCommand::document(const LockinCheck& result) const {
  auto doc = new_document("theorem lockin");
  objective.put(doc);
  dynamics.put(doc);
  doc["reweight_steps"] = reweight_steps;
  doc.update(check_json(result));
  return doc;
}

void DiversityTheoremCommand::validate() const {
  t3.validate();
  validate_diversity_check(t3.model, t3.heads, check);
  check_work("--heads " + heads_list(t3.heads) + " at --stride " + std::to_string(t3.model.stride),
             estimate(), 1);
}

DiversityCheck DiversityTheoremCommand::run(const Parallel& parallel) const {
  return check_diversity(t3.model, t3.heads, check, parallel);
}

Json DiversityTheoremCommand::document(const DiversityCheck& result) const {
  auto doc = new_document("theorem diversity");
  t3.put(doc);
  doc["tolerance"] = check.tolerance;
  doc.update(check_json(result));
  return doc;
}

}  // namespace phasesim::theorems
