#pragma once
// The theorem commands as plain validated structs: optimize, phase-diagram, dynamics,
// diversity and the three checks of `theorem`. Each holds its options under their CLI names
// (the CLI declares them on these fields, the Python module fills them from keyword
// arguments), validates them once (InputError naming the options), runs, and builds the
// command's JSON document from the result. The CLI adds its tables and progress; nothing here
// prints.
#include <cstdint>
#include <string>
#include <vector>

#include "phasesim/core/document.hpp"
#include "phasesim/core/parallel.hpp"
#include "phasesim/theorems/checks.hpp"
#include "phasesim/theorems/diversity.hpp"
#include "phasesim/theorems/dynamics.hpp"
#include "phasesim/theorems/dynamics_batch.hpp"
#include "phasesim/theorems/objective.hpp"
#include "phasesim/theorems/optimize.hpp"

namespace phasesim::theorems {

/// The objective J: --window, --stride, --beta, --entries, --model, --weights.
struct ObjectiveOptions {  // the defaults are Objective's
  int window = Geometry{}.window;
  int stride = Geometry{}.stride;
  double beta = Objective{}.beta;
  std::int64_t entries = Objective{}.entries;
  std::string model = to_string(Objective{}.model);
  std::vector<double> weights;        ///< phase weights; empty = uniform
  std::optional<std::int64_t> top_k;  ///< T1 under selection (Objective::top_k); unset: 1

  /// The validated objective (throws InputError naming the options).
  Objective objective() const;
  /// The parameters under their option names (beta and entries when `point`: phase-diagram
  /// gives lists of them).
  void put(Json& doc, bool point = true) const;
};

/// The optimizer's --restarts, --seed, --init-scale, --max-iterations.
void put_search(Json& doc, const OptimizeSettings& search);

/// A batch of dynamics runs: --steps, --lr, --max-logit-step, --update, --content-noise,
/// --content-seed (one or several), --content-samples, --init, --inits.
struct DynamicsOptions {
  int steps = 2000;
  double lr = 20;
  double max_logit_step = 0.1;
  std::string update = "gradient";
  double content_noise = 0;
  std::vector<std::uint64_t> content_seeds{1};
  int content_samples = 16;
  std::string init = "random:1:0.1";
  int inits = 1;

  /// The settings every run shares: a batch gives each run its own content seed, and
  /// re-weighting and recording are the command's.
  DynamicsSettings settings() const;
  /// The runs: --inits inits times every content seed (run_specs).
  std::vector<RunSpec> runs(int window) const;
  /// The batch's time and memory, each run `extra_steps` longer than --steps.
  WorkEstimate estimate(const Objective& objective, int extra_steps = 0) const;
  /// Throws InputError on bad options for `objective`, the runs' included, and (before the
  /// runs are made) on a batch, each run `extra_steps` longer, beyond core/budget.hpp's limits.
  void validate(const Objective& objective, int extra_steps = 0) const;
  void put(Json& doc) const;
};

/// The T3 model and head counts: --stride, --heads, --beta-out, --success, --answers.
struct DiversityModelOptions {
  DiversityModel model;
  std::vector<int> heads;

  void validate() const;
  void put(Json& doc) const;
};

/// "a:b:step" (inclusive, a <= b, step > 0) or a comma list; throws InputError naming
/// `option`.
std::vector<double> parse_range(const std::string& text, const std::string& option);

/// `optimize`: the gate that maximizes J (T1).
struct OptimizeCommand {
  ObjectiveOptions objective;
  OptimizeSettings search;

