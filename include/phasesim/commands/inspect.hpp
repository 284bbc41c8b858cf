#pragma once
// inspect: a real checkpoint's compressor weights read into its predicted phase profile.
#include <optional>
#include <string>
#include <vector>

#include "phasesim/commands/command.hpp"
#include "phasesim/inspect/inspect.hpp"

namespace phasesim::commands {

/// `inspect PATH`: the gates, coverage, content noise and sinks of every layer of a
/// checkpoint, its predicted NIAH tables per layer and for the stack, and --save-arch.
class Inspect {
 public:
  struct Options {
    inspect::InspectSpec spec;
    std::optional<std::string> save_arch;
  };
  using Result = inspect::Prediction;

  static CommandInfo info();
  static OptionTable<Options> table(const Environment& environment);
  Inspect(Options options, const Environment& environment);
  const Options& options() const { return options_; }
  Work work() const;
  std::vector<std::string> warnings() const { return inspection_.stack_plan().warnings(); }
  /// The checkpoint's files: --save-arch and --json may not name them.
  std::vector<std::string> input_files() const { return inspection_.checkpoint().files(); }
  Result run(const Context& context) const;
  Json document(const Result& result) const;
  const inspect::Inspection& inspection() const { return inspection_; }

 private:
  Options options_;
  inspect::Inspection inspection_;
};

}  // namespace phasesim::commands
