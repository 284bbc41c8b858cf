#pragma once
// Options shared by the theorem commands (optimize, phase-diagram, dynamics, theorem):
// the objective J (geometry, beta, entries, model, phase weights) and its JSON echo.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "cli/output.hpp"
#include "phasesim/theorems/checks.hpp"
#include "phasesim/theorems/diversity.hpp"
#include "phasesim/theorems/dynamics.hpp"
#include "phasesim/theorems/dynamics_batch.hpp"
#include "phasesim/theorems/objective.hpp"
#include "phasesim/theorems/optimize.hpp"

namespace phasesim::cli {

struct ObjectiveOptions {
  int window = 8;
  int stride = 4;
  double beta = 4.5;
  std::int64_t entries = 32768;
  std::string model = "normalized";
  std::vector<double> weights;  ///< phase weights; empty = uniform

  /// The validated objective (throws InputError naming the options).
  theorems::Objective objective() const;
};

/// --window, --stride, --model and (unless `point` is false: phase-diagram takes lists)
/// --beta and --entries; --weights (phase weights of J) when `weights` names its help.
void add_objective_options(CLI::App& command, ObjectiveOptions& options, bool point = true,
                           const std::string& weights = "");

/// The objective's parameters under their option names (beta, entries when `point`).
void put_objective(Json& doc, const ObjectiveOptions& options, bool point = true);

/// The optimizer's --restarts (with `restarts_help`), --seed, --init-scale and
/// --max-iterations.
void add_search_options(CLI::App& command, theorems::OptimizeSettings& search,
                        const std::string& restarts_help);
void put_search(Json& doc, const theorems::OptimizeSettings& search);
/// Throws InputError when the optimizations' estimate (theorems::chained_optimize_work) is
/// beyond the limits of core/budget.hpp.
void check_optimize_work(const theorems::Objective& objective,
                         const theorems::OptimizeSettings& search, std::int64_t links = 1,
                         std::int64_t chains = 1);
/// The start of one optimization by `command` (progress.hpp: start_run, counting ascents).
Parallel start_optimize(const std::string& command, const theorems::Objective& objective,
                        const theorems::OptimizeSettings& search, bool progress,
                        const std::ostream& out);

/// Options of a batch of dynamics runs: --steps, --lr, --max-logit-step, --update,
/// --content-noise, --content-seed (one or several), --content-samples, --init, --inits.
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
  theorems::DynamicsSettings settings() const;
  /// The runs: --inits inits times every content seed (run_specs).
  std::vector<theorems::RunSpec> runs(int window) const;
  /// The batch's time and memory, each run `extra_steps` longer than --steps.
  WorkEstimate estimate(const theorems::Objective& objective, int extra_steps = 0) const;
};

/// Declares the options above; `inits_help` describes --inits.
void add_dynamics_options(CLI::App& command, DynamicsOptions& options,
                          const std::string& inits_help);
void put_dynamics(Json& doc, const DynamicsOptions& options);
/// Throws InputError on bad dynamics options (for `objective`), the runs' included, and
/// (before the runs are made) on a batch beyond the limits of core/budget.hpp.
void validate_dynamics_options(const DynamicsOptions& options, const theorems::Objective& objective,
                               int extra_steps = 0);

/// The T3 model and head counts: --stride, --heads, --beta-out, --success, --answers.
struct DiversityModelOptions {
  theorems::DiversityModel model;
  std::vector<int> heads;

  /// Throws InputError naming the options.
  void validate() const;
  /// Their values under their option names.
  void put(Json& doc) const;
};

void add_diversity_model_options(CLI::App& command, DiversityModelOptions& options);

/// "log-log slope of the gap, least squares over all N: -1.1777 (...)", saying which of the
/// two slopes it is; n/a when it is not defined (one N, or no gap: S = 1).
std::string slope_line(double slope);

/// A theorem's verdict as the table of `theorem`: title, prediction, regime, check, verdict.
void print_verdict(const theorems::Verdict& verdict, std::ostream& out);

/// "a:b:step" (inclusive, a <= b, step > 0) or a comma list; throws InputError naming
/// `option`.
std::vector<double> parse_range(const std::string& text, const std::string& option);

}  // namespace phasesim::cli
