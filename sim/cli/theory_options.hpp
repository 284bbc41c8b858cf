#pragma once
// Options shared by the theorem commands (optimize, phase-diagram, dynamics, theorem),
// declared on the fields of the theorems layer's option structs (theorems/commands.hpp).
#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "cli/output.hpp"
#include "phasesim/theorems/commands.hpp"

namespace phasesim::cli {

using theorems::DiversityModelOptions;
using theorems::DynamicsOptions;
using theorems::ObjectiveOptions;

/// --window, --stride, --model and (unless `point` is false: phase-diagram takes lists)
/// --beta and --entries; --weights (phase weights of J) when `weights` names its help.
void add_objective_options(CLI::App& command, ObjectiveOptions& options, bool point = true,
                           const std::string& weights = "");

/// The optimizer's --restarts (with `restarts_help`), --seed, --init-scale and
/// --max-iterations.
void add_search_options(CLI::App& command, theorems::OptimizeSettings& search,
                        const std::string& restarts_help);

/// --steps, --lr, --max-logit-step, --update, --content-noise, --content-seed (one or
/// several), --content-samples, --init, --inits on the fields of `options`.
/// `inits_help` describes --inits.
void add_dynamics_options(CLI::App& command, DynamicsOptions& options,
                          const std::string& inits_help);

/// --stride, --heads, --beta-out, --success, --answers.
void add_diversity_model_options(CLI::App& command, DiversityModelOptions& options);

/// "log-log slope of the gap, least squares over all N: -1.1777 (...)", saying which of the
/// two slopes it is; n/a when it is not defined (one N, or no gap: S = 1).
std::string slope_line(double slope);

/// A theorem's verdict as the table of `theorem`: title, prediction, regime, check, verdict.
void print_verdict(const theorems::Verdict& verdict, std::ostream& out);

}  // namespace phasesim::cli
