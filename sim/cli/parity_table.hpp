#pragma once
// What gpu-check and precision-check share: their options (one model and run, as niah takes
// them), and the report of one engine against another (phasesim/engines/parity.hpp).
#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>

#include "phasesim/engines/parity.hpp"

namespace phasesim::cli {

struct ParityOptions {
  NiahSpec spec;
  int threads = 0;
  std::string json;
};

/// Declares the model, run and output options of a parity command on `command`.
void add_parity_options(CLI::App& command, ParityOptions& options);

/// Table titles of the two engines, e.g. "cpu full" and "gpu".
struct ParityTitles {
  std::string reference, candidate;
};

/// Runs check_parity, prints the report (unless the JSON goes to stdout), writes the JSON and
/// returns the exit status: success with parity, kParityFailed without.
int run_parity_command(const ParityOptions& options, const NiahRun& run, const Engine& reference,
                       const Engine& candidate, const ParityLabels& labels,
                       const ParityTitles& titles, std::ostream& out);

}  // namespace phasesim::cli