  /// Validates and bounds the work (it runs on every core).
  void validate() const;
  /// The ascents (what progress counts) and the estimated time and memory.
  ChainWork work() const;
  GateOptimum run(const Parallel& parallel) const;
  Json document(const GateOptimum& best) const;
};

/// One cell of the phase diagram: the optimum at (beta, N).
struct PhaseCell {
  double beta = 0;
  std::int64_t entries = 0;
  GateOptimum optimum;
};

/// `phase-diagram`: the optimum over (beta, N), each beta warm-started from the last.
struct PhaseDiagramCommand {
  ObjectiveOptions objective;
  std::string betas = "4:12:1";
  std::vector<std::int64_t> entries{1024, 32768, 1000000};
  OptimizeSettings search = [] {  // every cell also starts from the equal splits and the
    OptimizeSettings settings;    // previous beta's optimum
    settings.restarts = 2;
    return settings;
  }();

  /// Validates and bounds the work.
  void validate() const;
  /// One chain of optimizations per N, one link per beta.
  ChainWork work() const;
  /// The cells, N by N, beta by beta within each N.
  std::vector<PhaseCell> run(const Parallel& parallel) const;
  Json document(const std::vector<PhaseCell>& cells) const;
};

/// `dynamics`: gradient ascent on the gate logits from one or several inits (T2).
struct DynamicsCommand {
  ObjectiveOptions objective;
  DynamicsOptions dynamics;
  int reweight_at = -1;
  std::vector<double> weights;
  int record_every = 200;

  /// Validates and bounds the work.
  void validate() const;
  WorkEstimate estimate() const;
  DynamicsBatch run(const Parallel& parallel) const;
  Json document(const DynamicsBatch& batch) const;
};

/// `diversity`: the 1/N gain and blind phases (T3), optionally joint training of heads.
struct DiversityCommand {
  DiversityModelOptions t3{{4, 12.0, 0.9, {1000.0}}, {4, 8, 16, 32, 64, 128, 256, 512, 1024}};
  int samples = 0;
  std::uint64_t seed = 1;
  // Joint training (only with --train-heads); the channel's stride is the model's:
  ObjectiveOptions channel;
  std::vector<int> train_heads;
  int train_runs = 12;
  TrainingSettings training;

  struct Result {
    std::vector<DiversityRow> rows;           ///< one per --heads N
    std::vector<SampledDiversity> sampled;    ///< one per N with --samples, else none
    std::vector<TrainingStatistics> trained;  ///< one per --train-heads H
  };

  /// Validates and bounds the work (the rows', the samples' and the joint training's).
  void validate() const;
  /// The time and memory of the rows, the samples and the joint training.
  WorkEstimate estimate() const;
  Result run(const Parallel& parallel) const;
  Json document(const Result& result) const;
  /// The heads' channel: --window, --beta, --entries at the model's stride.
  ObjectiveOptions channel_options() const;
};

/// `theorem concentration` (T1).
struct ConcentrationCommand {
  ObjectiveOptions objective;
  ConcentrationCheckSettings check;

  /// Validates and bounds the work.
  void validate() const;
  ChainWork work() const;
  ConcentrationCheck run(const Parallel& parallel) const;
  Json document(const ConcentrationCheck& check) const;
};

/// `theorem lockin` (T2): four runs by default, lock-in is about every init.
struct LockinCommand {
  ObjectiveOptions objective;
  DynamicsOptions dynamics = [] {
    DynamicsOptions options;
    options.inits = 4;
    return options;
  }();
  int reweight_steps = 500;

  /// Validates and bounds the work.
  void validate() const;
  WorkEstimate estimate() const;
  /// The runs the check makes (what a progress display counts).
  std::vector<RunSpec> runs() const;
  LockinCheck run(const Parallel& parallel) const;
  Json document(const LockinCheck& check) const;
};

/// `theorem diversity` (T3).
struct DiversityTheoremCommand {
  DiversityModelOptions t3{{4, 12.0, 0.9, {1000.0}}, {64, 128, 256, 512, 1024}};
  DiversityCheckSettings check;

  /// Validates (what check_diversity requires) and bounds the rows' work.
  void validate() const;
  WorkEstimate estimate() const { return diversity_estimate(t3.model, t3.heads); }
  DiversityCheck run(const Parallel& parallel) const;
  Json document(const DiversityCheck& check) const;
};

}  // namespace phasesim::theorems
