#pragma once
// The options of a NIAH run that `niah` and `compare` share: the parameterization (--beta,
// or --dim with --query-noise), --content-noise, --rms-norm, --context, --groups, --prompts,
// --combine, --engine, --seed, --threads and --json.
#include <CLI/CLI.hpp>
#include <string>

#include "phasesim/engines/engine.hpp"

namespace phasesim::cli {

struct RunOptions {
  niah::NiahSpec spec;  ///< what CLI11 fills directly
  double beta = 4.5;
  int dim = 0;
  int threads = 0;
  std::string engine = "fast";
  std::string json;
  const CLI::Option* beta_given = nullptr;
  const CLI::Option* dim_given = nullptr;

  /// The spec with --beta and --dim set only where the user gave them.
  niah::NiahSpec given_spec() const;
};

void add_run_options(CLI::App& command, RunOptions& options,
                     const engines::EngineRegistry& registry);

}  // namespace phasesim::cli
