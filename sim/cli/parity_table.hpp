#pragma once
// What gpu-check and precision-check share: their options (one model and run, as niah takes
// them), and the report of one engine against another (phasesim/engines/parity.hpp).
#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>

#include "cli/command.hpp"
#include "phasesim/engines/parity.hpp"

namespace phasesim::cli {

/// Table titles of the two engines, e.g. "cpu full" and "gpu".
struct ParityTitles {
  std::string reference, candidate;
};

/// One parity command: its name and help, its default run, the two engines by name and
/// how the report names them. `require` throws InputError when the command cannot run here
/// (no GPU); `labels` is called when it runs (the device's name needs the device).
struct ParityCommand {
  std::string name, description;
  niah::NiahSpec defaults;
  std::string reference, candidate;
  ParityTitles titles;
  std::function<void()> require;
  std::function<engines::ParityLabels()> labels;
};

/// Declares the command with the model, run and output options niah takes; when it runs:
/// check_parity of the two engines, the report (unless the JSON goes to stdout), the JSON,
/// and exit status success with parity, kParityFailed without.
void add_parity_command(CLI::App& app, Action& action,
                        std::shared_ptr<const engines::EngineRegistry> registry,
                        ParityCommand command);

}  // namespace phasesim::cli
